"""Similar games (``marts.similar_games``) for every game of the catalogue.

The champion's item similarity (or, for a champion without one, cosine of the games'
member vectors), normalised per game to [0, 1], blended with content similarity. The CF
share grows with the game's number of members, ``similar_cf_share · n / (n +
similar_shrink)``, so a game with a handful of members leans on content and a game with
none is content only.
"""

from __future__ import annotations

import threading

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.base import topk_frame
from models.discovery.model import DiscoveryModel
from models.sklearn_lazy import normalize
from models.threads import map_blocks


def _cf_similarity(state: DiscoveryModel, cols: np.ndarray, cosine: list[sp.csr_matrix],
                   lock: threading.Lock) -> np.ndarray:
    """Champion item similarity rows over its own columns, or interaction cosine."""
    model = state.model
    assert model is not None
    if state.champion != "popularity":
        try:
            return np.asarray(model.item_similarity(cols), dtype=np.float32)
        except NotImplementedError:
            pass
    with lock:
        if not cosine:
            # Unit rows (a game nobody has stays a zero row, similar to nothing).
            cosine.append(normalize(sp.csr_matrix(state.interactions.matrix.T, dtype=np.float32)))
    block = cosine[0][cols] @ cosine[0].T
    return np.asarray(block.toarray(), dtype=np.float32)


def similar_games(state: DiscoveryModel, n: int) -> pl.DataFrame:
    """``game_id``, ``rank``, ``similar_game_id``, ``score`` for every catalogue game."""
    ids = np.full((state.n_games, n), -1, dtype=np.int64)
    values = np.full((state.n_games, n), -np.inf, dtype=np.float32)
    blend = state.blend
    warm = state.cf_cols >= 0
    share = np.where(
        warm, blend.similar_cf_share * state.cf_members / (state.cf_members + blend.similar_shrink), 0.0
    ).astype(np.float32)
    cosine: list[sp.csr_matrix] = []
    lock = threading.Lock()  # the blocks run on two threads: the cosine matrix is made once

    def block(rows: np.ndarray) -> None:
        sims = np.asarray(state.graph[rows].toarray(), dtype=np.float32) * (1.0 - share[rows])[:, None]
        hot = rows[warm[rows]]
        if hot.size and state.model is not None:
            cf = _cf_similarity(state, state.cf_cols[hot], cosine, lock)[:, state.cf_cols[warm]]
            cf[~np.isfinite(cf)] = 0.0
            cf = np.maximum(cf, 0.0)
            cf[np.arange(hot.size), np.searchsorted(np.flatnonzero(warm), hot)] = 0.0
            top = cf.max(axis=1, keepdims=True)
            cf = np.where(top > 0, cf / np.where(top > 0, top, 1.0), 0.0)
            position = np.searchsorted(rows, hot)
            block = sims[position]
            block[:, warm] += cf * share[hot][:, None]
            sims[position] = block
        sims[np.arange(rows.size), rows] = -np.inf
        sims[sims <= 0] = -np.inf
        ids[rows], values[rows] = state.top_n(sims, n)

    map_blocks(block, state.content.chunks())  # each block its own rows: the same lists as in turn
    return topk_frame(state.game_ids, ids, values, state.game_ids, key="game_id", value="similar_game_id")
