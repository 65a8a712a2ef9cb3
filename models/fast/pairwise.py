"""numpy's own float summation, replayed in compiled loops: the same sums, bit for bit.

Why: a float sum depends on its order, and numpy's is pairwise (blocks of 128 summed in
eight lanes, halved above that). A compiled loop that replaced a numpy or scipy sum with
a plain running total would give other last bits, and ties between games would then
break another way. ``pairwise_sum`` is that order; ``csr_row_dots`` is scipy's sparse
row products summed the way scipy sums them. Compiled by ``models.fast.compiled.compiled``;
``tests/unit/models/test_kernels.py`` compares each with numpy and scipy.
"""

from __future__ import annotations

import numpy as np
from numba import uint64

from models.fast.compiled import compiled

@compiled
def _block_sum(values, start, n, zero):
    """numpy's pairwise sum of at most 128 values: eight running sums, then the rest
    (``zero``: 0 of the values' type, where numpy's sum of fewer than 8 starts).

    Indexed with unsigned integers: a signed index makes numba check each access for a
    negative (wrap-around) index, which cost more than the additions (13.6 → 5.7 µs
    for a 24,192-wide row)."""
    at = uint64(start)
    if n < 8:
        total = zero
        for i in range(n):
            total += values[at + uint64(i)]
        return total
    r0, r1, r2, r3 = values[at], values[at + uint64(1)], values[at + uint64(2)], values[at + uint64(3)]
    r4, r5, r6, r7 = values[at + uint64(4)], values[at + uint64(5)], values[at + uint64(6)], values[at + uint64(7)]
    i = uint64(8)
    end = uint64(n - (n % 8))
    while i < end:
        here = at + i
        r0 += values[here]
        r1 += values[here + uint64(1)]
        r2 += values[here + uint64(2)]
        r3 += values[here + uint64(3)]
        r4 += values[here + uint64(4)]
        r5 += values[here + uint64(5)]
        r6 += values[here + uint64(6)]
        r7 += values[here + uint64(7)]
        i += uint64(8)
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < uint64(n):
        total += values[at + i]
        i += uint64(1)
    return total


@compiled
def pairwise_sum(values, start, n, zero):
    """numpy's pairwise sum of ``values[start:start + n]`` (float64 or float32, with
    ``zero`` of that type: numpy sums float32 in float32), in its order: blocks
    of up to 128 (``_block_sum``), halved (at multiples of 8) above that, each half summed
    first and then the two added. Walked with an explicit stack: numba's cache cannot
    hold a recursive function (a cached one crashed on loading)."""
    if n <= 128:
        return _block_sum(values, start, n, zero)
    depth = 64
    starts = np.empty(depth, dtype=np.int64)
    sizes = np.empty(depth, dtype=np.int64)
    stages = np.empty(depth, dtype=np.int64)
    sums = np.empty(depth, dtype=values.dtype)
    top, n_sums = 0, 0
    starts[0], sizes[0], stages[0] = start, n, 0
    while top >= 0:
        at, size = starts[top], sizes[top]
        half = size // 2
        half -= half % 8
        if size <= 128:
            sums[n_sums] = _block_sum(values, at, size, zero)
            n_sums += 1
            top -= 1
        elif stages[top] == 0:  # the first half
            stages[top] = 1
            top += 1
            starts[top], sizes[top], stages[top] = at, half, 0
        elif stages[top] == 1:  # then the second
            stages[top] = 2
            top += 1
            starts[top], sizes[top], stages[top] = at + half, size - half, 0
        else:  # both summed: first + second
            n_sums -= 1
            sums[n_sums - 1] = sums[n_sums - 1] + sums[n_sums]
            top -= 1
    return sums[0]


@compiled
def csr_row_dots(indptr, indices, data, n_cols, a, b):
    """``(m[a] ∘ m[b]).sum(axis=1)`` for a canonical float32 CSR ``m`` of finite values with
    ``n_cols`` columns (scipy keeps ``inf · 0`` of a column only one row stores: callers
    check; stored zeros are fine), as scipy computes it: the products where both rows store a column, in
    column order, zero products dropped (``csr_binop_csr``), then ``np.add.reduceat``
    over them: the first product plus numpy's pairwise float32 sum of the rest.

    Row ``b[k]`` is spread into a dense scratch row and ``a[k]``'s stored columns read
    from it (in column order: the same products in the same order as a merge of the two
    rows); consecutive pairs with the same ``b`` reuse it, as the reasons' pairs do (one
    listed game against each of a member's liked games)."""
    out = np.zeros(a.size, dtype=np.float32)
    longest = 0
    for row in range(indptr.size - 1):
        longest = max(longest, indptr[row + 1] - indptr[row])
    products = np.empty(longest, dtype=np.float32)
    dense = np.zeros(n_cols, dtype=np.float32)
    zero = np.float32(0.0)
    held = -1
    for k in range(a.size):
        if b[k] != held:
            if held >= 0:
                for at in range(indptr[held], indptr[held + 1]):
                    dense[indices[at]] = 0.0
            held = b[k]
            for at in range(indptr[held], indptr[held + 1]):
                dense[indices[at]] = data[at]
        count = 0
        for at in range(indptr[a[k]], indptr[a[k] + 1]):
            other = dense[indices[at]]
            if other != 0:
                product = data[at] * other
                if product != 0:
                    products[count] = product
                    count += 1
        if count > 0:
            out[k] = products[0] + pairwise_sum(products, 1, count - 1, zero)
    return out
