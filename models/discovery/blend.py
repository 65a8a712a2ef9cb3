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

from models.fast.blend import blend_rows_into, placed_rows_into
from models.fast.compiled import new_rows
from models.fast.kernels import reference_scale_rows


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


def blend_rows(cf: np.ndarray, candidates: np.ndarray, warm: np.ndarray, content: np.ndarray, pop_term: np.ndarray,
               content_weight: np.float32, reference: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The blended score of each member over each column, one row at a time (the module
    docstring; ``DiscoveryModel.score`` says which games are ``candidates``, which
    columns the champion knows, ``warm``, and what ``pop_term`` is).

    Returns ``blended`` (``-inf`` outside the candidates), where the CF part counts
    (``with_cf``) and both parts' slopes. The same float32 operations in the same order
    as the numpy passes they replace: each part ``(value − offset) · slope`` on the
    member's ``reference_scale`` and clipped to [-1, 1], then ``(cf' + w · content') + pop``
    (``tests/unit/models/test_kernels.py`` keeps those passes as the oracle)."""
    blended = new_rows(cf.shape, np.float32)
    with_cf = new_rows(cf.shape, np.bool_, zero=True)
    return blend_rows_into(cf, candidates, warm, content, pop_term, content_weight, reference, blended, with_cf)


def placed_scores(raw: np.ndarray, rows: np.ndarray, cols: np.ndarray, n_rows: int, width: int) -> np.ndarray:
    """``out[rows[i], cols[j]] = max(raw[i, j], 0)`` in a zero ``(n_rows, width)`` block,
    non-finite scores 0: the champion's scores of the members it can speak for, clipped,
    on the catalogue's columns (numpy's ``maximum``, then NaN and ``+inf`` to 0)."""
    return placed_rows_into(raw, rows, cols, new_rows((n_rows, width), np.float32, zero=True))
