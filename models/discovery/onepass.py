"""A whole-catalogue discovery block in one compiled pass per member: the champion's part,
content, the blend and the top-n (``ranked_block``).

Why: ranking a block of ~335 members × 25,000 games wrote and read again, per block,
the champion's placed scores, the content scores, where the CF part counts, the blended
scores and the candidates' masks: 33 MB arrays, each pass over them a trip through
memory, so most of the ranking's time went to moving rows rather than to arithmetic.
Here each member's rows are made, scaled, blended and ranked while they stay in cache;
only what the rest of the ranking reads is written: the member's best ``depth`` games,
whether each is a personal pick (``DiscoveryModel.evidence``), and the member's two
scales (the reasons and the counts read them).

The same numbers, bit for bit: every step is the row loop the separate path runs
(``models.discovery.fused`` for an item-to-item champion, or the champion's own scores
made the separate way; ``models.column_scores``' content product;
``models.discovery.blend``'s scales and blend; ``models.kernels``' top-n), on the same
values in the same order. ``tests/models/test_discovery_fused.py`` compares the ranked
rows with the separate steps' for every kind of champion.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from models.column_scores import sparse_product_row
from models.compiled import compiled
from models.discovery.blend import blend_row
from models.discovery.fused import cf_scratch, fused_cf_row, no_inputs
from models.discovery.members import Members
from models.kernels import top_n_row


@dataclass
class Ranked:
    """A block's best ``depth`` games per member (``models.base.top_n``'s ids and values)
    and what the reasons read: ``evidence`` (a personal pick, per listed game) and the
    members' scales (as ``Scores`` holds them)."""

    ids: np.ndarray
    values: np.ndarray
    evidence: np.ndarray
    cf_rows: np.ndarray
    cf_scale: np.ndarray
    content_scale: np.ndarray

    def evidence_of(self, ids: np.ndarray) -> np.ndarray:
        """``evidence`` of each game of ``ids``: the same games per row as ``self.ids``
        (or their first columns), in another order (MMR's: a few slots moved)."""
        if ids.size == 0:
            return np.zeros(ids.shape, dtype=bool)
        return _followed(self.ids, self.evidence, np.ascontiguousarray(ids, dtype=np.int64))


@compiled
def _followed(before, values, after):  # type: ignore[no-untyped-def]
    """``values`` (aligned with ``before``) of each id of ``after``, row by row: the same
    slot where the id has not moved, else the first slot of ``before`` holding it."""
    n_rows, width = after.shape
    out = np.zeros(after.shape, dtype=values.dtype)
    for row in range(n_rows):
        for slot in range(width):
            game = after[row, slot]
            if before[row, slot] == game:
                out[row, slot] = values[row, slot]
                continue
            for other in range(before.shape[1]):
                if before[row, other] == game:
                    out[row, slot] = values[row, other]
                    break
    return out


