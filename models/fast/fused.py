"""The champion's part of a member's row for item-to-item champions, in one pass.

Per member: each part's ``x_u W`` (``models.fast.products``), for an ensemble its
statistics and weighted z-scores added to the total (``models.fast.statistics``) and the
total over the weights' sum, then clipped and placed (``models.fast.blend.placed_row``):
the same loops on the same values in the same order as the separate steps, so the same
numbers bit for bit. Parts come in ``PARTS`` fixed slots (numba takes tuples of arrays,
not lists of them); the missing ones are empty (``empty_slot``).
"""

from __future__ import annotations

import numpy as np

from models.fast.blend import placed_row
from models.fast.compiled import compiled
from models.fast.products import dense_product_row, sparse_product_row
from models.fast.statistics import add_z_row, row_statistics_row

PARTS = 3
"""Slots of the compiled passes for a champion's item-to-item parts (an ensemble's members:
``models.ensemble.POOL`` lets at most this many join). A champion of more parts is
ranked by the reference engine's steps."""


def empty_slot(n_rows: int) -> tuple:
    """A part slot of ``FusedCF.inputs`` holding no model: ``n_rows`` empty member rows."""
    empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    return (np.zeros(n_rows + 1, dtype=np.int32), empty_i.astype(np.int32), empty_f, np.zeros((0, 0), dtype=np.float32),
            empty_i, empty_i, empty_i, empty_f)


def no_inputs(n_rows: int) -> tuple:
    """``FusedCF.inputs`` without any part: the pass's arguments when the champion's
    scores come made (``models.discovery.onepass``)."""
    slot = empty_slot(n_rows)
    return ((slot, slot, slot), 0, np.zeros(PARTS, dtype=bool), np.zeros(PARTS, dtype=np.float32), np.float32(1.0),
            False, np.zeros(n_rows + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), 1)


@compiled
def _part_row(r, part, is_dense, inner, sums, row):
    """Member row ``r`` of one part (``FusedCF.inputs``' tuple) into ``row`` (the champion's
    columns): the same loops as the part's own scoring (``models.column_scores``)."""
    indptr, indices, data, dense_w, items, w_indptr, w_indices, w_data = part
    if is_dense:
        dense_product_row(r, indptr, indices, data, dense_w, items, inner, row)
    else:
        sparse_product_row(r, indptr, indices, data, w_indptr, w_indices, w_data, sums, row)


@compiled
def cf_scratch(parts, n_items, n_src):
    """``fused_cf_row``'s scratch rows, made once per block."""
    width = max(parts[0][3].shape[1], parts[1][3].shape[1], parts[2][3].shape[1], 1)
    return (np.zeros(width, dtype=np.float32), np.empty(n_items, dtype=np.float32),
            np.zeros(n_items, dtype=np.float32), np.empty(n_items, dtype=np.float32), np.empty(n_items),
            np.empty(n_items), np.ones(n_items), np.empty(n_src, dtype=np.float32),
            np.empty(n_src, dtype=np.float32))


@compiled
def fused_cf_row(i, parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices, src, dst,
                 scratch, statistics, target):
    """Member ``i`` of the parts' rows: each part's row (in the ensemble's order), its
    statistics (into ``statistics[:, :, i]``) and weighted z-scores added to the total
    and the total over the weights' sum (an ensemble), or the row itself (one model);
    clipped and placed at ``target[dst]`` (``target`` elsewhere untouched)."""
    inner, row, sums, total, work, low, keep, picked, clipped = scratch
    for col in range(total.size):
        total[col] = 0.0
    for p in range(n_parts):
        if p == 0:
            _part_row(i, parts[0], dense[0], inner, sums, row)
        elif p == 1:
            _part_row(i, parts[1], dense[1], inner, sums, row)
        else:
            _part_row(i, parts[2], dense[2], inner, sums, row)
        if zscored:
            own = own_indices[own_indptr[i]:own_indptr[i + 1]]
            mean, spread, lowest = row_statistics_row(row, own, work, low, keep)
            statistics[p, 0, i], statistics[p, 1, i], statistics[p, 2, i] = mean, spread, lowest
            add_z_row(total, weights[p], row, mean, spread if spread > 0 else np.inf, np.float32(lowest))
    if zscored:
        for col in range(total.size):
            total[col] = total[col] / weight_sum
    source = total if zscored else row  # one model: its own row
    for j in range(src.size):
        picked[j] = source[src[j]]
    placed_row(picked, dst, clipped, target)


@compiled
def fused_rows_into(parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices, n_items,
                rows, src, dst, out, statistics):
    """``FusedCF.scores``' loop: ``fused_cf_row`` of each member into its row of ``out``."""
    scratch = cf_scratch(parts, n_items, src.size)
    for i in range(rows.size):
        fused_cf_row(i, parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices, src, dst,
                     scratch, statistics, out[rows[i]])
    return out
