"""An ensemble member's per-row z-score statistics and z-adds, one row at a time.

``row_statistics_rows``: per row the mean and (population) spread of the rankable scores
(finite, not the row's own games) and the row's lowest finite z; ``add_zscores_rows``
adds ``weight · z`` to a float32 total. The float64 row sums replay numpy's pairwise
order (``models.fast.pairwise``), so the results equal ``models.ensemble.zscore_rows``'
numpy passes bit for bit. Non-finite scores take the row's lowest finite z.
"""

from __future__ import annotations

import numpy as np

from models.fast.compiled import compiled
from models.fast.pairwise import pairwise_sum


@compiled
def _finite_terms(scores, work, low):
    """One row's first pass: ``work`` its finite scores as float64 (0 elsewhere), ``low``
    the same with ``inf`` elsewhere; returns how many are finite. Selects over contiguous
    rows, no reduction but an integer count: the loop is vectorised."""
    count = 0
    for col in range(scores.size):
        value = np.float64(scores[col])
        finite = value - value == 0.0  # False for inf and NaN
        work[col] = value if finite else 0.0
        low[col] = value if finite else np.inf
        count += finite
    return count


@compiled
def _least(low):
    """The first of the lowest of ``low`` (no NaN in it): the running minimum, kept when equal."""
    least = np.inf
    for col in range(low.size):
        value = low[col]
        least = value if value < least else least
    return least


@compiled
def _squared_gaps(scores, keep, mean, work):
    """One row's second pass: ``work`` the squared gap to ``mean`` of each finite score
    not among the row's own games (``keep`` 0 there), 0 elsewhere (vectorised, as above)."""
    for col in range(scores.size):
        value = np.float64(scores[col])
        gap = value - mean
        square = gap * gap
        work[col] = square if (value - value == 0.0) & (keep[col] != 0.0) else 0.0


@compiled
def row_statistics_row(values, own, work, low, keep):
    """One row's ``(mean, spread, lowest z)`` of ``row_statistics_rows`` (``own``: the
    row's own columns, each once; ``work``, ``low``: float64 scratch of the row's length;
    ``keep``: ones, left as found)."""
    n_cols = values.size
    count = _finite_terms(values, work, low)
    least = _least(low)
    for col in own:
        if keep[col] != 0.0 and np.isfinite(values[col]):
            count -= 1
        keep[col] = 0.0
        work[col] = 0.0
    count = max(count, 1)
    row_mean = pairwise_sum(work, 0, n_cols, 0.0) / count
    _squared_gaps(values, keep, row_mean, work)
    for col in own:
        keep[col] = 1.0
    row_spread = np.sqrt(pairwise_sum(work, 0, n_cols, 0.0) / count)
    scale = row_spread if row_spread > 0 else np.inf
    low_z = (least - row_mean) / scale
    return row_mean, row_spread, (low_z if np.isfinite(low_z) else 0.0)


@compiled
def row_statistics_rows(scores, own_indptr, own_indices):
    """``models.member_statistics.row_statistics_of``: per row the mean and spread of the
    rankable scores (finite, not the row's own games) and the row's lowest finite z.

    Each pass over a row is its own loop over contiguous arrays (``_finite_terms``,
    ``_squared_gaps``: selects, vectorised; ``_least``: the minimum alone): one loop
    that also branched on each cell's finiteness was mispredicted where finite and
    non-finite scores interleave, as EASE's ``-inf`` columns do, and ran ~5× slower."""
    n_rows, n_cols = scores.shape
    mean = np.zeros(n_rows)
    spread = np.zeros(n_rows)
    lowest = np.zeros(n_rows)
    work = np.empty(n_cols)
    low = np.empty(n_cols)
    keep = np.ones(n_cols)  # 0 at the row's own games while the row is summed
    for row in range(n_rows):
        own = own_indices[own_indptr[row]:own_indptr[row + 1]]
        mean[row], spread[row], lowest[row] = row_statistics_row(scores[row], own, work, low, keep)
    return mean, spread, lowest


@compiled
def add_z_row(total, weight, scores, mean, scale, fill):
    """One row of ``add_zscores_rows`` over every column (selects: vectorised)."""
    for j in range(total.size):
        value = np.float64(scores[j])
        z = np.float32((value - mean) / scale)
        z = z if value - value == 0.0 else fill
        total[j] += z * weight


@compiled
def add_zscores_rows(total, weight, scores, mean, scale, lowest, cols):
    """``models.member_statistics.add_zscores``: ``total[r, j] += weight · z(scores[r, cols[j]])``
    (float32 ``total`` and ``weight``; ``cols`` empty: every column)."""
    n_rows, width = total.shape
    every = cols.size == 0
    for row in range(n_rows):
        row_mean = mean[row]
        row_scale = scale[row]
        fill = np.float32(lowest[row])
        if every:
            add_z_row(total[row], weight, scores[row], row_mean, row_scale, fill)
            continue
        for j in range(width):
            value = scores[row, cols[j]]
            if np.isfinite(value):
                z = np.float32((np.float64(value) - row_mean) / row_scale)
            else:
                z = fill
            total[row, j] += z * weight
