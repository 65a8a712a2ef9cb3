"""One member's discovery list from the columns that can hold it, with a certificate:
exact, or handed back to the whole-catalogue pass (``pooled_row``).

Why: the one pass (``models.discovery.onepass``) z-scored, placed, blended, scaled and
ranked all 25,000 columns of every member, though a member's list comes from a few
thousand of them. For a champion with a sparse part (cosine, BM25, RP3beta, alone or
in an ensemble with EASE) a column no liked game reaches through that part's weights
nor through the content neighbour graph scores exactly 0 in both; its blended value is
then bounded by what the other parts can give it. So each member is ranked over its
*pool* (the candidates those weights and the graph reach), and the pool's answer is
taken only when it is provably the whole catalogue's:

* the champion's part outside the pool is at most the z of 0 for each sparse part and
  of the largest score outside the pool for each dense one (EASE), added as the
  ensemble adds them; clipped, that bounds the CF score ``b`` of every other column;
* the CF scale's reference (the 100th best) comes from the pool when the pool's 100th
  best is at least ``b``; content outside the pool is exactly 0, so its scale is the
  pool's values and as many zeros as there are other candidates;
* the pool's ``depth``-th best blended value must beat (strictly) the bound of every
  other candidate: ``b`` on the member's scale, content's 0 on its scale, and the best
  popularity term among them.

Otherwise (and for a member whose pool holds no positive CF score) the caller runs the
whole-catalogue pass for that member. The values are the same bit for bit: each is made
by the same float operations as there (the parts' rows and statistics over the whole
row, the z-adds per column in the same order, ``blend.blend_value``, ``kernels``' heaps
and ``reference_of``); the top-n heap orders by (value, column), so the pool's order of
arrival does not matter. On the 100,000-member benchmark ~98.6 % of members are certified.
"""

from __future__ import annotations

import numpy as np

from models.compiled import compiled
from models.discovery.blend import blend_value
from models.discovery.fused import _part_row
from models.kernels import _offer, _sift_down, _sift_up, _worse, reference_of
from models.member_statistics import row_statistics_row


POOL_SHARE = 0.2
"""A member is ranked over their pool only when it holds at most this share of the
catalogue (``widest``, read when a block starts): per column the pool's loops (look-ups,
a division, heaps fed in no order) cost several times the whole row's vectorised passes."""


@compiled
def pool_scratch(n_games):  # type: ignore[no-untyped-def]
    """``pooled_row``'s scratch, made once per block: the touched marks (left zero), the
    touched and pool columns, each pool column's place in the pool, content's sums (left zero) and per pool column the CF
    total, CF score, content, blended value and whether CF counts."""
    return (np.zeros(n_games, dtype=np.uint8), np.empty(n_games, dtype=np.int64), np.empty(n_games, dtype=np.int64),
            np.empty(n_games, dtype=np.int64), np.zeros(n_games, dtype=np.float32), np.empty(n_games, dtype=np.float32),
            np.empty(n_games, dtype=np.float32), np.empty(n_games, dtype=np.float32),
            np.empty(n_games, dtype=np.float32), np.empty(n_games, dtype=np.bool_))


@compiled
def _reach(i, indptr, indices, w_indptr, w_indices, to_catalogue, mapped, mark, touched, size):  # type: ignore[no-untyped-def]
    """Mark the catalogue columns member ``i``'s row reaches through the CSR weights
    (``to_catalogue`` maps their columns where ``mapped``); returns the touched count."""
    for at in range(indptr[i], indptr[i + 1]):
        game = indices[at]
        for nb in range(w_indptr[game], w_indptr[game + 1]):
            col = to_catalogue[w_indices[nb]] if mapped else w_indices[nb]
            if col >= 0:  # no branch on the mark: whether it was set is random, so mispredicted
                touched[size] = col
                size += mark[col] == 0
                mark[col] = 1
    return size


