"""A member's blended row and the champion's clipped, placed scores, one row at a time.

Contract (``models.discovery.reference`` is the numpy form): each part
``(value − offset) · slope`` on the member's reference scale, clipped to [-1, 1], the CF
part 0 where it does not count; then ``(cf' + w · content') + pop`` in float32, ``-inf``
outside the candidates. ``placed_row``: ``max(raw, 0)`` with NaN and ``+inf`` as 0, put
at the catalogue's columns.
"""

from __future__ import annotations

import numpy as np

from models.fast.compiled import compiled
from models.fast.kernels import scale_row


@compiled
def _any_positive(values):
    """Whether a row holds a positive value (``values.max(initial=0) > 0``): an integer
    count, so the loop is vectorised (a float maximum is not)."""
    count = 0
    for col in range(values.size):
        count += values[col] > 0
    return count > 0


@compiled
def _both(a, b, out):
    for col in range(out.size):
        out[col] = a[col] & b[col]


@compiled
def _blend_row(cf, with_cf, content, candidates, pop_term, cf_offset, cf_slope, content_offset,
               content_slope, content_weight, out):
    """One member's blended row from both parts' scales: selects over contiguous rows (the
    clip as two of them), so the loop is vectorised; branching on each cell, as the parts
    fall either side of the clip at random, was mispredicted often."""
    low, high, zero, none = np.float32(-1.0), np.float32(1.0), np.float32(0.0), np.float32(-np.inf)
    for col in range(out.size):
        cf_part = (cf[col] - cf_offset) * cf_slope
        cf_part = low if cf_part < low else cf_part
        cf_part = high if cf_part > high else cf_part
        cf_part = cf_part if with_cf[col] else zero
        content_part = (content[col] - content_offset) * content_slope
        content_part = low if content_part < low else content_part
        content_part = high if content_part > high else content_part
        value = (cf_part + content_weight * content_part) + pop_term[col]
        out[col] = value if candidates[col] else none


@compiled
def blend_rows_into(cf, candidates, warm, content, pop_term, content_weight, reference, blended, with_cf):
    """``blend_rows``' loop, into ``blended`` and ``with_cf`` (False everywhere on entry)."""
    n_rows, n_cols = cf.shape
    cf_slopes = np.zeros(n_rows, dtype=np.float32)
    content_slopes = np.zeros(n_rows, dtype=np.float32)
    if n_cols == 0:
        return blended, with_cf, cf_slopes, content_slopes
    k = min(reference, n_cols)
    heap = np.empty(k, dtype=np.float32)
    masked = np.empty(n_cols, dtype=np.float32)
    for row in range(n_rows):
        cf_slopes[row], content_slopes[row] = blend_row(cf[row], candidates[row], warm, content[row], pop_term,
                                                        content_weight, k, heap, masked, with_cf[row], blended[row])
    return blended, with_cf, cf_slopes, content_slopes


@compiled
def blend_row(cf, candidates, warm, content, pop_term, content_weight, k, heap, masked, with_cf, out):
    """One member's row of ``blend_rows`` into ``out``, and where its CF part counts into
    ``with_cf``; returns the CF and content slopes (``heap``: scratch of ``k``, the
    reference rank over the row; ``masked``: scratch of the row's length)."""
    if _any_positive(cf):  # the member's CF scores say something
        _both(candidates, warm, with_cf)
    else:
        for col in range(with_cf.size):
            with_cf[col] = False
    cf_offset, cf_slope = scale_row(cf, with_cf, k, heap, masked)
    content_offset, content_slope = scale_row(content, candidates, k, heap, masked)
    _blend_row(cf, with_cf, content, candidates, pop_term, cf_offset, cf_slope, content_offset, content_slope,
               content_weight, out)
    return cf_slope, content_slope


@compiled
def _clipped_row(raw, out):
    """``out = max(raw, 0)`` with NaN and ``+inf`` as 0, contiguous (selects: vectorised)."""
    zero, inf = np.float32(0.0), np.float32(np.inf)
    for j in range(raw.size):
        value = raw[j]
        out[j] = value if (value >= zero) & (value != inf) else zero


@compiled
def placed_rows_into(raw, rows, cols, out):
    """``placed_scores``' loop, into the zero ``out``."""
    clipped = np.empty(cols.size, dtype=np.float32)
    for i in range(rows.size):
        placed_row(raw[i], cols, clipped, out[rows[i]])
    return out


@compiled
def placed_row(raw, cols, clipped, target):
    """One member's ``target[cols[j]] = max(raw[j], 0)`` (non-finite 0; ``clipped``: scratch
    of ``raw``'s length). Clipped in a contiguous pass first, then copied to the
    catalogue's columns: a select inside the scattered copy was compiled into branches
    on the sign bit."""
    _clipped_row(raw, clipped)
    for j in range(cols.size):
        target[cols[j]] = clipped[j]
