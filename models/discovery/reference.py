"""What a member's lists are, in plain numpy: the readable specification of discovery.

``DiscoveryModel(engine="reference")`` ranks with these functions in production, and the
tests hold the compiled engine (``models.fast``, ``engine="compiled"``, the default) to
them bit for bit: the same games, scores, evidence and anchors, ties and non-finite
values included. Read this module to know what a list is; read ``models.fast`` to know
how it is made fast.

For a member, over their candidate games (``models.discovery.blend``'s docstring says why):

1. **The champion's part** ``cf``: the champion's own scores (``Recommender.score``),
   clipped at 0, NaN and ``+inf`` as 0, placed at the catalogue's columns
   (``placed_scores``); 0 for a member the champion cannot speak for.
2. **Content** ``content``: the liked games' weights times the neighbour graph
   (``content_scores``).
3. **Both scales** (``reference_scale``): the best candidate maps to 1, the
   ``reference``-th best to 0; the CF part counts only where the member's CF row has a
   positive value and the game is known to the champion (``with_cf``).
4. **The blend** (``blend``): ``(cf' + w · content') + pop`` in float32, each part clipped
   to [-1, 1]; ``-inf`` outside the candidates.
5. **Top-n** (``top_n``): best first, ties to the lower column, ``-inf`` never listed.
6. **MMR** (``mmr_order``) over the first slots.
7. **Evidence** (``evidence``): a listed game is a personal pick where content or the
   champion had something positive to say.
8. **Anchors**: per listed personal game, the liked game with the largest positive
   contribution (``segment_argmax``; ``models.discovery.anchors`` builds the
   contributions from ``gather``).

Both shelves and game night are these steps over other candidates; similar games use
``top_n``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from models.base import top_n_exact
from models.discovery.rerank import MMR_K, MMR_POOL


def top_n(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise best ``n`` (ids, float32 values), best first; ties to the lower column;
    non-finite-scored slots and padding are ``-1`` (a full partition of every row)."""
    return top_n_exact(scores, n)


