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

from models.fast.rerank import mmr_rows

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
