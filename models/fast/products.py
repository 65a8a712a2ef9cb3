"""Sparse rows times item weights (``x_u W``), summed in scipy's order.

scipy sums a product entry over the member's stored games in stored order,
``0 + a₁w₁ + a₂w₂ + …`` in float32 (``csr_matvecs`` for a dense ``W``, ``csr_matmat`` for
a sparse one), and so do these loops: the same values bit for bit, for whole rows
(``*_product_row``) or a few columns (``dense_columns``, ``sparse_columns``).
"""

from __future__ import annotations

import numpy as np

from models.fast.compiled import compiled


@compiled
def dense_columns(indptr, indices, data, weights, cols):
    """``(rows @ weights)[:, cols]`` for CSR ``rows`` and a dense float32 ``weights``."""
    n_rows = indptr.size - 1
    out = np.zeros((n_rows, cols.size), dtype=np.float32)
    for row in range(n_rows):
        for at in range(indptr[row], indptr[row + 1]):
            game = indices[at]
            weight = data[at]
            for j in range(cols.size):
                out[row, j] += weight * weights[game, cols[j]]
    return out


@compiled
def sparse_columns(indptr, indices, data, w_indptr, w_indices, w_data, slot, width):
    """``(rows @ W)[:, cols]`` for CSR ``rows`` and CSR float32 ``W``; ``slot[c]`` is the
    position of column ``c`` among ``cols`` (-1: not asked for)."""
    n_rows = indptr.size - 1
    out = np.zeros((n_rows, width), dtype=np.float32)
    for row in range(n_rows):
        for at in range(indptr[row], indptr[row + 1]):
            game = indices[at]
            weight = data[at]
            for nb in range(w_indptr[game], w_indptr[game + 1]):
                position = slot[w_indices[nb]]
                if position >= 0:
                    out[row, position] += weight * w_data[nb]
    return out


@compiled
def dense_product_row(row, indptr, indices, data, weights, items, inner, target):
    """Member ``row``'s ``x_u W`` into ``target``, ``-inf`` outside ``items`` (``inner``:
    zeros of ``W``'s width, left zero): summed as scipy's ``csr_matvecs`` does."""
    width = weights.shape[1]
    for at in range(indptr[row], indptr[row + 1]):
        game_weights = weights[indices[at]]
        weight = data[at]
        for j in range(width):
            inner[j] += weight * game_weights[j]
    none = np.float32(-np.inf)
    for col in range(target.size):
        target[col] = none
    for j in range(width):
        target[items[j]] = inner[j]
        inner[j] = 0.0


@compiled
def dense_product_rows_into(indptr, indices, data, weights, items, out):
    """``dense_product_rows``' loop, into ``out``."""
    inner = np.zeros(weights.shape[1], dtype=np.float32)
    for row in range(indptr.size - 1):
        dense_product_row(row, indptr, indices, data, weights, items, inner, out[row])
    return out


@compiled
def sparse_product_row(row, indptr, indices, data, w_indptr, w_indices, w_data, sums, target):
    """Member ``row``'s ``x_u W`` for a CSR ``W`` into ``target``: summed in ``sums`` (zeros
    of the row's length, left zero), a scratch row that stays in cache (scattered adds
    straight into a batch-sized output missed it), then copied whole."""
    for at in range(indptr[row], indptr[row + 1]):
        game = indices[at]
        weight = data[at]
        for nb in range(w_indptr[game], w_indptr[game + 1]):
            sums[w_indices[nb]] += weight * w_data[nb]
    for col in range(target.size):
        target[col] = sums[col]
        sums[col] = 0.0


@compiled
def sparse_product_rows_into(indptr, indices, data, w_indptr, w_indices, w_data, out):
    """``sparse_product_rows``' loop, into ``out``."""
    sums = np.zeros(out.shape[1], dtype=np.float32)
    for row in range(indptr.size - 1):
        sparse_product_row(row, indptr, indices, data, w_indptr, w_indices, w_data, sums, out[row])
    return out


@compiled
def factor_scores(users, item_factors_t):
    """``users @ item_factors_t`` (float32 member factors times the transposed item factors),
    each entry summed over the factors in order, one member at a time: a member scored
    alone (fold-in) gets the same numbers as in the night's batch, which a BLAS product
    does not promise (its kernels differ by the number of rows)."""
    n_users, n_factors = users.shape
    n_items = item_factors_t.shape[1]
    out = np.zeros((n_users, n_items), dtype=np.float32)
    for user in range(n_users):
        for factor in range(n_factors):
            weight = users[user, factor]
            for item in range(n_items):
                out[user, item] += weight * item_factors_t[factor, item]
    return out
