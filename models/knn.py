"""Item-based nearest neighbours from implicit (cosine and BM25 similarity).

A member's score for a game is the sum, over the member's games, of confidence times
the similarity between the two games (implicit's own scorer does the same). Keeping
only the ``K`` nearest neighbours per game makes the similarity sparse and the scores
explainable: "because you like X" is the neighbour that contributed most.
"""

from __future__ import annotations

import warnings
from typing import Self

import numpy as np
import scipy.sparse as sp
from implicit.nearest_neighbours import BM25Recommender, CosineRecommender, ItemItemRecommender
from implicit.utils import ParameterWarning

from models.base import Recommender, hyperparameters, single_threaded_blas, sparse_rows_dense


@hyperparameters
class _ItemKNN(Recommender):
    """Shared scoring on top of implicit's item-item similarity (``similarity_``).

    Both similarities keep ``K`` neighbours per game, declared here once; ``random_state``
    is accepted for a uniform interface and unused (the neighbours are exact).
    """

    K: int = 100
    random_state: int | None = None

    def _implicit_model(self) -> ItemItemRecommender:
        raise NotImplementedError

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Compute the K-nearest-neighbour similarity between games."""
        self.matrix_ = sp.csr_matrix(matrix, dtype=np.float32)
        with single_threaded_blas(), warnings.catch_warnings():
            # implicit converts its own COO intermediate and warns about it; not ours to fix.
            warnings.simplefilter("ignore", ParameterWarning)
            model = self._implicit_model()
            model.fit(self.matrix_, show_progress=False)
        self.similarity_ = model.similarity.tocsr().astype(np.float32)
        return self

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """Confidence-weighted sum of neighbour similarities."""
        return sparse_rows_dense(self.matrix_[user_rows], self.similarity_)

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """The game's neighbour row (zeros beyond its K neighbours)."""
        return self.similarity_[item_idx].toarray()

    def explain(self, user_row: int, item_idx: int, n: int = 3) -> list[tuple[int, float]]:
        """Each of the user's games contributes confidence × similarity to the game."""
        return _contributions(self.matrix_, self.similarity_, user_row, item_idx, n)


@hyperparameters
class ItemKNNCosine(_ItemKNN):
    """Cosine similarity between the games' member vectors; ``K`` neighbours kept per game."""

    name = "cosine"

    def _implicit_model(self) -> ItemItemRecommender:
        return CosineRecommender(K=self.K, num_threads=0)


@hyperparameters
class ItemKNNBM25(_ItemKNN):
    """BM25-weighted similarity: damps heavy users (``B``) and saturates counts (``K1``)."""

    name = "bm25"

    K1: float = 1.2
    B: float = 0.75

    def _implicit_model(self) -> ItemItemRecommender:
        return BM25Recommender(K=self.K, K1=self.K1, B=self.B, num_threads=0)


def _contributions(
    matrix: sp.csr_matrix, weights: sp.csr_matrix | np.ndarray, user_row: int, item_idx: int, n: int
) -> list[tuple[int, float]]:
    """Top positive ``x_uj * W[j, i]`` over the user's games ``j`` (item-to-item models)."""
    start, stop = matrix.indptr[user_row], matrix.indptr[user_row + 1]
    games = matrix.indices[start:stop]
    if games.size == 0:
        return []
    if sp.issparse(weights):
        column = weights[games][:, [item_idx]].toarray().ravel()
    else:
        column = np.asarray(weights[games, item_idx]).ravel()
    contribution = matrix.data[start:stop] * column
    order = np.lexsort((games, -contribution))[:n]
    return [(int(games[j]), float(contribution[j])) for j in order if contribution[j] > 0]
