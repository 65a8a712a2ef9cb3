"""How a member's scores are blended, and which collection rows say "I like this game".

Per member, over their candidate games (``Blend``)::

    score = cf' + content_weight · content' + popularity_weight · pop

* ``cf`` is the champion's score, clipped at 0. It only counts for games the champion
  knows (with a collection entry) and for members with at least one game shared with
  another member (otherwise the champion has nothing to go on: the member falls back to
  content and popularity).
* ``content`` is the weighted mean content similarity to the member's *liked* games
  (``liked_weight``: お気に入り and 5★ count 1, 4★ 0.75, 持ってる/経験あり 0.5, ≤2★ 0
  unless a favourite); a member with no liked game falls back to their 興味あり games.
  Each liked game contributes its ``Blend.neighbours`` nearest games
  (``ContentModel.neighbours``).
* ``'`` puts both on the member's own scale (``reference_scale``): the best candidate
  is 1, the member's ``reference_rank``-th best (100th) is 0, lower ones go negative
  (down to -1). Model scores differ in scale *and* spread (EASE's fall steeply, ALS's
  are flat); dividing by the maximum alone let a flat model drown content. A game
  without any collection entry has no CF score: its ``cf'`` is 0, "as good as the
  champion's 100th game", and content decides whether it makes the list. That is what
  makes a brand-new game that closely resembles a member's favourites reachable.
* ``pop`` is ``log(1 + members)`` scaled to [0, 1], with a small weight: a tie-breaker,
  and the whole ranking for a member about whom nothing else is known.

Why ``content_weight = 0.25``: on a holdout of the sample site (2,000 games, 5,000
members, 20 % of each member's rows held out) it keeps NDCG@10 at the champion's own
level for EASE (0.093 vs 0.093) and RP3beta (0.124 vs 0.122) and lifts ALS (0.063 vs
0.054), while games without entries (4 % of that catalogue) get about 7 % of the
list slots; 0.5 costs EASE and RP3beta about 9 % of NDCG. A new game made from a
typical member's favourites (15–60 entries, about 250 candidate games) lands at rank
15–60 of that member's 100, whichever the champion.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.compiled import compiled, new_rows
from models.kernels import reference_scale_rows, scale_row


@dataclass(frozen=True)
class Blend:
    """How the champion, content and popularity are mixed (see the module docstring)."""

    content: float = 0.25
    popularity: float = 0.05
    reference_rank: int = 100
    neighbours: int = 200
    similar_cf_share: float = 0.7
    similar_shrink: float = 5.0
    tail: float = 0.0
    """Long-tail boost: ``− tail · pop`` (``models.discovery.rerank``; off: see the curve in docs/recommenders.md)."""
    diversity: float = 0.4
    """MMR weight on content similarity to games already listed (``models.discovery.rerank``):
    on a time split of the sample site it lifts NDCG@10 by 1.6 % and intra-list diversity
    from 0.79 to 0.83 (docs/recommenders.md, "Diversity and long tail")."""

    def to_dict(self) -> dict[str, float | int]:
        """Plain values, for ``discovery.json``."""
        return asdict(self)


def liked_weight() -> pl.Expr:
    """How much a normalised collection row says "I like this game" (0 = not liked).

    お気に入り or 5★ → 1, 4★ → 0.75, 持ってる/経験あり (or a row without flags) → 0.5;
    a rating of 2★ or less cancels it unless the game is a favourite; 興味あり alone is
    not "liked" (the member has not played it).
    """
    chosen = pl.col("have") | pl.col("played") | ~pl.any_horizontal("have", "played", "favorite", "watching")
    rating = pl.col("rating")
    weight = pl.max_horizontal(
        pl.when(pl.col("favorite")).then(1.0).otherwise(0.0),
        pl.when(rating >= 4.5).then(1.0).when(rating >= 3.5).then(0.75).otherwise(0.0),
        pl.when(chosen).then(0.5).otherwise(0.0),
    )
    disliked = (rating <= 2.0).fill_null(False) & ~pl.col("favorite")
    return pl.when(disliked).then(0.0).otherwise(weight).alias("liked")


def on_watch_list() -> pl.Expr:
    """A game on the member's watch list: 興味あり, neither 持ってる nor 経験あり (docs/interface.md's
    ``--watching``). Discovery never lists it; the watch-list shelf ranks only these."""
    return (pl.col("watching") & ~pl.col("have") & ~pl.col("played")).alias("watch")


def reference_scale(values: np.ndarray, mask: np.ndarray, reference: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, ``(offset, slope)`` mapping the best masked value to 1 and the
    ``reference``-th best to 0 (min–max over the member's own top ``reference``).

    Rows with fewer masked values use their lowest one; when the best and the reference
    value are equal the offset is 0 (plain division by the best); a row whose best is not
    positive gets slope 0 (no signal).
    """
    values = np.ascontiguousarray(values, dtype=np.float32)
    return reference_scale_rows(values, np.ascontiguousarray(mask, dtype=bool), int(reference))


