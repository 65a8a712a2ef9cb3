"""Which of a member's liked games a listed game's reason names (``anchors``).

The liked game contributing most to the listed game's score: its share of the content
score plus its share of the champion's (``models.discovery.attribution``), each on the
member's own scale; a game the champion put there without an attribution is anchored on
the member's nearest liked game by content. Only the member's site games may be named
(``Members.nameable``: a BoardGameGeek row trains and scores, but is never named as theirs).

Two ways to the same anchors:

* for item-to-item champions and ensembles of them (the night's usual champion), one
  compiled pass per member (``anchor_rows``): each liked game's neighbour-graph row and
  weight row are read once for all of the member's listed games, and the best is kept
  as it goes;
* for the others (ALS, whose attribution solves a system per member), the vectorised
  pass over every (liked game, listed game) pair (``_anchors_by_pairs``).

Why: the pairs' pass built and read several ``(pairs × listed games)`` arrays per
block and looked each pair up in the sparse weights with a binary search: a fifth of
the ranking's time. The compiled pass computes the same float32 contributions by the
same operations in the same order, and keeps the first largest positive one with the
lowest game on ties, as ``segment_argmax`` does; ``tests/integration/models/test_discovery_anchors.py``
compares both ways for each kind of champion.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from models.discovery import reference
from models.discovery.attribution import (
    Attribution,
    EnsembleAttribution,
    ItemItemAttribution,
    gather,
    segment_argmax,
)
from models.discovery.members import Members
from models.discovery.reasons import KIND_PERSONAL
from models.fast.anchors import anchor_rows
from models.fast.fused import PARTS


@dataclass(frozen=True)
class AnchorInputs:
    """What the anchors read of the night's ``DiscoveryModel`` (``DiscoveryModel.anchor_inputs``)."""

    graph: sp.csr_matrix
    n_games: int
    cf_cols: np.ndarray
    attribution: Attribution | None
    pair_similarity: Callable[[np.ndarray, np.ndarray], np.ndarray]
    """Content similarity of game pairs (``ContentModel.pair_similarity``)."""
    compiled: bool
    """The compiled engine: one pass per member where the champion allows it; else the pairs' pass."""


class MemberScales(Protocol):
    """What the anchors read of a batch's scores (``Scores`` or ``Ranked``)."""

    cf_rows: np.ndarray
    cf_scale: np.ndarray
    content_scale: np.ndarray


def anchors(state: AnchorInputs, members: Members, scores: MemberScales, ids: np.ndarray,
            kinds: np.ndarray) -> np.ndarray:
    """The liked game (catalogue index) contributing most to each listed game, -1 for none.

    ``ids`` is ``(members, take)`` catalogue indices (-1 padding); only rows whose
    ``kinds`` is personal get an anchor. The reference engine (``state.compiled`` False)
    takes the pairs' pass whatever the champion."""
    found = np.full(ids.shape, -1, dtype=np.int64)
    liked = members.nameable
    assert liked is not None  # Members sets it (``liked`` where no row is marked)
    personal = kinds == KIND_PERSONAL
    if liked.nnz == 0 or not personal.any():
        return found
    parts = _parts(state) if state.compiled else None
    best = (_anchors_compiled(state, liked, scores, ids, parts) if parts is not None
            else _anchors_by_pairs(state, liked, scores, ids))
    found[personal] = best[personal]

    # Rows the champion put there without an attribution: nearest liked game by content.
    missing = personal & (found < 0)
    has_liked = np.diff(liked.indptr) > 0
    missing &= has_liked[:, None]
    if missing.any():
        rows, cols = np.nonzero(missing)
        found[rows, cols] = _nearest_liked(state, liked, ids, rows, cols)
    return _spread(state, liked, ids, found)


