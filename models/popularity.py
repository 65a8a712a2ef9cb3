"""Most-popular baseline: every member gets the games most members interacted with.

It is the floor every other model has to clear, and the fallback for members the
other models know nothing about (cold start).
"""

from __future__ import annotations

from typing import Self

import numpy as np
import scipy.sparse as sp

from models.base import Recommender, hyperparameters


@hyperparameters
class Popularity(Recommender):
    """Scores a game by how many members have any interaction with it.

    Counting members (not summing confidences) keeps one enthusiastic member from
    lifting a game. ``random_state`` is accepted for a uniform interface and unused.
    """

    name = "popularity"

    random_state: int | None = None

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Count members per game."""
        self.matrix_ = sp.csr_matrix(matrix)
        self.counts_ = np.asarray(self.matrix_.getnnz(axis=0), dtype=np.float32)
        return self

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """The same popularity row for every user (user rows may be -1: unknown users)."""
        return np.broadcast_to(self.counts_, (len(user_rows), self.counts_.size)).copy()

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """"Similar" means "popular" here: the honest answer of a model without item features."""
        return self.score(item_idx)