def ranked_block(state: Any, members: Members, candidates: np.ndarray, depth: int) -> Ranked | None:
    """``DiscoveryModel.score`` over the whole catalogue and ``top_n`` of its blended rows,
    in one pass per member; None where the pass does not apply (the separate steps then
    rank the block): a content product that is not float32 CSR, an empty catalogue, or a
    member whose blended row holds NaN or ``+inf`` (``top_n`` ranks those rows its own way).
    ``state`` is the ``DiscoveryModel`` (not imported: it imports this module)."""
    n_users = len(members.user_ids)
    liked, graph = members.liked, state.graph
    n_games = state.n_games
    plain = (sp.issparse(graph) and graph.format == "csr" and graph.dtype == np.float32
             and liked.format == "csr" and liked.dtype == np.float32)
    if not plain or n_games == 0 or n_users == 0 or candidates.shape != (n_users, n_games):
        return None
    cf_rows = state.interactions.user_rows(members.user_ids) if state.model is not None else np.full(n_users, -1)
    rows = state._cf_rows_with_shared(cf_rows)
    warm = state.cf_cols >= 0
    src, dst = state.cf_cols[warm], np.flatnonzero(warm)
    fused = state._fused if state._fused is not None and state._fused.usable() else None
    where = np.full(n_users, -1, dtype=np.int64)
    if fused is not None and rows.size:
        where[rows] = np.arange(rows.size)
        inputs, given = fused.inputs(cf_rows, rows), np.zeros((0, 0), dtype=np.float32)
    else:  # the champion's placed scores made the separate way
        inputs, given = no_inputs(n_users), np.ascontiguousarray(state._cf_scores(cf_rows), dtype=np.float32)
    statistics = np.zeros((max(inputs[1], 1), 3, rows.size))
    ids = np.full((n_users, depth), -1, dtype=np.int64)
    values = np.full((n_users, depth), -np.inf, dtype=np.float32)
    evidence = np.zeros((n_users, depth), dtype=bool)
    cf_scale = np.zeros(n_users, dtype=np.float32)
    content_scale = np.zeros(n_users, dtype=np.float32)
    pop_term = np.ascontiguousarray((state.blend.popularity - state.blend.tail) * state.pop_norm, dtype=np.float32)
    flagged = _ranked_rows(
        *inputs, where, np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), given,
        liked.indptr, liked.indices, liked.data, graph.indptr, graph.indices, graph.data,
        np.ascontiguousarray(candidates, dtype=bool), warm, pop_term, np.float32(state.blend.content),
        int(state.blend.reference_rank), state.champion != "popularity",
        ids, values, evidence, cf_scale, content_scale, statistics,
    )
    if fused is not None and rows.size:
        fused.keep(cf_rows, rows, statistics)
    if flagged:
        return None
    return Ranked(ids, values, evidence, cf_rows, cf_scale, content_scale * state.blend.content)


@compiled
def _ranked_rows(parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices, n_items,  # type: ignore[no-untyped-def]
                 where, src, dst, given, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data,
                 candidates, warm, pop_term, content_weight, reference, cf_evidence,
                 ids, values, evidence, cf_scales, content_scales, statistics):
    """``ranked_block``'s loop; returns whether a member's blended row held NaN or ``+inf``.

    Per member ``i``: the champion's clipped and placed row (``fused_cf_row`` of part row
    ``where[i]``, zeros for -1; or ``given[i]``), the content row (``sparse_product_row``
    of the liked games over the neighbour graph), both scales and the blend
    (``blend_row``), the top-n (``top_n_row``) and the evidence at it."""
    n_rows, n_games = candidates.shape
    depth = ids.shape[1]
    take = min(depth, n_games)
    computing = given.shape[0] == 0
    scratch = cf_scratch(parts, n_items, src.size)
    cf = np.zeros(n_games, dtype=np.float32)
    zeros = np.zeros(n_games, dtype=np.float32)
    content = np.empty(n_games, dtype=np.float32)
    sums = np.zeros(n_games, dtype=np.float32)
    with_cf = np.zeros(n_games, dtype=np.bool_)
    blended = np.empty(n_games, dtype=np.float32)
    k = min(reference, n_games)
    heap = np.empty(k, dtype=np.float32)
    masked = np.empty(n_games, dtype=np.float32)
    heap_values = np.empty(take, dtype=np.float32)
    heap_cols = np.empty(take, dtype=np.int64)
    flagged = False
    for i in range(n_rows):
        if not computing:
            row_cf = given[i]
        elif where[i] >= 0:
            fused_cf_row(where[i], parts, n_parts, dense, weights, weight_sum, zscored, own_indptr, own_indices,
                         src, dst, scratch, statistics, cf)
            row_cf = cf
        else:
            row_cf = zeros
        sparse_product_row(i, l_indptr, l_indices, l_data, g_indptr, g_indices, g_data, sums, content)
        cf_scales[i], content_scales[i] = blend_row(row_cf, candidates[i], warm, content, pop_term, content_weight,
                                                    k, heap, masked, with_cf, blended)
        if top_n_row(blended, take, heap_values, heap_cols, ids[i], values[i]):
            flagged = True
            continue
        for slot in range(take):
            game = ids[i, slot]
            if game >= 0:
                personal = content[game] > 0
                if cf_evidence:
                    personal = personal | (with_cf[game] & (row_cf[game] > 0))
                evidence[i, slot] = personal
    return flagged
