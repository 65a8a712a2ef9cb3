"""Compiled loops (numba) for the per-member work that numpy does in many passes.

Why: discovery ranks 25,000 games for 100,000 members. Done in numpy, each step of a
member's list (top-n, the reference scaling, an ensemble member's z-score statistics,
a look-up in a sparse graph) is one or more passes over a whole batch, and scipy's
sparse look-ups (``csr_sample_values``) cost more than the scoring around them. Here
each is one loop over a member's row, with the GIL released so the ranking's two
threads run them side by side.

Same numbers as the numpy code they replace, bit for bit: every value goes through the
same IEEE operations in the same order (float32 stays float32; numba does not reorder
or fuse floating-point operations without ``fastmath``, which is never used here). An
ensemble member's statistics, whose float64 row sums replay numpy's own pairwise
summation (``models.fast.pairwise``), are compiled in ``models.fast.statistics``. The tests
(``tests/unit/models/test_kernels.py``) compare each kernel with its numpy reference on
random and adversarial input (ties, infinities, NaN, empty rows).

Compiled by ``models.fast.compiled.compiled`` (the GIL released, the machine code cached on
disk where it can be).
"""

from __future__ import annotations

import numpy as np

from models.fast.compiled import compiled

# ----------------------------------------------------------------- top n


@compiled
def _worse(value_a, col_a, value_b, col_b) -> bool:
    """``a`` ranks below ``b``: a lower value, or the same value and a higher column."""
    return value_a < value_b or (value_a == value_b and col_a > col_b)


@compiled
def _swap(heap_values, heap_cols, a, b) -> None:
    heap_values[a], heap_values[b] = heap_values[b], heap_values[a]
    heap_cols[a], heap_cols[b] = heap_cols[b], heap_cols[a]


@compiled
def _sift_down(heap_values, heap_cols, size, at) -> None:
    """Restore the min-heap (the worst entry at the root) below ``at``."""
    while True:
        left = 2 * at + 1
        if left >= size:
            return
        child = left
        right = left + 1
        if right < size and _worse(heap_values[right], heap_cols[right], heap_values[left], heap_cols[left]):
            child = right
        if _worse(heap_values[child], heap_cols[child], heap_values[at], heap_cols[at]):
            _swap(heap_values, heap_cols, at, child)
            at = child
        else:
            return


@compiled
def _sift_up(heap_values, heap_cols, at) -> None:
    while at > 0:
        parent = (at - 1) // 2
        if _worse(heap_values[at], heap_cols[at], heap_values[parent], heap_cols[parent]):
            _swap(heap_values, heap_cols, at, parent)
            at = parent
        else:
            return


@compiled
def _unrankable(values):
    """How many of a row's values are NaN or ``+inf`` (an integer count: vectorised)."""
    count = 0
    for col in range(values.size):
        value = values[col]
        count += (value != value) | (value == np.inf)
    return count


SAMPLE_STRIDE = 16
"""Every how many cells ``entry_floor`` samples a row."""


@compiled
def _count_above(values, floor):
    """How many of ``values`` are above ``floor`` (an integer count: vectorised)."""
    count = 0
    for col in range(values.size):
        count += values[col] > floor
    return count


