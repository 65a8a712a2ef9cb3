"""A bare yardstick for the scale benchmark: the night's core work in plain numpy/scipy.

Why: absolute seconds on these shared machines move by up to a third between days and
with the other sessions' load, so ``benchmarks.scale`` times, in the same run and on
the same collections, the work any recommender night must do at that size, written the
shortest way the libraries allow: an EASE fit (binary matrix, ``XᵀX + λI`` inverted by
LAPACK) on the ``YARDSTICK_ITEMS`` most collected games, the cap the night's champion
refit uses (``models.ease.EASE.max_items``), and scoring every member with games against
those games with the member's own games masked out and the top ``k`` kept
(``argpartition``, then sorted). Each stage of the night is then reported as a ratio to
it: a ratio that stays put while the seconds move is the machine, not the code.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

YARDSTICK_ITEMS = 10_000
"""Games in the bare EASE: ``models.ease.EASE.max_items``, the champion's cap at night."""

YARDSTICK_L2 = 300.0
"""EASE's penalty λ (``models.ease.EASE.l2``'s default)."""

SCORE_ROWS = 2_048
"""Members scored at once (a 2,048 × 10,000 float32 block is 80 MB)."""


def yardstick(users: np.ndarray, games: np.ndarray, *, k: int = 100, items: int = YARDSTICK_ITEMS) -> dict[str, Any]:
    """Fit and score on (user code, game code) pairs; seconds of each half.

    Codes are 0-based integers; a repeated pair counts once (binary matrix).
    """
    n_users = int(users.max()) + 1 if users.size else 0
    n_games = int(games.max()) + 1 if games.size else 0
    matrix = sp.csr_matrix((np.ones(users.size, dtype=np.float32), (users, games)), shape=(n_users, n_games))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    started = time.perf_counter()
    counts = matrix.getnnz(axis=0)
    cols = np.sort(np.argsort(-counts, kind="stable")[: min(items, n_games)])
    x = matrix[:, cols].tocsr()
    gram = np.asarray((x.T @ x).toarray(), dtype=np.float32)
    gram[np.diag_indices_from(gram)] += YARDSTICK_L2
    inverse = np.linalg.inv(gram)
    weights = inverse / -np.diag(inverse)[None, :]
    weights[np.diag_indices_from(weights)] = 0.0
    fitted = time.perf_counter()
    take = min(k, cols.size)
    listed = 0
    for start in range(0, n_users, SCORE_ROWS):
        block = x[start : start + SCORE_ROWS]
        scores = np.asarray(block @ weights, dtype=np.float32)
        rows = np.repeat(np.arange(block.shape[0]), np.diff(block.indptr))
        scores[rows, block.indices] = -np.inf
        if take == 0:
            continue
        top = np.argpartition(-scores, take - 1, axis=1)[:, :take]
        order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1)
        listed += np.take_along_axis(top, order, axis=1).shape[0]
    scored = time.perf_counter()
    return {
        "items": int(cols.size), "members": int(n_users), "k": take, "scored_members": listed,
        "fit_seconds": round(fitted - started, 4), "score_seconds": round(scored - fitted, 4),
        "seconds": round(scored - started, 4),
    }
