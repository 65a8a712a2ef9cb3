"""One check shared by the attribution tests: the vectorised attribution gives the numbers
behind the model's own ``explain``, pair by pair."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from models.base import Recommender
from models.discovery.attribution import Attribution


def assert_attribution_matches_explain(
    model: Recommender, matrix: sp.csr_matrix, users: np.ndarray, rng: np.random.Generator, label: str = ""
) -> None:
    """For each user and 4 random games, every positive contribution equals ``explain``'s."""
    attribution = Attribution.for_model(model, matrix)
    assert attribution is not None, label
    for user in users:
        games = matrix.indices[matrix.indptr[user] : matrix.indptr[user + 1]]
        items = rng.choice(matrix.shape[1], size=4, replace=False)
        values = attribution.contributions(
            np.full(games.size, user), games.astype(np.int64), np.broadcast_to(items, (games.size, 4)).copy()
        )
        for k, item in enumerate(items):
            expected = dict(model.explain(int(user), int(item), n=games.size))
            got = {int(g): float(v) for g, v in zip(games, values[:, k]) if v > 0}
            assert set(got) == set(expected), label
            for game, value in expected.items():
                assert got[game] == pytest.approx(value, rel=1e-3, abs=1e-5), label
