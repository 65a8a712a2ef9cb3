"""An ensemble member's per-user z-score statistics, computed once and reused: exact, cheaper.

Why: the night's discovery scores the same members several times for the same user rows
(the ranking, its reasons, play next, the watch list). ``models.ensemble.zscore_rows``
needs each member's whole row to find the user's rankable mean and spread, so every list
paid for the statistics again, in a dozen float64 passes over the whole catalogue, and
the reasons scored every member a second time only for the spread. Here the statistics
of a row (mean, spread, and the row's lowest finite z that the non-finite entries get)
are kept per member and user row (``StatisticsCache``); a later list z-scores only the
columns it needs from them. ``row_statistics_of`` computes them, ``add_zscores`` adds a
member's weighted z-scores to the ensemble's total from them; both are compiled loops
over one row at a time (below, compiled by ``models.compiled``), with no batch-sized temporaries.

Same numbers as ``zscore_rows``/``row_statistics``, bit for bit: every element goes
through the same float64 operations in the same order (the sums are numpy's along each
row, in numpy's pairwise order, over the same values, zeros where a score is not
rankable), only fewer of them. The lowest finite z is the z of the row's lowest finite score: ``(s -
mean) / scale`` never decreases as ``s`` grows (each rounding is monotone), so the min
is attained there, and it is computed by the same two operations. The cache assumes a
member scores a row the same whichever call scores it: so for sparse products (EASE,
kNN, RP3beta, row by row) and for identical batches (the night ranks and shelves the same
batches, ``DiscoveryModel.rank``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from models.compiled import compiled
from models.pairwise import pairwise_sum


@dataclass(frozen=True)
class RowStatistics:
    """Per row, float64: ``row_statistics``'s ``mean`` and ``spread`` and the ``lowest``
    finite z of ``zscore_rows`` (0 for a row without finite scores)."""

    mean: np.ndarray
    spread: np.ndarray
    lowest: np.ndarray

    def scale(self) -> np.ndarray:
        """What ``zscore_rows`` divides by: the spread, or ``inf`` (z 0) where it is 0."""
        return np.where(self.spread > 0, self.spread, np.inf)


def row_statistics_of(scores: np.ndarray, own: sp.csr_matrix) -> RowStatistics:
    """The statistics ``zscore_rows(scores, own)`` works with (``row_statistics_rows``).
    ``own``: the rows' own games (CSR, same shape), left out of mean and spread as there."""
    scores = np.ascontiguousarray(scores)
    own = sp.csr_matrix(own)
    own.sum_duplicates()  # each own game once: it leaves the count once
    mean, spread, lowest = row_statistics_rows(scores, own.indptr, own.indices)
    return RowStatistics(mean, spread, lowest)


def add_zscores(
    total: np.ndarray, weight: float, scores: np.ndarray, statistics: RowStatistics,
    cols: np.ndarray | None = None,
) -> None:
    """``total += np.float32(weight) * zscore_rows(scores, own)[:, cols]`` (None: every
    column) from the rows' known ``statistics``: the same float32 sums
    (``add_zscores_rows``), without a whole z array in between."""
    every = np.zeros(0, dtype=np.int64)
    picked = every if cols is None else np.asarray(cols, dtype=np.int64)
    add_zscores_rows(
        total, np.float32(weight), np.ascontiguousarray(scores), statistics.mean, statistics.scale(),
        statistics.lowest, picked,
    )


class StatisticsCache:
    """``RowStatistics`` per member and user row of the ensemble's matrix, filled once.

    Arrays indexed by user row: the ranking's threads score disjoint batches of rows,
    so they write disjoint entries and need no lock. Not pickled with the model (a
    saved ensemble starts without it: ``Ensemble.__getstate__``)."""

    def __init__(self, members: list[str], n_rows: int) -> None:
        self.index = {name: position for position, name in enumerate(members)}
        shape = (len(members), n_rows)
        self.mean, self.spread, self.lowest = (np.zeros(shape) for _ in range(3))
        self.known = np.zeros(shape, dtype=bool)

    def get(self, member: str, rows: np.ndarray) -> RowStatistics | None:
        """The member's statistics of these rows, or None unless every row is known."""
        at = self.index[member]
        if not self.known[at, rows].all():
            return None
        return RowStatistics(self.mean[at, rows], self.spread[at, rows], self.lowest[at, rows])

    def put(self, member: str, rows: np.ndarray, statistics: RowStatistics) -> None:
        at = self.index[member]
        self.mean[at, rows] = statistics.mean
        self.spread[at, rows] = statistics.spread
        self.lowest[at, rows] = statistics.lowest
        self.known[at, rows] = True


@compiled
def _finite_terms(scores, work, low):  # type: ignore[no-untyped-def]
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
def _least(low):  # type: ignore[no-untyped-def]
    """The first of the lowest of ``low`` (no NaN in it): the running minimum, kept when equal."""
    least = np.inf
    for col in range(low.size):
        value = low[col]
        least = value if value < least else least
    return least


@compiled
def _squared_gaps(scores, keep, mean, work):  # type: ignore[no-untyped-def]
    """One row's second pass: ``work`` the squared gap to ``mean`` of each finite score
    not among the row's own games (``keep`` 0 there), 0 elsewhere (vectorised, as above)."""
    for col in range(scores.size):
        value = np.float64(scores[col])
        gap = value - mean
        square = gap * gap
        work[col] = square if (value - value == 0.0) & (keep[col] != 0.0) else 0.0


@compiled
def row_statistics_row(values, own, work, low, keep):  # type: ignore[no-untyped-def]
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
def row_statistics_rows(scores, own_indptr, own_indices):  # type: ignore[no-untyped-def]
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
def _add_z_row(total, weight, scores, mean, scale, fill):  # type: ignore[no-untyped-def]
    """One row of ``add_zscores_rows`` over every column (selects: vectorised)."""
    for j in range(total.size):
        value = np.float64(scores[j])
        z = np.float32((value - mean) / scale)
        z = z if value - value == 0.0 else fill
        total[j] += z * weight


@compiled
def add_zscores_rows(total, weight, scores, mean, scale, lowest, cols):  # type: ignore[no-untyped-def]
    """``models.member_statistics.add_zscores``: ``total[r, j] += weight · z(scores[r, cols[j]])``
    (float32 ``total`` and ``weight``; ``cols`` empty: every column)."""
    n_rows, width = total.shape
    every = cols.size == 0
    for row in range(n_rows):
        row_mean = mean[row]
        row_scale = scale[row]
        fill = np.float32(lowest[row])
        if every:
            _add_z_row(total[row], weight, scores[row], row_mean, row_scale, fill)
            continue
        for j in range(width):
            value = scores[row, cols[j]]
            if np.isfinite(value):
                z = np.float32((np.float64(value) - row_mean) / row_scale)
            else:
                z = fill
            total[row, j] += z * weight
