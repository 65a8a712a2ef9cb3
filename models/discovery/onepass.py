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
``models.discovery.blend``'s scales and blend; ``models.fast.kernels``' top-n), on the same
values in the same order. ``tests/integration/models/test_discovery_fused.py`` compares the ranked
rows with the separate steps' for every kind of champion.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from models.discovery.fused import FusedCF
from models.discovery.members import Members
from models.fast.fused import no_inputs
from models.fast.onepass import followed, ranked_rows


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
        return followed(self.ids, self.evidence, np.ascontiguousarray(ids, dtype=np.int64))


@dataclass(frozen=True)
class BlockInputs:
    """What the one pass reads of the night's ``DiscoveryModel`` (``DiscoveryModel.block_inputs``)."""

    graph: sp.csr_matrix
    """The content neighbour graph (catalogue × catalogue)."""
    n_games: int
    cf_cols: np.ndarray
    """Each catalogue game's champion column (-1: cold)."""
    pop_term: np.ndarray
    content_weight: float
    reference_rank: int
    cf_evidence: bool
    """Whether the champion's part counts as personal evidence (not for a popularity champion)."""
    fused: FusedCF | None
    """The item-to-item champion's part made in the pass (None: ``cf_scores`` makes it)."""
    user_rows: Callable[[list[str]], np.ndarray]
    """Members' rows of the champion's matrix (-1: unknown), or all -1 without a champion."""
    rows_with_shared: Callable[[np.ndarray], np.ndarray]
    """Positions of the user rows the champion can speak for."""
    cf_scores: Callable[[np.ndarray], np.ndarray]
    """The champion's clipped, placed scores of these user rows (the separate way)."""


def ranked_block(state: BlockInputs, members: Members, candidates: np.ndarray, depth: int) -> Ranked | None:
    """``DiscoveryModel.score`` over the whole catalogue and ``top_n`` of its blended rows,
    in one pass per member; None where the pass does not apply (the separate steps then
    rank the block): a content product that is not float32 CSR, an empty catalogue, or a
    member whose blended row holds NaN or ``+inf`` (``top_n`` ranks those rows its own way).
    ``state``: what the pass reads of the night's model."""
    n_users = len(members.user_ids)
    liked, graph = members.liked, state.graph
    n_games = state.n_games
    plain = (sp.issparse(graph) and graph.format == "csr" and graph.dtype == np.float32
             and liked.format == "csr" and liked.dtype == np.float32)
    if not plain or n_games == 0 or n_users == 0 or candidates.shape != (n_users, n_games):
        return None
    cf_rows = state.user_rows(members.user_ids)
    rows = state.rows_with_shared(cf_rows)
    warm = state.cf_cols >= 0
    src, dst = state.cf_cols[warm], np.flatnonzero(warm)
    fused = state.fused if state.fused is not None and state.fused.usable() else None
    where = np.full(n_users, -1, dtype=np.int64)
    if fused is not None and rows.size:
        where[rows] = np.arange(rows.size)
        inputs, given = fused.inputs(cf_rows, rows), np.zeros((0, 0), dtype=np.float32)
    else:  # the champion's placed scores made the separate way
        inputs, given = no_inputs(n_users), np.ascontiguousarray(state.cf_scores(cf_rows), dtype=np.float32)
    statistics = np.zeros((max(inputs[1], 1), 3, rows.size))
    ids = np.full((n_users, depth), -1, dtype=np.int64)
    values = np.full((n_users, depth), -np.inf, dtype=np.float32)
    evidence = np.zeros((n_users, depth), dtype=bool)
    cf_scale = np.zeros(n_users, dtype=np.float32)
    content_scale = np.zeros(n_users, dtype=np.float32)
    flagged = ranked_rows(
        *inputs, where, np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), given,
        liked.indptr, liked.indices, liked.data, graph.indptr, graph.indices, graph.data,
        np.ascontiguousarray(candidates, dtype=bool), warm, state.pop_term, np.float32(state.content_weight),
        int(state.reference_rank), state.cf_evidence,
        ids, values, evidence, cf_scale, content_scale, statistics,
    )
    if fused is not None and rows.size:
        fused.keep(cf_rows, rows, statistics)
    if flagged:
        return None
    return Ranked(ids, values, evidence, cf_rows, cf_scale, content_scale * state.content_weight)