@compiled
def _content_sums(i, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data, sums):  # type: ignore[no-untyped-def]
    """Member ``i``'s content row summed into ``sums`` as ``sparse_product_row`` sums it."""
    for at in range(l_indptr[i], l_indptr[i + 1]):
        game = l_indices[at]
        weight = l_data[at]
        for nb in range(g_indptr[game], g_indptr[game + 1]):
            sums[g_indices[nb]] += weight * g_data[nb]


@compiled
def _z(value, mean, spread, fill):  # type: ignore[no-untyped-def]
    """``_add_z_row``'s z of one score (``fill`` where it is not finite)."""
    scale = spread if spread > 0 else np.inf
    score = np.float64(value)
    z = np.float32((score - mean) / scale)
    return z if score - score == 0.0 else fill


@compiled
def _part_at_pool(p, i, parts, n_parts, dense, weights, zscored, own_indptr, own_indices, cf_cols, cat_of,  # type: ignore[no-untyped-def]
                  candidates, pool, n_pool, mark, cf_scratch, statistics, total):
    """Part ``p`` of member ``i``: its whole row and statistics (kept in ``statistics``),
    its weighted z (or the row itself, one model) added at the pool's columns to
    ``total``; returns the bound of its z (or score) outside the pool."""
    inner, row, sums, _, work, low, keep, _, _ = cf_scratch
    if p == 0:  # a tuple's slots differ in type: each is indexed where it is known
        _part_row(i, parts[0], dense[0], inner, sums, row)
    elif p == 1:
        _part_row(i, parts[1], dense[1], inner, sums, row)
    else:
        _part_row(i, parts[2], dense[2], inner, sums, row)
    mean, spread, fill = 0.0, 0.0, np.float32(0.0)
    if zscored:
        own = own_indices[own_indptr[i]:own_indptr[i + 1]]
        mean, spread, lowest = row_statistics_row(row, own, work, low, keep)
        statistics[p, 0, i], statistics[p, 1, i], statistics[p, 2, i] = mean, spread, lowest
        fill = np.float32(lowest)
        for q in range(n_pool):
            col = cf_cols[pool[q]]
            if col >= 0:
                total[q] += _z(row[col], mean, spread, fill) * weights[p]
    else:
        for q in range(n_pool):
            col = cf_cols[pool[q]]
            if col >= 0:
                total[q] = row[col]
    # Outside the pool: a sparse part scores exactly 0; a dense one at most its largest
    # score at a candidate column the pool does not hold (-inf: none, then its fill).
    if not dense[p]:
        return _z(np.float32(0.0), mean, spread, fill) if zscored else np.float32(0.0)
    if p == 0:
        largest = _largest_outside(parts[0][4], row, cat_of, candidates, mark)
    elif p == 1:
        largest = _largest_outside(parts[1][4], row, cat_of, candidates, mark)
    else:
        largest = _largest_outside(parts[2][4], row, cat_of, candidates, mark)
    if not zscored:
        return largest
    return _z(largest, mean, spread, fill) if largest > -np.inf else fill


@compiled
def _largest_outside(items, row, cat_of, candidates, mark):  # type: ignore[no-untyped-def]
    """A dense part's largest score at a candidate the pool does not hold (-inf: none)."""
    largest = np.float32(-np.inf)
    for t in range(items.size):
        col = items[t]
        game = cat_of[col]
        if game >= 0 and candidates[game] and mark[game] == 0 and row[col] > largest:
            largest = row[col]
    return largest


