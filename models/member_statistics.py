"""An ensemble member's per-user z-score statistics, computed once and reused: exact, cheaper.

Why: the night's discovery scores the same members several times for the same user rows
(the ranking, its reasons, play next, the watch list). ``models.ensemble.zscore_rows``
needs each member's whole row to find the user's rankable mean and spread, so every list
paid for the statistics again, in a dozen float64 passes over the whole catalogue, and
the reasons scored every member a second time only for the spread. Here the statistics
of a row (mean, spread, and the row's lowest finite z that the non-finite entries get)
are kept per member and user row (``StatisticsCache``); a later list z-scores only the
columns it needs from them. ``row_statistics_of`` computes them, ``add_zscores`` adds a
member's weighted z-scores to the ensemble's total from them; both work on chunks of
rows small enough for a core's cache.

Same numbers as ``zscore_rows``/``row_statistics``, bit for bit: every element goes
through the same float64 operations in the same order (the sums are numpy's along each
row, over the same values, zeros where a score is not rankable), only fewer of them and
chunk by chunk. The lowest finite z is the z of the row's lowest finite score: ``(s -
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

CHUNK_CELLS = 1 << 16
"""Cells of one chunk of rows (512 KB of float64): its passes stay in a core's cache
instead of streaming a batch's 30 MB temporaries through memory each time."""


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


def _chunks(n_rows: int, n_cols: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of consecutive chunks of rows, ``CHUNK_CELLS`` cells each at most
    (every operation here works row by row, so chunking changes no number)."""
    step = max(1, CHUNK_CELLS // max(n_cols, 1))
    return [(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def _finite(values: np.ndarray) -> np.ndarray | None:
    """Where ``values`` are finite; None when all are (the common case: no masks needed)."""
    finite = np.isfinite(values)
    return None if finite.all() else finite


def row_statistics_of(scores: np.ndarray, own: sp.csr_matrix) -> RowStatistics:
    """The statistics ``zscore_rows(scores, own)`` works with, chunk by chunk of rows.
    ``own``: the rows' own games (CSR, same shape), left out of mean and spread as there."""
    scores = np.asarray(scores)
    n_rows, n_cols = scores.shape
    own = sp.csr_matrix(own)
    own_rows = np.repeat(np.arange(n_rows), np.diff(own.indptr))  # (row, column) of each own game
    mean, spread, lowest = (np.zeros(n_rows) for _ in range(3))
    for start, stop in _chunks(n_rows, n_cols):
        chunk, entries = slice(start, stop), slice(own.indptr[start], own.indptr[stop])
        mean[chunk], spread[chunk], lowest[chunk] = _chunk_statistics(
            scores[chunk], own_rows[entries] - start, own.indices[entries]
        )
    return RowStatistics(mean, spread, lowest)


def _chunk_statistics(
    raw: np.ndarray, own_row: np.ndarray, own_col: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, spread and lowest z of a few rows (their own games at ``own_row, own_col``).

    ``row_statistics`` sums ``where(rankable, s, 0)`` and ``where(rankable, s - mean,
    0) ** 2``; here the same arrays are made in place in one float64 copy of the rows
    (own and non-finite entries zeroed, then the mean taken off) and its square."""
    n_rows, n_cols = raw.shape
    values = raw.astype(np.float64)  # a copy: the float64 scores zscore_rows works on
    finite = _finite(raw)
    counted = np.full(n_rows, n_cols, dtype=np.int64) if finite is None else finite.sum(axis=1)
    counted -= np.bincount(own_row[np.isfinite(values[own_row, own_col])], minlength=n_rows)
    count = np.maximum(counted, 1)

    values[own_row, own_col] = 0.0  # the rankable scores, zeros elsewhere
    if finite is not None:
        np.copyto(values, 0.0, where=~finite)
    mean = values.sum(axis=1) / count
    values -= mean[:, None]  # s - mean where rankable
    squares = np.square(values, out=values)
    squares[own_row, own_col] = 0.0
    if finite is not None:
        np.copyto(squares, 0.0, where=~finite)
    spread = np.sqrt(squares.sum(axis=1) / count)

    least = raw.min(axis=1) if finite is None else np.min(raw, axis=1, initial=np.inf, where=finite)
    with np.errstate(invalid="ignore"):  # inf / inf: a row without finite scores, lowest 0
        lowest = (least.astype(np.float64) - mean) / np.where(spread > 0, spread, np.inf)
    return mean, spread, np.where(np.isfinite(lowest), lowest, 0.0)


def add_zscores(
    total: np.ndarray, weight: float, scores: np.ndarray, statistics: RowStatistics,
    cols: np.ndarray | None = None,
) -> None:
    """``total += np.float32(weight) * zscore_rows(scores, own)[:, cols]`` (None: every
    column) from the rows' known ``statistics``: the same float32 sums, chunk by chunk,
    without a whole z array in between."""
    scores = np.asarray(scores)
    mean, scale, lowest = statistics.mean, statistics.scale(), statistics.lowest
    factor = np.float32(weight)
    for start, stop in _chunks(scores.shape[0], total.shape[1]):
        # np.take: [:, cols] of a few rows, several times faster than fancy indexing
        raw = scores[start:stop] if cols is None else np.take(scores[start:stop], cols, axis=1)
        values = raw.astype(np.float64)
        values -= mean[start:stop, None]
        with np.errstate(invalid="ignore"):  # non-finite scores: replaced by the lowest z
            values /= scale[start:stop, None]
        z = values.astype(np.float32)
        finite = _finite(raw)
        if finite is not None:
            np.copyto(z, lowest[start:stop, None], where=~finite, casting="same_kind")
        z *= factor
        total[start:stop] += z


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
