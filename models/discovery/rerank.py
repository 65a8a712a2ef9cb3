"""Less popularity bias, more variety: two re-rankings of a member's list, and their price.

* **Long-tail boost** (``Blend.tail``): ``score − tail · pop``, with ``pop`` the game's
  ``log(1 + members)`` scaled to [0, 1] (the blend's own popularity term, turned
  around). A popularity penalty in the spirit of Abdollahpouri et al. (2017): cheap,
  monotone, and it reaches every mode (discovery, play next, game night).
* **MMR diversity** (``Blend.diversity``, Carbonell & Goldstein 1998): the first ``k``
  slots are filled greedily from the best ``pool`` games by
  ``score − diversity · max similarity to the games already chosen`` (content
  similarity from the neighbour graph). Slots after ``k`` keep their order. In the
  first ``k`` slots ``score`` is the MMR gain (greedy gains never rise); below them the
  blended score, capped by the score above, so a list's scores never rise.

``benchmarks/diversity_tradeoff.py`` measures both on a time split (what members marked
next): NDCG@10, long-tail share and intra-list diversity for a grid of settings. The
docs/recommenders.md shows the curve and which setting the nightly uses.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from models.discovery.attribution import gather_flat

MMR_K = 10
"""Slots MMR fills (what a member sees first)."""
MMR_POOL = 30
"""Games MMR chooses from: the best ``MMR_POOL`` by blended score."""


def mmr_order(ids: np.ndarray, values: np.ndarray, graph: sp.csr_matrix, diversity: float, k: int = MMR_K,
              pool: int = MMR_POOL) -> tuple[np.ndarray, np.ndarray]:
    """Re-order each row's first ``k`` of ``ids`` (top-n output, -1 padded) by MMR over its first ``pool``."""
    if diversity <= 0 or ids.size == 0:
        return ids, values
    n_users = ids.shape[0]
    width = min(pool, ids.shape[1])
    head, head_values = ids[:, :width], values[:, :width]
    valid = head >= 0
    safe = np.maximum(head, 0)
    pairs_a = np.repeat(safe, width, axis=1).ravel()
    pairs_b = np.tile(safe, (1, width)).ravel()
    sims = gather_flat(graph, pairs_a, pairs_b).reshape(n_users, width, width)
    chosen = np.zeros((n_users, width), dtype=bool)
    closest = np.zeros((n_users, width), dtype=np.float32)
    order = np.full((n_users, min(k, width)), -1, dtype=np.int64)
    gains = np.full(order.shape, -np.inf, dtype=np.float32)
    rows = np.arange(n_users)
    for step in range(order.shape[1]):
        gain = np.where(valid & ~chosen, head_values - diversity * closest, -np.inf)
        pick = gain.argmax(axis=1)
        ok = np.isfinite(gain[rows, pick])
        order[ok, step] = pick[ok]
        gains[ok, step] = gain[rows[ok], pick[ok]]
        chosen[rows[ok], pick[ok]] = True
        closest = np.maximum(closest, sims[rows, pick, :])
    new_ids, new_values = ids.copy(), values.copy()
    for user in range(n_users):
        picked = order[user][order[user] >= 0]
        rest = [p for p in range(width) if p not in set(picked.tolist())]
        positions = np.concatenate([picked, np.asarray(rest, dtype=np.int64)])
        new_ids[user, :width] = head[user, positions]
        new_values[user, :width] = head_values[user, positions]
        new_values[user, : picked.size] = gains[user, : picked.size]
    # The key a list is ranked by never rises: below the MMR slots, capped by the slot above.
    return new_ids, np.minimum.accumulate(new_values, axis=1)
