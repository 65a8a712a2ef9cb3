"""A member's scores on a few columns only, for the item-to-item models (``x_u W[:, cols]``).

Why: a shelf (play next, the watch list) ranks a few games per member, but the
ensemble's members scored every column of every member again for it: EASE's dense
product over its 10,000 games and kNN's sparse one. Here only the asked columns are
summed (compiled loops, the GIL released).

Same numbers as the whole product's columns, bit for bit: scipy sums a product entry
over the member's stored games in stored order, ``0 + a₁w₁ + a₂w₂ + …`` in float32
(``csr_matvecs`` for a dense ``W``, ``csr_matmat`` for a sparse one), and so do these
loops, over the same rows of the same matrices. ``tests/unit/models/test_kernels.py``
compares them with the whole product.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from models.fast.compiled import new_rows
from models.fast.products import dense_columns, dense_product_rows_into, sparse_columns, sparse_product_rows_into


def dense_product_rows(rows: sp.csr_matrix, weights: np.ndarray, items: np.ndarray, n_items: int) -> np.ndarray:
    """``rows @ weights`` for CSR float32 ``rows`` and a C-ordered float32 ``weights`` whose
    columns are the catalogue columns ``items``: ``(n_rows, n_items)``, ``-inf`` outside
    ``items`` (EASE's modelled games). Each row summed as scipy's ``csr_matvecs`` does
    (``0 + a₁w₁ + a₂w₂ + …``, the stored games in order) in a scratch row that stays in
    cache, then placed; numpy's ``full``, product and fancy assignment took three passes.

    The output is numpy's (``new_rows``), not allocated in the compiled loop."""
    out = new_rows((rows.shape[0], n_items), np.float32)
    return dense_product_rows_into(rows.indptr, rows.indices, rows.data, weights, np.asarray(items, dtype=np.int64), out)


def sparse_product_rows(rows: sp.csr_matrix, weights: sp.csr_matrix) -> np.ndarray | None:
    """``(rows @ weights).toarray()`` for CSR float32 ``rows`` and ``weights``, every column:
    scipy's sums in scipy's order (``csr_matmat``: ``0 + a₁w₁ + a₂w₂ + …`` per entry, over
    the row's stored games in stored order), straight into dense rows, with no sparse
    result to build and densify; None for other types (the caller uses scipy)."""
    if not (sp.issparse(rows) and sp.issparse(weights) and rows.format == "csr" and weights.format == "csr"):
        return None
    if rows.dtype != np.float32 or weights.dtype != np.float32:
        return None
    out = new_rows((rows.shape[0], weights.shape[1]), np.float32)
    return sparse_product_rows_into(rows.indptr, rows.indices, rows.data, weights.indptr, weights.indices, weights.data,
                                out)


def product_columns(rows: sp.csr_matrix, weights: np.ndarray | sp.csr_matrix, cols: np.ndarray) -> np.ndarray | None:
    """``(rows @ weights)[:, cols]`` as float32 when both are float32 (dense or CSR
    ``weights``); None otherwise (the caller then takes the whole product's columns)."""
    rows = sp.csr_matrix(rows)
    cols = np.asarray(cols, dtype=np.int64)
    if rows.dtype != np.float32 or weights.dtype != np.float32:
        return None
    if isinstance(weights, np.ndarray):
        return dense_columns(rows.indptr, rows.indices, rows.data, np.ascontiguousarray(weights), cols)
    if not sp.issparse(weights) or weights.format != "csr":
        return None
    slot = np.full(weights.shape[1], -1, dtype=np.int64)
    if np.unique(cols).size != cols.size:
        return None  # a column asked twice: one slot each is not enough
    slot[cols] = np.arange(cols.size)
    return sparse_columns(rows.indptr, rows.indices, rows.data, weights.indptr, weights.indices, weights.data,
                          slot, cols.size)
