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
lowest game on ties, as ``segment_argmax`` does; ``tests/models/test_discovery_anchors.py``
compares both ways for each kind of champion.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from models.fast.anchors import anchor_rows
from models.discovery.attribution import (
    _EnsembleAttribution, _ItemItemAttribution, gather, gather_flat, segment_argmax,
)
from models.discovery.members import Members
from models.discovery.reasons import KIND_PERSONAL

SLOTS = 3
"""Attribution parts the compiled pass takes (an ensemble's item-to-item members)."""


def anchors(state: Any, members: Members, scores: Any, ids: np.ndarray, kinds: np.ndarray,
            *, compiled_pass: bool = True) -> np.ndarray:
    """The liked game (catalogue index) contributing most to each listed game, -1 for none.

    ``state`` is the night's ``DiscoveryModel`` (not imported: it imports this module).
    ``ids`` is ``(members, take)`` catalogue indices (-1 padding); only rows whose
    ``kinds`` is personal get an anchor. ``scores`` holds the members' ``cf_rows``,
    ``cf_scale`` and ``content_scale`` (``Scores`` or ``Ranked``). ``compiled_pass``
    False: the pairs' pass whatever the champion (the tests' reference)."""
    found = np.full(ids.shape, -1, dtype=np.int64)
    liked = members.nameable
    personal = kinds == KIND_PERSONAL
    if liked.nnz == 0 or not personal.any():
        return found
    parts = _parts(state) if compiled_pass else None
    best = (_anchors_compiled(state, liked, scores, ids, parts) if parts is not None
            else _anchors_by_pairs(state, liked, scores, ids))
    found[personal] = best[personal]

    # Rows the champion put there without an attribution: nearest liked game by content.
    missing = personal & (found < 0)
    has_liked = np.diff(liked.indptr) > 0
    missing &= has_liked[:, None]
    if missing.any():
        rows, cols = np.nonzero(missing)
        sizes = np.diff(liked.indptr)[rows]
        seg = np.repeat(np.arange(rows.size), sizes)
        starts = np.repeat(liked.indptr[rows], sizes)
        offsets = np.arange(seg.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        games = liked.indices[starts + offsets].astype(np.int64)
        sims = state.content.pair_similarity(games, ids[rows[seg], cols[seg]]) * liked.data[starts + offsets]
        found[rows, cols] = segment_argmax(seg, sims, games, rows.size)
    return found


def _pairs(state: Any, liked: sp.csr_matrix, scores: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each (member, liked game) pair: the member's position, the game, the game's champion
    column (-1: cold) and whether the champion's part counts for the pair."""
    pair_user = np.repeat(np.arange(liked.shape[0]), np.diff(liked.indptr))
    pair_game = liked.indices.astype(np.int64)
    cf_game = state.cf_cols[pair_game]
    with_cf = (scores.cf_scale[pair_user] > 0) & (cf_game >= 0)
    return pair_user, pair_game, cf_game, with_cf


def _anchors_by_pairs(state: Any, liked: sp.csr_matrix, scores: Any, ids: np.ndarray) -> np.ndarray:
    """Every slot's best liked game from the ``(pairs × listed games)`` contributions."""
    n_users, take = ids.shape
    pair_user, pair_game, cf_game, with_cf = _pairs(state, liked, scores)
    cf_rows, cf_scale, content_scale = scores.cf_rows, scores.cf_scale, scores.content_scale
    items = np.maximum(ids[pair_user], 0)  # (pairs, take)
    contribution = gather(state.graph, pair_game, items) * (liked.data * content_scale[pair_user])[:, None]
    attribution = state._attribution
    if attribution is not None:
        if with_cf.any():
            scored = pair_user[with_cf]
            item_cols = state.cf_cols[items[with_cf]]
            part = attribution.contributions(cf_rows[scored], cf_game[with_cf], item_cols)
            part[item_cols < 0] = 0.0
            contribution[with_cf] += part * cf_scale[scored][:, None]
    slot = pair_user[:, None] * take + np.arange(take)[None, :]
    best = segment_argmax(slot.ravel(), contribution.ravel(), np.repeat(pair_game, take), n_users * take)
    return best.reshape(n_users, take)


def _parts(state: Any) -> tuple[list[_ItemItemAttribution], bool] | None:
    """The item-to-item attributions the compiled pass reads and whether they are an
    ensemble's (clipped at 0 and scaled per member); None: the pairs' pass."""
    attribution = state._attribution
    graph = state.graph
    if not (sp.issparse(graph) and graph.format == "csr" and graph.has_canonical_format
            and graph.dtype == np.float32 and attribution is not None):
        return None
    if isinstance(attribution, _ItemItemAttribution):
        parts, ensemble = [attribution], False
    elif isinstance(attribution, _EnsembleAttribution) and 0 < len(attribution.parts) <= SLOTS:
        parts, ensemble = [part for _, _, part in attribution.parts], True
    else:
        return None
    matrix = attribution.matrix
    if not (matrix.format == "csr" and matrix.has_canonical_format and matrix.dtype == np.float32):
        return None
    for part in parts:
        if not isinstance(part, _ItemItemAttribution):
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


def _anchors_compiled(state: Any, liked: sp.csr_matrix, scores: Any, ids: np.ndarray,
                      parts: tuple[list[_ItemItemAttribution], bool]) -> np.ndarray:
    """``_anchors_by_pairs`` in one compiled pass per member (the module docstring)."""
    items_parts, ensemble = parts
    n_users = ids.shape[0]
    pair_user, pair_game, cf_game, with_cf = _pairs(state, liked, scores)
    cf_rows, cf_scale, content_scale = scores.cf_rows, scores.cf_scale, scores.content_scale
    attribution = state._attribution
    scored = pair_user[with_cf]  # the members of the pairs the champion attributes
    confidence = np.zeros(pair_game.size, dtype=np.float32)
    confidence[with_cf] = gather_flat(attribution.matrix, cf_rows[scored], cf_game[with_cf])
    part_scales = np.ones((SLOTS, n_users), dtype=np.float32)
    if ensemble and scored.size:
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
    while len(slots) < SLOTS:
        slots.append((np.zeros((0, 0), dtype=np.float32), empty_i, empty_i, empty_i, empty_f))
    dense = np.array([part.positions is not None for part in items_parts] + [False] * (SLOTS - len(items_parts)))
    graph = state.graph
    n_items = max([part.weights.shape[1] for part in items_parts] + [1])
    return anchor_rows(
        np.ascontiguousarray(ids, dtype=np.int64), liked.indptr.astype(np.int64), pair_game,
        np.ascontiguousarray(liked.data, dtype=np.float32), np.ascontiguousarray(content_scale, dtype=np.float32),
        np.ascontiguousarray(cf_scale, dtype=np.float32), graph.indptr, graph.indices, graph.data, state.n_games,
        np.asarray(state.cf_cols, dtype=np.int64), cf_game, with_cf, confidence, tuple(slots), len(items_parts),
        dense, ensemble, part_scales, n_items, bool(liked.has_sorted_indices),
    )