@compiled
def _any_positive(values):  # type: ignore[no-untyped-def]
    """Whether a row holds a positive value (``values.max(initial=0) > 0``): an integer
    count, so the loop is vectorised (a float maximum is not)."""
    count = 0
    for col in range(values.size):
        count += values[col] > 0
    return count > 0


@compiled
def _both(a, b, out):  # type: ignore[no-untyped-def]
    for col in range(out.size):
        out[col] = a[col] & b[col]


@compiled
def _blend_row(cf, with_cf, content, candidates, pop_term, cf_offset, cf_slope, content_offset,
               content_slope, content_weight, out):  # type: ignore[no-untyped-def]
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


def blend_rows(cf: np.ndarray, candidates: np.ndarray, warm: np.ndarray, content: np.ndarray, pop_term: np.ndarray,
               content_weight: np.float32, reference: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The blended score of each member over each column, one row at a time (the module
    docstring; ``DiscoveryModel.score`` says which games are ``candidates``, which
    columns the champion knows, ``warm``, and what ``pop_term`` is).

    Returns ``blended`` (``-inf`` outside the candidates), where the CF part counts
    (``with_cf``) and both parts' slopes. The same float32 operations in the same order
    as the numpy passes they replace: each part ``(value − offset) · slope`` on the
    member's ``reference_scale`` and clipped to [-1, 1], then ``(cf' + w · content') + pop``
    (``tests/models/test_kernels.py`` keeps those passes as the oracle)."""
    blended = new_rows(cf.shape, np.float32)
    with_cf = new_rows(cf.shape, np.bool_, zero=True)
    return _blend_rows(cf, candidates, warm, content, pop_term, content_weight, reference, blended, with_cf)


@compiled
def _blend_rows(cf, candidates, warm, content, pop_term, content_weight, reference, blended, with_cf):  # type: ignore[no-untyped-def]
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
def blend_row(cf, candidates, warm, content, pop_term, content_weight, k, heap, masked, with_cf, out):  # type: ignore[no-untyped-def]
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
def _clipped_row(raw, out):  # type: ignore[no-untyped-def]
    """``out = max(raw, 0)`` with NaN and ``+inf`` as 0, contiguous (selects: vectorised)."""
    zero, inf = np.float32(0.0), np.float32(np.inf)
    for j in range(raw.size):
        value = raw[j]
        out[j] = value if (value >= zero) & (value != inf) else zero


def placed_scores(raw: np.ndarray, rows: np.ndarray, cols: np.ndarray, n_rows: int, width: int) -> np.ndarray:
    """``out[rows[i], cols[j]] = max(raw[i, j], 0)`` in a zero ``(n_rows, width)`` block,
    non-finite scores 0: the champion's scores of the members it can speak for, clipped,
    on the catalogue's columns (numpy's ``maximum``, then NaN and ``+inf`` to 0)."""
    return _placed_rows(raw, rows, cols, new_rows((n_rows, width), np.float32, zero=True))


@compiled
def _placed_rows(raw, rows, cols, out):  # type: ignore[no-untyped-def]
    """``placed_scores``' loop, into the zero ``out``."""
    clipped = np.empty(cols.size, dtype=np.float32)
    for i in range(rows.size):
        placed_row(raw[i], cols, clipped, out[rows[i]])
    return out


@compiled
def placed_row(raw, cols, clipped, target):  # type: ignore[no-untyped-def]
    """One member's ``target[cols[j]] = max(raw[j], 0)`` (non-finite 0; ``clipped``: scratch
    of ``raw``'s length). Clipped in a contiguous pass first, then copied to the
    catalogue's columns: a select inside the scattered copy was compiled into branches
    on the sign bit."""
    _clipped_row(raw, clipped)
    for j in range(cols.size):
        target[cols[j]] = clipped[j]
