"""Discovery's fast path: each member's list blended over a pool of games, with a
certificate that it is the exhaustive list (or the member is ranked exhaustively).

Why: the exhaustive path (``DiscoveryModel.score``) runs about twenty dense passes over
every (member, game) cell (masks, two reference scalings, the blend, top-n); a list
holds 100 games. Here the dense work is the champion's scores and the content product
(both needed in full) and one threshold pass over each; the blend, top-n, the MMR pool
and the reasons run on a pool per member (``k = reference_rank + POOL_MARGIN``):

    pool = the champion's candidates at or above a threshold near its k-th best
         ∪ content's candidates at or above a threshold near its k-th best (every
           candidate with a positive content score when fewer: the others score 0)
         ∪ the k most collected games ∪ the games without any entry (``COLD_POOL``).

**Exact, not approximate.** The blend's scalings need each part's best and
``reference_rank``-th best over *every* candidate (``blend.reference_scale``): a part's
pool holds at least ``reference_rank`` of its best values, or every positive one, the
other candidates then being exactly 0, added as ``min(reference_rank, others)`` virtual
zero columns: the scale is computed from the same multiset (both parts are never
negative: the champion's scores are clipped at 0; a content graph with a negative
similarity is ranked exhaustively). Every pool cell is computed with the same float32
operations as the exhaustive path, so its value is the same bits. A game outside the
pool is bounded part by part (each step of the blend is monotone, in floating point
too): ``cf'`` ≤ the scaled threshold (0 for a game without entries or a member without
a CF signal), ``content'`` ≤ the scaled threshold (or the scaled 0), popularity ≤ its
largest term outside the head, games with and without entries bounded apart. If the
pool's ``max(depth, MMR_POOL)``-th score is strictly above the bound (ties go to the
lower column, which might be outside; a tie with games without entries beyond
``COLD_POOL`` is resolved by their columns), or every candidate is in the pool, no game
outside can enter the top-n that MMR and the list pick from; the pool is sorted by
column, so top-n breaks ties as the exhaustive path does. The member's rows, scores and
reasons are then the exhaustive ones. Members without the certificate are ranked by
the exhaustive path (``users_pool_fallback`` in the counts; 4 of 2,048 on a generated
site of 10,000 games). Chosen over a compiled kernel (no new dependency) and over an
approximate pool (the lists must not change); ``tests/models/test_discovery_pool.py``
compares every demo member's rows with the exhaustive path's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from models.base import top_n
from models.discovery.blend import reference_scale
from models.discovery.members import Members
from models.discovery.reasons import KIND_NONE, KIND_PERSONAL, KIND_POPULAR
from models.discovery.rerank import MMR_POOL, mmr_order

if TYPE_CHECKING:
    from models.discovery.model import DiscoveryModel


@dataclass(frozen=True)
class Head:
    """The pool's games shared by every member: the ``k`` most collected and the
    ``COLD_POOL`` first (by column) without any entry; the blend's popularity term per
    game (float32, as ``DiscoveryModel.score`` adds it); its largest value outside the
    head among games without and with entries; the first game without entries left out
    (its column; the catalogue's size when none is)."""

    games: np.ndarray
    term: np.ndarray
    cold_pop: np.float32
    warm_pop: np.float32
    cold_next: int


COLD_POOL = 2_000
"""Games without any entry in every pool (the first ones by column, when there are more):
such a game's CF part is 0, "as good as the champion's 100th game", so a little content
similarity lifts it above the champion's games below their 100th. On a generated site
of 10,000 games (383 without entries) they are 10 % of the listed rows; left out of the
pool, the bound for them failed the certificate of 1,316 of 2,048 members (459 with
them in, at the same margin of 100)."""

POOL_MARGIN = 200
"""Games beyond ``reference_rank`` each part aims to bring to the pool: a wider pool makes
the certificate fail less often (a fallback costs an exhaustive member) and costs a few
hundred cells a member. On a generated site of 10,000 games, 20,000 members: margin 100
left 459 of 2,048 members to the fallback, 200 left 4, 400 none."""


def rank_pooled(model: DiscoveryModel, members: Members, take: int) -> tuple[pl.DataFrame, dict[str, int]]:
    """Discovery's rows for a batch (``take`` per member at most), the exhaustive path's
    own rows: from the pool where the certificate holds, exhaustively for the others."""
    from models.discovery.model import Scores, discover_candidates, user_counts

    n_users, n_games = len(members.user_ids), model.n_games
    n_candidates = n_games - np.diff(members.known.indptr)
    take = max(1, min(take, int(n_candidates.max()) if n_users else 0))
    need = max(take, MMR_POOL) if model.blend.diversity > 0 else take
    reference = model.blend.reference_rank
    k = min(reference + POOL_MARGIN, n_games)
    if n_users == 0 or need > k or not model.graph_nonnegative:
        frame, counts = model._rank_batch(members, discover_candidates(members), take)
        return frame, {**counts, "users_pool_fallback": n_users}

    # The two dense parts, with the same values as the exhaustive path; known games out.
    cf_rows = model.interactions.user_rows(members.user_ids) if model.model is not None else np.full(n_users, -1)
    cf = model._cf_scores(cf_rows)
    if not cf.flags.writeable:
        cf = cf.copy()
    content = np.asarray((members.liked @ model.graph).toarray(), dtype=np.float32)
    known_rows = np.repeat(np.arange(n_users), np.diff(members.known.indptr))
    cf[known_rows, members.known.indices] = -np.inf
    content[known_rows, members.known.indices] = -np.inf
    cold = model.cf_cols < 0
    if cold.any():
        cf[:, cold] = -np.inf  # the champion's top k: warm candidates only

    warm_known = np.bincount(known_rows, weights=~cold[members.known.indices], minlength=n_users)
    cf_ids, cf_top, cf_outside = _part(cf, k, reference)
    # The exhaustive path's CF signal is a positive score anywhere in the row; where the
    # only positive ones are known games every candidate's CF part is 0 both ways.
    signal = cf_top.max(axis=1, initial=-np.inf) > 0
    cf_offset, cf_slope = _scale(cf_top, (~cold).sum() - warm_known.astype(np.int64), reference, signal)
    content_ids, content_top, content_outside = _part(content, k, reference)
    content_offset, content_slope = _scale(content_top, n_candidates, reference, np.ones(n_users, dtype=bool))

    head = popularity_head(model, k)
    pool = np.concatenate([cf_ids, content_ids, np.broadcast_to(head.games, (n_users, head.games.size))], axis=1)
    pool.sort(axis=1)  # ascending columns: top_n's tie-break (lower position) is the exhaustive one's
    valid = pool >= 0
    valid[:, 1:] &= pool[:, 1:] != pool[:, :-1]  # a game brought by two parts counts once
    safe = np.maximum(pool, 0)
    content_at = np.take_along_axis(content, safe, axis=1)
    candidate = valid & np.isfinite(content_at)  # known games are -inf there
    with_cf = candidate & (model.cf_cols[safe] >= 0) & signal[:, None]
    cf_at = np.where(with_cf, np.take_along_axis(cf, safe, axis=1), np.float32(0))
    content_at = np.where(candidate, content_at, np.float32(0))

    # The exhaustive blend, cell by cell (``blend.scaled`` and ``DiscoveryModel.score``).
    cf_part = cf_at - cf_offset[:, None]
    cf_part *= cf_slope[:, None]
    np.clip(cf_part, -1.0, 1.0, out=cf_part)
    cf_part = np.where(with_cf, cf_part, 0.0)
    content_part = content_at - content_offset[:, None]
    content_part *= content_slope[:, None]
    np.clip(content_part, -1.0, 1.0, out=content_part)
    blended = cf_part + model.blend.content * content_part
    blended += head.term[safe]
    blended = blended.astype(np.float32, copy=False)
    np.copyto(blended, np.float32(-np.inf), where=~candidate)
    positions, values = top_n(blended, need)

    # The certificate: the pool's need-th score above any game outside the pool. Such a
    # game without entries has cf' = 0 (and the popularity of a game without entries);
    # one with entries has cf' at most the scaled k-th champion value (-inf: all of them
    # are in the pool; 0 for a member without CF signal).
    content_bound = model.blend.content * _scaled(content_outside, content_offset, content_slope)
    warm_cf = np.where(signal, _scaled(cf_outside, cf_offset, cf_slope), np.float32(0)).astype(np.float32)
    cold_bound = (np.float32(0) + content_bound) + head.cold_pop
    warm_bound = (warm_cf + content_bound) + head.warm_pop
    cutoff = values[:, need - 1]
    # A tie at the cutoff with a game without entries outside the pool (its content 0,
    # say, as many such games are): that game's column is after every pool game without
    # entries, so it loses the tie when the tied games listed all come before it.
    listed_tied = np.where(values[:, :need] == cutoff[:, None], np.take_along_axis(pool, np.maximum(positions, 0), axis=1), -1)
    tie_ok = (cutoff == cold_bound) & (warm_bound < cutoff) & (listed_tied.max(axis=1) < head.cold_next)
    everything = candidate.sum(axis=1) == n_candidates
    certified = (cutoff > np.maximum(cold_bound, warm_bound)) | tie_ok | everything
    sure = np.flatnonzero(certified)
    ids = np.where(positions >= 0, np.take_along_axis(pool, np.maximum(positions, 0), axis=1), -1)[sure]
    ids, values = mmr_order(ids, values[sure], model.graph, model.blend.diversity)
    ids, values = ids[:, :take], values[:, :take]
    # Evidence at the listed games: their pool positions, found by column (the pool is sorted).
    width = pool.shape[1]
    keys = (np.arange(n_users)[:, None] * (n_games + 1) + pool + 1).ravel()
    listed = np.searchsorted(keys, (sure[:, None] * (n_games + 1) + np.maximum(ids, 0) + 1).ravel())
    at = listed.reshape(ids.shape) - sure[:, None] * width
    pick = lambda values: np.take_along_axis(values[sure], at, axis=1)  # noqa: E731
    evidence = pick(content_at) > 0
    if model.champion != "popularity":
        evidence |= pick(with_cf) & (pick(cf_at) > 0)
    kinds = np.where(evidence, KIND_PERSONAL, KIND_POPULAR)
    kinds[ids < 0] = KIND_NONE
    content_scale = content_slope * model.blend.content
    # ``anchors`` reads only each member's rows and scales; the arrays are the pool's.
    scores = Scores(blended[sure], cf_at[sure], with_cf[sure], cf_slope[sure], content_at[sure],
                    content_scale[sure], cf_rows[sure])
    chosen = members.take(sure)
    frame = model.ranked_frame(chosen, ids, values, kinds, model.anchors(chosen, scores, ids, kinds))
    counts = {**user_counts(cf_slope[sure], content_scale[sure]), "users_pool_fallback": 0}
    if sure.size == n_users:
        return frame, counts

    rest = np.flatnonzero(~certified)
    others = members.take(rest)
    fallback, more = model._rank_batch(others, discover_candidates(others), take)
    for key, value in more.items():
        counts[key] += value
    counts["users_pool_fallback"] = int(rest.size)
    order = pl.DataFrame({"user_id": members.user_ids, "_member": np.arange(n_users)})
    merged = pl.concat([frame, fallback]).join(order, on="user_id", how="left")
    return merged.sort("_member", "rank", maintain_order=True).drop("_member"), counts


def _scaled(values: np.ndarray, offset: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """One value per member on its own scale, by the float32 steps of ``blend.scaled``."""
    out = values.astype(np.float32) - offset
    out *= slope
    return np.clip(out, -1.0, 1.0)


SAMPLE = 1_024
"""Columns sampled per row to guess the threshold that keeps about ``k`` games."""


def _part(values: np.ndarray, k: int, reference: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One part's games for the pool: per row every value at least a threshold (about
    the ``k``-th best, guessed from a sample of columns, as ``models.base.top_n``'s
    prefilter), as ids and values (-1/-inf padded), and the bound on the others.

    Values are never negative (-inf: not a candidate). Where the guess is 0 the pool
    takes every positive value and the others are exactly 0; where it keeps fewer than
    ``reference`` (the scale's reference must be inside) or more than ``8k``, the row's
    exact top ``k`` is taken instead and its ``k``-th value bounds the rest.
    """
    n_rows, n_cols = values.shape
    step = max(1, n_cols // SAMPLE)
    sample = values[:, ::step]
    rank = min(sample.shape[1] - 1, int(np.ceil(k * sample.shape[1] / n_cols)))
    guess = -np.partition(-sample, rank, axis=1)[:, rank]
    threshold = np.where(guess > 0, guess, np.float32(np.finfo(np.float32).smallest_subnormal)).astype(np.float32)
    keep = values >= threshold[:, None]
    counts = keep.sum(axis=1)
    exact = ((guess > 0) & (counts < reference)) | (counts > 8 * k)
    good = np.flatnonzero(~exact)
    width = max(int(counts[good].max(initial=0)), k if exact.any() else 0, 1)
    ids = np.full((n_rows, width), -1, dtype=np.int64)
    kept = np.full((n_rows, width), -np.inf, dtype=np.float32)
    outside = np.where(guess > 0, threshold, np.float32(0)).astype(np.float32)
    if good.size:
        rows, cols = np.nonzero(keep if good.size == n_rows else keep[good])
        sizes = counts[good]
        slot = np.arange(rows.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        ids[good[rows], slot] = cols
        kept[good[rows], slot] = values[good[rows], cols]
    bad = np.flatnonzero(exact)
    if bad.size:
        ids[bad, :k], kept[bad, :k] = top_n(values[bad], k)
        outside[bad] = np.maximum(kept[bad, k - 1], 0)  # -inf: every candidate is in the pool
    return ids, kept, outside


def _scale(kept: np.ndarray, n_candidates: np.ndarray, reference: int, signal: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """``blend.reference_scale`` over every candidate of a part, from the pool's values
    and the others' count: a candidate outside the pool is 0 when the pool holds fewer
    than ``reference``, so ``min(reference, others)`` zeros make the same multiset's top."""
    zeros = np.minimum(reference, n_candidates - np.isfinite(kept).sum(axis=1))
    virtual = np.where(np.arange(reference)[None, :] < zeros[:, None], np.float32(0), np.float32(-np.inf))
    values = np.concatenate([kept, virtual.astype(np.float32)], axis=1)
    return reference_scale(values, np.isfinite(values) & signal[:, None], reference)


def popularity_head(model: DiscoveryModel, k: int) -> Head:
    """The pool's parts shared by every member, computed once per pool size ``k`` and
    popularity weight (a re-ranking setting may change ``blend.tail`` between runs)."""
    key = (k, model.blend.popularity - model.blend.tail)
    if key not in model.heads:
        term = ((model.blend.popularity - model.blend.tail) * model.pop_norm[None, :]).ravel()
        head = np.sort(top_n(model.pop_norm[None, :], k)[0][0])
        head = head[head >= 0]
        outside = np.ones(model.n_games, dtype=bool)
        outside[head] = False
        cold = model.cf_cols < 0
        cold_cols = np.flatnonzero(cold)
        outside[cold_cols[:COLD_POOL]] = False
        model.heads[key] = Head(
            games=np.union1d(head, cold_cols[:COLD_POOL]), term=term,
            cold_pop=np.float32(term[outside & cold].max(initial=-np.inf)),
            warm_pop=np.float32(term[outside & ~cold].max(initial=-np.inf)),
            cold_next=int(cold_cols[COLD_POOL]) if cold_cols.size > COLD_POOL else model.n_games,
        )
    return model.heads[key]