def reference_scale(values: np.ndarray, mask: np.ndarray, reference: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, ``(offset, slope)`` mapping the best masked value to 1 and the
    ``reference``-th best to 0. Rows with fewer masked values use their lowest one; when
    the best and the reference value are equal the offset is 0 (division by the best);
    a row whose best is not positive (or not finite) gets slope 0 (no signal)."""
    n_rows, n_cols = values.shape
    offset = np.zeros(n_rows, dtype=np.float32)
    slope = np.zeros(n_rows, dtype=np.float32)
    if n_rows == 0 or n_cols == 0:
        return offset, slope
    masked = np.where(mask, values, np.float32(-np.inf)).astype(np.float32, copy=False)
    best = masked.max(axis=1)
    k = min(reference, n_cols)
    kth = top_n_exact(masked, k)[1][:, k - 1]
    short = np.flatnonzero(~np.isfinite(kth))
    if short.size:
        kth[short] = np.where(mask[short], values[short], np.inf).min(axis=1)
    signal = np.isfinite(best) & (best > 0)
    spread = signal & (best > kth)
    offset[spread] = kth[spread]
    slope[spread] = 1.0 / (best[spread] - kth[spread])
    flat = signal & ~spread
    with np.errstate(over="ignore"):  # a tiny best: slope inf
        slope[flat] = 1.0 / best[flat]
    return offset, slope


def blend(cf: np.ndarray, candidates: np.ndarray, warm: np.ndarray, content: np.ndarray, pop_term: np.ndarray,
          weight: float | np.floating, reference: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The blended rows (``-inf`` outside ``candidates``), where the CF part counts
    (``with_cf``), and both parts' slopes: ``(cf' + weight · content') + pop_term`` in
    float32, each part ``(value − offset) · slope`` clipped to [-1, 1], the CF part 0
    outside ``with_cf`` (a member's CF row with a positive value, a game the champion knows)."""
    def scaled(values: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        offset, slope = reference_scale(values, mask, reference)
        out = values - offset[:, None]
        out *= slope[:, None]
        return np.clip(out, -1.0, 1.0, out=out), slope

    with_cf = candidates & warm[None, :] & (cf.max(axis=1, initial=0.0) > 0)[:, None]
    cf_part, cf_scale = scaled(cf, with_cf)
    cf_part = np.where(with_cf, cf_part, 0.0)
    content_part, content_scale = scaled(content, candidates)
    blended = cf_part + np.float32(weight) * content_part
    blended += pop_term[None, :]
    blended = blended.astype(np.float32, copy=False)
    np.copyto(blended, np.float32(-np.inf), where=~candidates)
    return blended, with_cf, cf_scale, content_scale


def placed_scores(raw: np.ndarray, rows: np.ndarray, cols: np.ndarray, n_rows: int, width: int) -> np.ndarray:
    """``out[rows[i], cols[j]] = max(raw[i, j], 0)`` in a zero float32 ``(n_rows, width)``,
    NaN and ``+inf`` as 0: the champion's scores, clipped, on the catalogue's columns."""
    out = np.zeros((n_rows, width), dtype=np.float32)
    clipped = np.maximum(np.asarray(raw, dtype=np.float32), np.float32(0.0))
    clipped[~np.isfinite(clipped)] = 0.0
    out[np.ix_(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))] = clipped
    return out


def content_scores(liked: sp.csr_matrix, graph: sp.csr_matrix) -> np.ndarray:
    """``liked @ graph`` as dense float32: each game's summed similarity to the liked games,
    weighted (scipy's sums, in scipy's order)."""
    result = liked @ graph
    return np.asarray(result.toarray() if sp.issparse(result) else result, dtype=np.float32)


def evidence(content: np.ndarray, cf: np.ndarray, with_cf: np.ndarray, champion_counts: bool) -> np.ndarray:
    """A personal pick: content said something positive, or (``champion_counts``: not a
    popularity champion, whose part is popularity) the champion did where its part counts."""
    personal = content > 0
    if champion_counts:
        personal |= with_cf & (cf > 0)
    return personal


def mmr_order(ids: np.ndarray, values: np.ndarray, graph: sp.csr_matrix, diversity: float, k: int = MMR_K,
              pool: int = MMR_POOL) -> tuple[np.ndarray, np.ndarray]:
    """Re-order each row's first ``k`` of ``ids`` (top-n output, -1 padded) by MMR over its
    first ``pool``: a slot's gain is ``score − diversity · closest`` (float32), the first
    best picked; the rest of the pool keeps its order; below the MMR slots the score is
    capped by the slot above, so a list's scores never rise."""
    if diversity <= 0 or ids.size == 0:
        return ids, values
    if not graph.has_canonical_format:  # one stored value per pair
        graph = graph.copy()
        graph.sum_duplicates()
    n_users = ids.shape[0]
    width = min(pool, ids.shape[1])
    head, head_values = ids[:, :width], values[:, :width]
    valid = head >= 0
    safe = np.maximum(head, 0)
    pairs_a = np.repeat(safe, width, axis=1).ravel()
    pairs_b = np.tile(safe, (1, width)).ravel()
    sims = np.asarray(graph[pairs_a, pairs_b], dtype=np.float32).ravel().reshape(n_users, width, width)
    chosen = np.zeros((n_users, width), dtype=bool)
    closest = np.zeros((n_users, width), dtype=np.float32)
    order = np.full((n_users, min(k, width)), -1, dtype=np.int64)
    gains = np.full(order.shape, -np.inf, dtype=np.float32)
    rows = np.arange(n_users)
    for step in range(order.shape[1]):
        gain = np.where(valid & ~chosen, head_values - diversity * closest, -np.inf)
        pick = gain.argmax(axis=1)
        ok = np.isfinite(gain[rows, pick])
        order[ok, step] = pick[ok]
        gains[ok, step] = gain[rows[ok], pick[ok]]
        chosen[rows[ok], pick[ok]] = True
        closest = np.maximum(closest, sims[rows, pick, :])
    new_ids, new_values = ids.copy(), values.copy()
    for user in range(n_users):
        picked = order[user][order[user] >= 0]
        taken = set(picked.tolist())
        rest = [p for p in range(width) if p not in taken]
        positions = np.concatenate([picked, np.asarray(rest, dtype=np.int64)])
        new_ids[user, :width] = head[user, positions]
        new_values[user, :width] = head_values[user, positions]
        new_values[user, : picked.size] = gains[user, : picked.size]
    return new_ids, np.minimum.accumulate(new_values, axis=1)


def segment_argmax(segment: np.ndarray, values: np.ndarray, label: np.ndarray, n_segments: int) -> np.ndarray:
    """Per segment, the ``label`` of the largest positive value (compared as float64; ties:
    the lowest label), -1 where no value is positive (NaN never wins)."""
    best = np.full(n_segments, -1, dtype=np.int64)
    positive = values > 0
    if not positive.any():
        return best
    segment, values, label = segment[positive], values[positive], label[positive]
    top = np.full(n_segments, -np.inf, dtype=np.float64)
    np.maximum.at(top, segment, values.astype(np.float64))
    winners = values.astype(np.float64) >= top[segment]
    chosen = np.full(n_segments, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(chosen, segment[winners], label[winners])
    found = chosen != np.iinfo(np.int64).max
    best[found] = chosen[found]
    return best


def gather_flat(weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``weights[rows[k], cols[k]]`` (the stored value, 0 where none) as float32."""
    if rows.size == 0:
        return np.zeros(0, dtype=np.float32)
    return np.asarray(weights[rows, cols], dtype=np.float32).ravel()


def gather(weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``weights[rows[p], cols[p, k]]`` as a ``cols``-shaped float32 array (``cols`` >= 0)."""
    flat_rows = np.broadcast_to(rows[:, None], cols.shape).ravel()
    return gather_flat(weights, flat_rows, cols.ravel()).reshape(cols.shape)
