"""A whole-catalogue discovery block in one pass per member (``ranked_rows``).

Per member ``i``, while its rows stay in cache: the champion's clipped, placed row
(``fused_cf_row``, or given), the content row (the liked games over the neighbour
graph), both reference scales and the blend (``blend_row``), the top-n (``top_n_row``)
and whether each listed game is a personal pick. Only those are written. Each step is
the row loop the separate steps run, so the lists equal them bit for bit; a member whose
blended row holds NaN or ``+inf`` is flagged (the caller ranks the block another way).
"""

from __future__ import annotations

import numpy as np

from models.fast.blend import blend_row
from models.fast.compiled import compiled
from models.fast.fused import cf_scratch, fused_cf_row
from models.fast.kernels import top_n_row
from models.fast.products import sparse_product_row


@compiled
def followed(before, values, after):
    """``values`` (aligned with ``before``) of each id of ``after``, row by row: the same
    slot where the id has not moved, else the first slot of ``before`` holding it."""
    n_rows, width = after.shape
    out = np.zeros(after.shape, dtype=values.dtype)
    for row in range(n_rows):
        for slot in range(width):
            game = after[row, slot]
            if before[row, slot] == game:
                out[row, slot] = values[row, slot]
                continue
            for other in range(before.shape[1]):
                if before[row, other] == game:
                    out[row, slot] = values[row, other]
                    break
    return out


@compiled
def ranked_rows(parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices, n_items,
                 where, src, dst, given, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data,
                 candidates, warm, pop_term, content_weight, reference, cf_evidence,
                 ids, values, evidence, cf_scales, content_scales, statistics):
    """``ranked_block``'s loop; returns whether a member's blended row held NaN or ``+inf``.

    Per member ``i``: the champion's clipped and placed row (``fused_cf_row`` of part row
    ``where[i]``, zeros for -1; or ``given[i]``), the content row (``sparse_product_row``
    of the liked games over the neighbour graph), both scales and the blend
    (``blend_row``), the top-n (``top_n_row``) and the evidence at it."""
    n_rows, n_games = candidates.shape
    depth = ids.shape[1]
    take = min(depth, n_games)
    computing = given.shape[0] == 0
    scratch = cf_scratch(parts, n_items, src.size)
    cf = np.zeros(n_games, dtype=np.float32)
    zeros = np.zeros(n_games, dtype=np.float32)
    content = np.empty(n_games, dtype=np.float32)
    sums = np.zeros(n_games, dtype=np.float32)
    with_cf = np.zeros(n_games, dtype=np.bool_)
    blended = np.empty(n_games, dtype=np.float32)
    k = min(reference, n_games)
    heap = np.empty(k, dtype=np.float32)
    masked = np.empty(n_games, dtype=np.float32)
    heap_values = np.empty(take, dtype=np.float32)
    heap_cols = np.empty(take, dtype=np.int64)
    flagged = False
    for i in range(n_rows):
        if not computing:
            row_cf = given[i]
        elif where[i] >= 0:
            fused_cf_row(where[i], parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices,
                         src, dst, scratch, statistics, cf)
            row_cf = cf
        else:
            row_cf = zeros
        sparse_product_row(i, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data, sums, content)
        cf_scales[i], content_scales[i] = blend_row(row_cf, candidates[i], warm, content, pop_term, content_weight,
                                                    k, heap, masked, with_cf, blended)
        if top_n_row(blended, take, heap_values, heap_cols, ids[i], values[i]):
            flagged = True
            continue
        for slot in range(take):
            game = ids[i, slot]
            if game >= 0:
                personal = content[game] > 0
                if cf_evidence:
                    personal = personal | (with_cf[game] & (row_cf[game] > 0))
                evidence[i, slot] = personal
    return flagged