@compiled
def _scale_of_pool(values, n, k, heap, bound, zeros):  # type: ignore[no-untyped-def]
    """``scale_row``'s ``(offset, slope)`` of a row whose masked values are ``values[:n]``
    and ``zeros`` exact zeros, or (``zeros`` < 0) ``values[:n]`` and others each at most
    ``bound``: ``(ok, offset, slope)``, ok False where the pool cannot tell (the reference
    may lie outside it) or a value is NaN. The same entries as ``scale_row``'s heap (a
    multiset of values: the order they arrive in does not matter)."""
    size = 0
    none = np.float32(-np.inf)
    for q in range(n):
        value = values[q]
        if value != value:
            return False, np.float32(0.0), np.float32(0.0)
        if value > none and (size < k or value > heap[0]):
            size = _offer(heap, size, k, value)
    extra = min(zeros, k) if zeros > 0 else 0
    for _ in range(extra):
        if size < k or np.float32(0.0) > heap[0]:
            size = _offer(heap, size, k, np.float32(0.0))
    best = np.float32(-np.inf)
    for at in range(size):
        if heap[at] > best:
            best = heap[at]
    if zeros < 0:  # others unknown but at most ``bound``
        if size < k or heap[0] < bound:
            return False, np.float32(0.0), np.float32(0.0)
        kth = heap[0]
    elif size >= k:
        kth = heap[0]
    else:  # fewer than k masked values: the lowest of them
        kth = np.float32(np.inf)
        for q in range(n):
            kth = values[q] if values[q] < kth else kth
        if zeros > 0 and np.float32(0.0) < kth:
            kth = np.float32(0.0)
    offset, slope = reference_of(best, kth)
    return True, offset, slope


@compiled
def _reach_part(p, member, parts, cat_of, mark, touched, size):  # type: ignore[no-untyped-def]
    """``_reach`` through sparse part ``p``'s weights from the member's part row."""
    if p == 0:
        return _reach(member, parts[0][0], parts[0][1], parts[0][5], parts[0][6], cat_of, True, mark, touched, size)
    if p == 1:
        return _reach(member, parts[1][0], parts[1][1], parts[1][5], parts[1][6], cat_of, True, mark, touched, size)
    return _reach(member, parts[2][0], parts[2][1], parts[2][5], parts[2][6], cat_of, True, mark, touched, size)


@compiled
def _clipped(value):  # type: ignore[no-untyped-def]
    """``blend._clipped_row`` of one score: below 0, NaN and ``+inf`` are 0."""
    return value if (value >= np.float32(0.0)) & (value != np.float32(np.inf)) else np.float32(0.0)


@compiled
def pooled_row(i, member, parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices,  # type: ignore[no-untyped-def]
               cf_cols, cat_of, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data, candidates, n_candidates,
               pop_term, pop_order, content_weight, k, take, cf_evidence, cf_scratch, scratch, widest, heap,
               heap_values, heap_cols, statistics, ids, values, evidence):
    """Member ``i``'s ranked row over its pool (the module docstring), into ``ids[i]``,
    ``values[i]``, ``evidence[i]`` (and the parts' statistics at part row ``member``, -1:
    no CF row); returns ``(True, cf slope, content slope)`` once certified, or False
    (nothing of ``ids``, ``values``, ``evidence`` written) for the whole pass, as for a pool
    of more than ``widest`` columns."""
    mark, touched, pool, slot_of, sums, total, cf, content, blended, with_cf = scratch
    n_touched = 0
    if member >= 0:
        for p in range(n_parts):
            if not dense[p]:
                n_touched = _reach_part(p, member, parts, cat_of, mark, touched, n_touched)
    n_touched = _reach(i, l_indptr, l_indices, g_indptr, g_indices, cat_of, False, mark, touched, n_touched)
    n_pool = 0
    for t in range(n_touched):
        game = touched[t]
        pool[n_pool] = game
        slot_of[game] = n_pool
        n_pool += candidates[game]
    done, cf_slope, content_slope = False, np.float32(0.0), np.float32(0.0)
    if n_pool <= widest:  # a wider pool costs more than the whole row's passes
        done, cf_slope, content_slope = _ranked_pool(
            i, member, parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices, cf_cols, cat_of,
            l_indptr, l_indices, l_data, g_indptr, g_indices, g_data, candidates, n_candidates, pop_term, pop_order,
            content_weight, k, take, cf_evidence, cf_scratch, scratch, n_pool, heap, heap_values, heap_cols,
            statistics, ids, values, evidence)
    for t in range(n_touched):
        mark[touched[t]] = 0
        sums[touched[t]] = 0.0
    return done, cf_slope, content_slope


