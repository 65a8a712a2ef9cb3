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
over one row at a time (compiled, in ``models.fast.statistics``), with no batch-sized temporaries.

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

from models.fast.statistics import add_zscores_rows, row_statistics_rows


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
