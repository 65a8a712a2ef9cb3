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

from models.compiled import compiled

MMR_K = 10
"""Slots MMR fills (what a member sees first)."""
MMR_POOL = 30
"""Games MMR chooses from: the best ``MMR_POOL`` by blended score."""


def mmr_order(ids: np.ndarray, values: np.ndarray, graph: sp.csr_matrix, diversity: float, k: int = MMR_K,
              pool: int = MMR_POOL) -> tuple[np.ndarray, np.ndarray]:
    """Re-order each row's first ``k`` of ``ids`` (top-n output, -1 padded) by MMR over its first ``pool``."""
    if diversity <= 0 or ids.size == 0:
        return ids, values
    if not graph.has_canonical_format:  # one stored value per pair, as the numpy form read it
        graph = graph.copy()
        graph.sum_duplicates()
    return mmr_rows(
        np.ascontiguousarray(ids, dtype=np.int64), np.ascontiguousarray(values, dtype=np.float32),
        graph.indptr, graph.indices, graph.data, graph.shape[1], np.float32(diversity), int(k), int(pool),
    )


@compiled
def mmr_rows(ids, values, indptr, indices, data, n_games, diversity, k, pool):  # type: ignore[no-untyped-def]
    """MMR for each row (the module docstring), one member at a time.

    A slot's gain is ``score − diversity · closest`` (float32, as numpy computed it),
    the pick the first best; the similarity of a picked game to the pool is read only
    then, from its graph row spread into a scratch row of ``n_games`` (the stored value,
    0 elsewhere: ``csr_value``'s, without a binary search per pool game)."""
    n_users, n_cols = ids.shape
    width = min(pool, n_cols)
    steps = min(k, width)
    new_ids = ids.copy()
    new_values = values.copy()
    closest = np.empty(width, dtype=np.float32)
    near = np.zeros(n_games, dtype=np.float32)  # the picked game's graph row, spread
    chosen = np.empty(width, dtype=np.bool_)
    order = np.empty(steps, dtype=np.int64)
    gains = np.empty(steps, dtype=np.float32)
    for user in range(n_users):
        closest[:] = 0.0
        chosen[:] = False
        picked = 0
        for _ in range(steps):
            best = np.float32(-np.inf)
            pick = 0
            for slot in range(width):
                if ids[user, slot] >= 0 and not chosen[slot]:
                    gain = values[user, slot] - diversity * closest[slot]
                    if gain > best:  # the first best, as argmax
                        best = gain
                        pick = slot
            if not np.isfinite(best):
                break  # nothing left to pick
            order[picked] = pick
            gains[picked] = best
            chosen[pick] = True
            picked += 1
            game = ids[user, pick]
            for at in range(indptr[game], indptr[game + 1]):
                near[indices[at]] = np.float32(data[at])
            for slot in range(width):
                other = max(ids[user, slot], 0)
                closest[slot] = max(closest[slot], near[other])
            for at in range(indptr[game], indptr[game + 1]):
                near[indices[at]] = 0.0
        for at in range(picked):
            new_ids[user, at] = ids[user, order[at]]
            new_values[user, at] = gains[at]
        at = picked
        for slot in range(width):  # the rest of the pool keeps its order
            if not chosen[slot]:
                new_ids[user, at] = ids[user, slot]
                new_values[user, at] = values[user, slot]
                at += 1
        # The key a list is ranked by never rises: below the MMR slots, capped by the slot above.
        for slot in range(1, n_cols):
            if new_values[user, slot] > new_values[user, slot - 1]:
                new_values[user, slot] = new_values[user, slot - 1]
    return new_ids, new_values