def _nearest_liked(state: AnchorInputs, liked: sp.csr_matrix, ids: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                   passed_over: np.ndarray | None = None) -> np.ndarray:
    """For each slot (``rows``, ``cols``): the member's liked game nearest the listed game by
    content, weighted by how much they like it, -1 without a positive one; ``passed_over``
    (``member * n_games + game`` keys) are never chosen."""
    sizes = np.diff(liked.indptr)[rows]
    seg = np.repeat(np.arange(rows.size), sizes)
    at = np.repeat(liked.indptr[rows], sizes) + np.arange(seg.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    games = liked.indices[at].astype(np.int64)
    sims = state.pair_similarity(games, ids[rows[seg], cols[seg]]) * liked.data[at]
    if passed_over is not None:
        sims[np.isin(rows[seg].astype(np.int64) * state.n_games + games, passed_over)] = 0.0
    argmax = segment_argmax if state.compiled else reference.segment_argmax
    return argmax(seg, sims, games, rows.size)


SHOWN = 10
"""The slots a member sees first (the site's list, the export's top): where ``ANCHOR_CAP`` holds."""
ANCHOR_CAP = 3
"""Slots of the first ``SHOWN`` one liked game may be named on before the next slots it anchors
name another (``_spread``)."""


def _spread(state: AnchorInputs, liked: sp.csr_matrix, ids: np.ndarray, found: np.ndarray) -> np.ndarray:
    """``found`` with no liked game named on more than ``ANCHOR_CAP`` of a member's first
    ``SHOWN`` slots where another can be: from its ``ANCHOR_CAP + 1``-th slot on (best rank
    first), a slot names the member's liked game nearest the listed game by content among
    those not over the cap, weighted by how much they like it (as a slot the champion cannot
    attribute is anchored); without one (no such game has a positive similarity) it keeps
    its anchor.

    Why: the anchor is the game contributing most to the score, and one much-loved game
    often contributes most to most of a member's list (37.6 % of the demo's members had one
    game named on 8 or more of their top 10): every line then reads the same and says
    nothing of the rest. The listed game is still close to the game named, and the member
    still likes it: the reason stays true, and says more. Both engines share the steps
    (``pair_similarity``, their own ``segment_argmax``), so their reasons stay equal."""
    head = found[:, : min(SHOWN, found.shape[1])]
    rows, cols = np.nonzero(head >= 0)
    if rows.size == 0:
        return found
    keys = rows.astype(np.int64) * state.n_games + head[rows, cols]
    order = np.lexsort((cols, keys))  # each (member, anchor)'s slots together, best rank first
    ordered = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    counts = np.diff(np.r_[starts, ordered.size])
    occurrence = np.arange(ordered.size) - np.repeat(starts, counts)
    beyond = np.zeros(rows.size, dtype=bool)
    beyond[order] = occurrence >= ANCHOR_CAP
    if not beyond.any():
        return found
    over = ordered[starts][counts > ANCHOR_CAP]  # (member, anchor) keys past the cap
    slot_rows, slot_cols = rows[beyond], cols[beyond]
    other = _nearest_liked(state, liked, ids, slot_rows, slot_cols, passed_over=over)
    spread = found.copy()
    spread[slot_rows, slot_cols] = np.where(other >= 0, other, found[slot_rows, slot_cols])
    return spread


def _pairs(state: AnchorInputs, liked: sp.csr_matrix, scores: MemberScales) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each (member, liked game) pair: the member's position, the game, the game's champion
    column (-1: cold) and whether the champion's part counts for the pair."""
    pair_user = np.repeat(np.arange(liked.shape[0]), np.diff(liked.indptr))
    pair_game = liked.indices.astype(np.int64)
    cf_game = state.cf_cols[pair_game]
    with_cf = (scores.cf_scale[pair_user] > 0) & (cf_game >= 0)
    return pair_user, pair_game, cf_game, with_cf


def _anchors_by_pairs(state: AnchorInputs, liked: sp.csr_matrix, scores: MemberScales, ids: np.ndarray) -> np.ndarray:
    """Every slot's best liked game from the ``(pairs × listed games)`` contributions."""
    n_users, take = ids.shape
    pair_user, pair_game, cf_game, with_cf = _pairs(state, liked, scores)
    cf_rows, cf_scale, content_scale = scores.cf_rows, scores.cf_scale, scores.content_scale
    items = np.maximum(ids[pair_user], 0)  # (pairs, take)
    look_up = gather if state.compiled else reference.gather
    contribution = look_up(state.graph, pair_game, items) * (liked.data * content_scale[pair_user])[:, None]
    attribution = state.attribution
    if attribution is not None:
        if with_cf.any():
            scored = pair_user[with_cf]
            item_cols = state.cf_cols[items[with_cf]]
            part = attribution.contributions(cf_rows[scored], cf_game[with_cf], item_cols)
            part[item_cols < 0] = 0.0
            contribution[with_cf] += part * cf_scale[scored][:, None]
    slot = pair_user[:, None] * take + np.arange(take)[None, :]
    argmax = segment_argmax if state.compiled else reference.segment_argmax
    best = argmax(slot.ravel(), contribution.ravel(), np.repeat(pair_game, take), n_users * take)
    return best.reshape(n_users, take)


def _parts(state: AnchorInputs) -> tuple[list[ItemItemAttribution], bool] | None:
    """The item-to-item attributions the compiled pass reads and whether they are an
    ensemble's (clipped at 0 and scaled per member); None: the pairs' pass."""
    attribution = state.attribution
    graph = state.graph
    if not (sp.issparse(graph) and graph.format == "csr" and graph.has_canonical_format
            and graph.dtype == np.float32 and attribution is not None):
        return None
    parts: list[Any]
    if isinstance(attribution, ItemItemAttribution):
        parts, ensemble = [attribution], False
    elif isinstance(attribution, EnsembleAttribution) and 0 < len(attribution.parts) <= PARTS:
        parts, ensemble = [part for _, _, part in attribution.parts], True
    else:
        return None
    matrix = attribution.matrix
    if not (matrix.format == "csr" and matrix.has_canonical_format and matrix.dtype == np.float32):
        return None
    for part in parts:
        if not isinstance(part, ItemItemAttribution):
            return None
        weights = part.weights
        dense = isinstance(weights, np.ndarray)
        if dense != (part.positions is not None) or weights.dtype != np.float32:
            return None
        if dense and not weights.flags.c_contiguous:
            return None
        if not dense and not (sp.issparse(weights) and weights.format == "csr" and weights.has_canonical_format):
            return None
    return parts, ensemble


def _anchors_compiled(state: AnchorInputs, liked: sp.csr_matrix, scores: MemberScales, ids: np.ndarray,
                      parts: tuple[list[ItemItemAttribution], bool]) -> np.ndarray:
    """``_anchors_by_pairs`` in one compiled pass per member (the module docstring)."""
    items_parts, ensemble = parts
    n_users = ids.shape[0]
    pair_user, pair_game, cf_game, with_cf = _pairs(state, liked, scores)
    cf_rows, cf_scale, content_scale = scores.cf_rows, scores.cf_scale, scores.content_scale
    attribution = state.attribution
    assert isinstance(attribution, (ItemItemAttribution, EnsembleAttribution))  # as _parts found it
    scored = pair_user[with_cf]  # the members of the pairs the champion attributes
    confidence = np.zeros(pair_game.size, dtype=np.float32)
    confidence[with_cf] = attribution.gather_flat(attribution.matrix, cf_rows[scored], cf_game[with_cf])
    part_scales = np.ones((PARTS, n_users), dtype=np.float32)
    if ensemble and scored.size and isinstance(attribution, EnsembleAttribution):
        users, inverse = np.unique(cf_rows[scored], return_inverse=True)
        for at, scale in enumerate(attribution.scales(users)):
            part_scales[at, scored] = scale[inverse].astype(np.float32)
    empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    slots = []
    for part in items_parts:
        if part.positions is not None:
            slots.append((part.weights, np.asarray(part.positions, dtype=np.int64), empty_i, empty_i, empty_f))
        else:  # the matrix's own index arrays (a copy per batch cost ~10 µs a member)
            weights = part.weights
            slots.append((np.zeros((0, 0), dtype=np.float32), empty_i, weights.indptr, weights.indices, weights.data))
    while len(slots) < PARTS:
        slots.append((np.zeros((0, 0), dtype=np.float32), empty_i, empty_i, empty_i, empty_f))
    dense = np.array([part.positions is not None for part in items_parts] + [False] * (PARTS - len(items_parts)))
    graph = state.graph
    n_items = max([part.weights.shape[1] for part in items_parts] + [1])
    return anchor_rows(
        np.ascontiguousarray(ids, dtype=np.int64), liked.indptr.astype(np.int64), pair_game,
        np.ascontiguousarray(liked.data, dtype=np.float32), np.ascontiguousarray(content_scale, dtype=np.float32),
        np.ascontiguousarray(cf_scale, dtype=np.float32), graph.indptr, graph.indices, graph.data, state.n_games,
        np.asarray(state.cf_cols, dtype=np.int64), cf_game, with_cf, confidence, tuple(slots), len(items_parts),
        dense, ensemble, part_scales, n_items, bool(liked.has_sorted_indices),
    )