@compiled
def _ranked_pool(i, member, parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices, cf_cols,  # type: ignore[no-untyped-def]
                 cat_of, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data, candidates, n_candidates, pop_term,
                 pop_order, content_weight, k, take, cf_evidence, cf_scratch, scratch, n_pool, heap, heap_values,
                 heap_cols, statistics, ids, values, evidence):
    """``pooled_row`` once the pool is known (its marks and ``sums`` are left to it)."""
    mark, _, pool, slot_of, sums, total, cf, content, blended, with_cf = scratch
    zero = np.float32(0.0)
    nothing = (False, zero, zero)
    _content_sums(i, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data, sums)
    for q in range(n_pool):
        content[q] = sums[pool[q]]
        total[q] = 0.0
    bound = zero  # the CF score of any candidate outside the pool is at most this
    positive = False
    if member >= 0:
        other = zero
        for p in range(n_parts):
            part_bound = _part_at_pool(p, member, parts, n_parts, dense, weights, zscored, own_indptr, own_indices,
                                       cf_cols, cat_of, candidates, pool, n_pool, mark, cf_scratch, statistics, total)
            other = other + part_bound * weights[p] if zscored else part_bound
        for q in range(n_pool):
            if cf_cols[pool[q]] >= 0:
                cf[q] = _clipped(total[q] / weight_sum if zscored else total[q])
                positive = positive or cf[q] > zero
            else:
                cf[q] = zero
        bound = _clipped(other / weight_sum if zscored else other)
        if not positive:
            return nothing  # whether any CF score is positive is the whole row's question
    cf_offset, cf_slope = zero, zero
    n_warm = 0
    for q in range(n_pool):
        with_cf[q] = positive and cf_cols[pool[q]] >= 0
        if with_cf[q]:
            blended[n_warm] = cf[q]
            n_warm += 1
    if positive:
        ok, cf_offset, cf_slope = _scale_of_pool(blended, n_warm, k, heap, bound, -1)
        if not ok:
            return nothing
    ok, content_offset, content_slope = _scale_of_pool(content, n_pool, k, heap, zero, n_candidates[i] - n_pool)
    if not ok:
        return nothing
    for q in range(n_pool):
        value = blend_value(cf[q], with_cf[q], content[q], pop_term[pool[q]], cf_offset, cf_slope, content_offset,
                            content_slope, content_weight)
        if value != value or value == np.inf:
            return nothing
        blended[q] = value
    # The best any other candidate can reach: the CF bound (or no CF part), content's 0.
    popular = np.float32(-np.inf)
    for t in range(pop_order.size):
        game = pop_order[t]
        if candidates[game] and mark[game] == 0:
            popular = pop_term[game]
            break
    outside = max(blend_value(bound, positive, zero, popular, cf_offset, cf_slope, content_offset, content_slope,
                              content_weight),
                  blend_value(zero, False, zero, popular, cf_offset, cf_slope, content_offset, content_slope,
                              content_weight))
    size = 0
    for q in range(n_pool):
        value, game = blended[q], pool[q]
        if size < take:
            heap_values[size] = value
            heap_cols[size] = game
            _sift_up(heap_values, heap_cols, size)
            size += 1
        elif _worse(heap_values[0], heap_cols[0], value, game):
            heap_values[0] = value
            heap_cols[0] = game
            _sift_down(heap_values, heap_cols, size, 0)
    if size < take or not heap_values[0] > outside:
        return nothing
    while size > 0:  # worst first into the last free slot, as ``top_n_row``
        size -= 1
        game = heap_cols[0]
        ids[i, size] = game
        values[i, size] = np.float32(heap_values[0])
        q = slot_of[game]
        personal = content[q] > zero
        if cf_evidence:
            personal = personal | (with_cf[q] & (cf[q] > zero))
        evidence[i, size] = personal
        heap_values[0] = heap_values[size]
        heap_cols[0] = heap_cols[size]
        _sift_down(heap_values, heap_cols, size, 0)
    return True, cf_slope, content_slope