@compiled
def entry_floor(values, k, scratch):
    """``(True, g)`` with at least ``k`` of ``values`` above ``g`` (of the values' type), or
    ``(False, ·)``: where a bounded heap of the ``k`` best may start its floor instead of
    at ``-inf``.

    Why: a heap over a 25,000-game row that starts empty takes ~500 entries (each a
    sift through its levels, ~50 ns) before its floor is high; most of them are pushed
    out again. ``g`` is the ``2k / SAMPLE_STRIDE``-th best of every ``SAMPLE_STRIDE``-th
    cell (a heap of a few over 1,500 cells), about the ``2k``-th best of the row, checked
    by counting: with ``k`` cells above ``g``, no cell at or below it can be among the
    ``k`` best (by value, nor by a tie broken on the column), so a heap that skips them
    ends with the same entries; ~200 enter. Where the check fails, or the sample is too
    small or not finite, False: the whole row, as before. ``scratch``: at least ``k``
    of the values' type (the heap's own, before it fills)."""
    n = values.size
    m = n // SAMPLE_STRIDE
    j = max(1, (2 * k) // SAMPLE_STRIDE)
    low = scratch[0]
    if m < 8 * j:
        return False, low
    size = 0
    for i in range(m):
        value = values[i * SAMPLE_STRIDE]
        if size < j or value > low:
            size = _offer(scratch, size, j, value)
            if size == j:
                low = scratch[0]
    if size < j or not np.isfinite(low):
        return False, low
    return _count_above(values, low) >= k, low


@compiled
def top_n_rows(scores, n):
    """``models.base.top_n`` of each row (best first, ties to the lower column; ``-inf``
    entries are never listed: id -1, value ``-inf``), and which rows it left to numpy
    (``top_n_row``)."""
    n_rows, n_cols = scores.shape
    take = min(n, n_cols)
    ids = np.full((n_rows, n), -1, dtype=np.int64)
    values = np.full((n_rows, n), -np.inf, dtype=np.float32)
    flagged = np.zeros(n_rows, dtype=np.bool_)
    heap_values = np.empty(max(take, 1), dtype=scores.dtype)
    heap_cols = np.empty(max(take, 1), dtype=np.int64)
    if take == 0:
        return ids, values, flagged
    for row in range(n_rows):
        flagged[row] = top_n_row(scores[row], take, heap_values, heap_cols, ids[row], values[row])
    return ids, values, flagged


@compiled
def top_n_row(row_scores, take, heap_values, heap_cols, ids, values):
    """One row of ``top_n_rows`` into ``ids`` and ``values`` (-1 and ``-inf`` on entry;
    ``heap_*``: scratch of ``take`` ≥ 1); returns True, leaving them as they were, for a
    row holding NaN or ``+inf`` (``models.base.top_n`` ranks those rows the numpy way,
    whose handling of them is its own).

    One bounded heap of the ``take`` best so far, so a row costs one comparison per cell
    once the heap is full (a cell no better than the heap's worst is skipped: columns
    arrive in ascending order, so an equal value loses its tie), from a floor below
    which no cell can be among the best (``entry_floor``). The flag is counted first in
    its own vectorised pass (``_unrankable``), so the heap's loop tests one thing a cell."""
    if _unrankable(row_scores) > 0:
        return True
    size = 0
    found, guess = entry_floor(row_scores, take, heap_values)
    floor = guess if found else np.float32(-np.inf)  # what a value must beat: -inf never enters
    for col in range(row_scores.size):
        value = row_scores[col]
        if value > floor:
            if size < take:
                heap_values[size] = value
                heap_cols[size] = col
                _sift_up(heap_values, heap_cols, size)
                size += 1
            else:
                heap_values[0] = value
                heap_cols[0] = col
                _sift_down(heap_values, heap_cols, size, 0)
            if size == take:
                floor = heap_values[0]
    # Pop the worst first into the last free slot: best first in the end.
    while size > 0:
        size -= 1
        ids[size] = heap_cols[0]
        values[size] = np.float32(heap_values[0])
        heap_values[0] = heap_values[size]
        heap_cols[0] = heap_cols[size]
        _sift_down(heap_values, heap_cols, size, 0)
    return False


# ----------------------------------------------------------------- reference scaling


@compiled
def _heap_replace_root(heap, size, value):
    """Put ``value`` at the root of the min-heap ``heap[:size]`` and sift it down."""
    heap[0] = value
    at = 0
    while True:
        left = 2 * at + 1
        if left >= size:
            return
        child = left
        if left + 1 < size and heap[left + 1] < heap[left]:
            child = left + 1
        if heap[child] < heap[at]:
            heap[at], heap[child] = heap[child], heap[at]
            at = child
        else:
            return


@compiled
def _offer(heap, size, k, value):
    """Offer ``value`` to the min-heap ``heap[:size]`` of at most ``k`` entries (the worst
    at the root): pushed while it has room, else put in the root's place (the caller
    offers only a value above the root). Returns the heap's new size."""
    if size < k:
        heap[size] = value
        at = size
        while at > 0:  # sift up
            parent = (at - 1) // 2
            if heap[at] < heap[parent]:
                heap[at], heap[parent] = heap[parent], heap[at]
                at = parent
            else:
                break
        return size + 1
    _heap_replace_root(heap, size, value)
    return size


@compiled
def _masked_row(values, mask, masked):
    """``masked = values`` where ``mask``, ``-inf`` elsewhere; returns how many masked values
    are NaN. Selects and an integer count over contiguous rows: vectorised."""
    none = np.float32(-np.inf)
    nans = 0
    for col in range(values.size):
        value = values[col]
        masked[col] = value if mask[col] else none
        nans += (value != value) & mask[col]
    return nans


@compiled
def scale_row(values, mask, k, heap, masked):
    """One row's ``(offset, slope)`` of ``reference_scale_rows`` (``heap``: scratch of ``k``,
    ``masked``: scratch of the row's length).

    The row is first masked in a vectorised pass (``_masked_row``: outside the mask
    ``-inf``, which never enters); then a cell enters the heap of the ``k`` best only when
    it beats the heap's worst (kept in a register): one comparison a cell for most of them
    (testing the mask, the lowest value and NaN in the same loop made it ~1.4× slower),
    from a floor below which no cell can be among the ``k`` best (``entry_floor``).
    With fewer than ``k`` finite masked values the ``k``-th best is ``-inf`` either way,
    and then the lowest masked value is used (looked for only then). The best is the
    heap's largest entry (NaN when the row holds one, as numpy's max)."""
    nans = _masked_row(values, mask, masked)
    size = 0
    found, guess = entry_floor(masked, k, heap)
    floor = guess if found else np.float32(-np.inf)  # what a value must beat to enter the heap
    for col in range(masked.size):
        value = masked[col]
        if value > floor:
            if size < k:
                size = _offer(heap, size, k, value)
                if size == k:
                    floor = heap[0]
            else:
                _heap_replace_root(heap, size, value)
                floor = heap[0]
    best = np.float32(-np.inf)
    for at in range(size):
        if heap[at] > best:
            best = heap[at]
    if nans > 0:
        best = np.float32(np.nan)
    kth = heap[0] if size >= k else np.float32(-np.inf)
    if not np.isfinite(kth):
        lowest = np.float32(np.inf)
        for col in range(values.size):
            if mask[col] and values[col] < lowest:
                lowest = values[col]
        kth = lowest
    offset = np.float32(0.0)
    slope = np.float32(0.0)
    if np.isfinite(best) and best > 0:
        if best > kth:
            offset = kth
            slope = np.float32(1.0) / (best - kth)
        else:
            slope = np.float32(1.0) / best
    return offset, slope


@compiled
def reference_scale_rows(values, mask, reference):
    """``models.discovery.blend.reference_scale`` (float32 ``values``): per row the best
    masked value and the ``reference``-th best (a bounded heap of the best masked values),
    or the lowest masked value when the row has fewer."""
    n_rows, n_cols = values.shape
    offset = np.zeros(n_rows, dtype=np.float32)
    slope = np.zeros(n_rows, dtype=np.float32)
    if n_rows == 0 or n_cols == 0:
        return offset, slope
    heap = np.empty(min(reference, n_cols), dtype=np.float32)
    masked = np.empty(n_cols, dtype=np.float32)
    for row in range(n_rows):
        offset[row], slope[row] = scale_row(values[row], mask[row], min(reference, n_cols), heap, masked)
    return offset, slope


# ----------------------------------------------------------------- sparse look-ups


@compiled
def csr_value(indptr, indices, data, row, col):
    """``matrix[row, col]`` as float32 from a canonical CSR matrix (sorted indices, no
    duplicates): a binary search in the row; 0 where nothing is stored."""
    lo = indptr[row]
    stop = indptr[row + 1]
    hi = stop
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < col:
            lo = mid + 1
        else:
            hi = mid
    if lo < stop and indices[lo] == col:
        return np.float32(data[lo])
    return np.float32(0.0)


@compiled
def csr_lookup(indptr, indices, data, rows, cols):
    """``matrix[rows[k], cols[k]]`` as float32 (``csr_value`` for each pair)."""
    out = np.empty(rows.size, dtype=np.float32)
    for k in range(rows.size):
        out[k] = csr_value(indptr, indices, data, rows[k], cols[k])
    return out


@compiled
def csr_gather_rows(indptr, indices, data, n_cols, rows, cols):
    """``matrix[rows[p], cols[p, t]]`` as a ``cols``-shaped float32 array, from a canonical
    CSR matrix: each pair's row is spread once into a dense scratch row and read at its
    columns (many look-ups in one short row: no search at all)."""
    n_pairs, width = cols.shape
    out = np.empty((n_pairs, width), dtype=np.float32)
    dense = np.zeros(n_cols, dtype=np.float32)
    for p in range(n_pairs):
        start, stop = indptr[rows[p]], indptr[rows[p] + 1]
        for at in range(start, stop):
            dense[indices[at]] = np.float32(data[at])
        for t in range(width):
            out[p, t] = dense[cols[p, t]]
        for at in range(start, stop):
            dense[indices[at]] = 0.0
    return out


# ----------------------------------------------------------------- reasons


@compiled
def segment_argmax_loop(segment, values, label, n_segments):
    """``models.discovery.attribution.segment_argmax``: per segment the ``label`` of the
    largest positive value (ties: the lowest label), -1 if none; one pass, where numpy's
    ``maximum.at``/``minimum.at`` took two unbuffered passes and a mask of every pair."""
    best = np.full(n_segments, -1, dtype=np.int64)
    top = np.full(n_segments, -np.inf)
    for i in range(values.size):
        value = np.float64(values[i])
        if value > 0:
            at = segment[i]
            if value > top[at] or (value == top[at] and label[i] < best[at]):
                top[at] = value
                best[at] = label[i]
    return best
