"""The fitted state behind every discovery mode, and the shared scoring over it.

``DiscoveryModel.score`` blends the champion, content and popularity for a batch of
members over the games a mode allows (``models.discovery.blend``); ``rank`` turns the
scores into ranked rows with reasons. Each mode is a choice of candidate games:

* discovery (``discover_candidates``): no entry in the member's collection at all;
* play next (``models.discovery.shelves``): had and not played;
* the watch-list shelf (``models.discovery.shelves``): 興味あり, neither had nor played;
* game night (``models.discovery.group``): nobody in the group played it, playable,
  available; the group's members' scores are then combined.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.base import SCORE_BUDGET, Recommender, sparse_rows_dense
from models.base import top_n as compiled_top_n
from models.content import ContentModel
from models.discovery import reference
from models.discovery.anchors import AnchorInputs, anchors
from models.discovery.attribution import Attribution
from models.discovery.blend import Blend, blend_rows, placed_scores
from models.discovery.fused import FusedCF
from models.discovery.lists import (
    RANKED_SCHEMA,
    Candidates,
    Scores,
    deepest,
    discover_candidates,
)
from models.discovery.members import Members, member_rows
from models.discovery.onepass import BlockInputs, Ranked, ranked_block
from models.discovery.reasons import (
    KIND_NONE,
    KIND_PERSONAL,
    KIND_POPULAR,
    reasoned_rows,
)
from models.discovery.rerank import MMR_POOL, mmr_order
from models.ensemble import Ensemble
from models.ids import IdIndex
from models.interactions import InteractionMatrix
from models.threads import in_turn
from models.weighting import ConfidenceWeights

ENGINES = ("compiled", "reference")
"""How a ``DiscoveryModel`` computes its lists (docs/discovery.md): ``compiled``, the kernel
library's loops (``models.fast``, the default); ``reference``, the readable numpy
specification (``models.discovery.reference``). The same lists, bit for bit."""

USER_BATCH = 512
"""Members ranked at once (fewer for big catalogues: ``SCORE_BUDGET`` cells per block)."""

RANK_THREADS = min(2, os.cpu_count() or 1)
"""Batches ranked at once. Each batch is numpy, scipy and Polars work that releases the
GIL for most of its time (BLAS stays single-threaded per call), so two threads use the
night's two cores; ``pool.map`` keeps the batches' order, so the rows are the same."""


NARROW_SHARE = 0.5
"""A batch whose candidates all lie in fewer than this share of the catalogue's columns
is scored on those columns only (``DiscoveryModel.narrow``): a shelf holds a few games."""


class DiscoveryModel:
    """The champion, content and popularity of one run: scores members, lists similar games.

    ``catalog`` order is the sorted ``game_id`` of the games frame; ``cf_cols`` maps
    each catalogue game to the champion's column (-1: no collection entry, "cold").
    """

    def __init__(
        self,
        *,
        champion: str,
        model: Recommender | None,
        interactions: InteractionMatrix,
        content: ContentModel,
        collections: pl.DataFrame,
        blend: Blend,
        graph: sp.csr_matrix | None = None,
        engine: str = "compiled",
    ) -> None:
        self.champion = champion
        self.model = model
        self.interactions = interactions
        self.content = content
        self.collections = collections
        self.blend = blend
        self.graph = graph if graph is not None else content.neighbours(blend.neighbours)
        self.game_ids = content.game_ids
        self.n_games = content.n_games
        self.cf_cols = interactions.game_cols(self.game_ids) if model is not None else np.full(self.n_games, -1)
        col_members = np.asarray(interactions.matrix.getnnz(axis=0), dtype=np.int64)
        padded = np.append(col_members, 0)  # index -1 (cold) reads the trailing 0
        self.cf_members = padded[self.cf_cols]
        self._cf_identity = bool(
            model is not None and self.cf_cols.size == interactions.shape[1]
            and np.array_equal(self.cf_cols, np.arange(self.cf_cols.size))
        )
        self.shared_cols = col_members >= 2
        members = (
            collections.group_by("game_id").agg(pl.len().alias("n"))
            if collections.height
            else pl.DataFrame(schema={"game_id": pl.String, "n": pl.UInt32})
        )
        counts = self.game_ids.to_frame().join(members, on="game_id", how="left", maintain_order="left")
        self.popularity = counts.get_column("n").fill_null(0).cast(pl.Float64).to_numpy()
        top = np.log1p(self.popularity.max()) if self.popularity.size and self.popularity.max() > 0 else 1.0
        self.pop_norm = (np.log1p(self.popularity) / top).astype(np.float32)
        if isinstance(model, Ensemble):
            model.keep_statistics()  # the ranking keeps them; its reasons and both shelves reuse them
        self._graph_csc: sp.csc_matrix | None = None
        self._use(engine)

    def _use(self, engine: str) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown discovery engine {engine!r} (one of {', '.join(ENGINES)})")
        self.engine = engine
        compiled = engine == "compiled"
        self.attribution = (Attribution.for_model(self.model, self.interactions.matrix, compiled=compiled)
                            if self.model is not None else None)
        """The champion's attribution of a score to the member's games (the reasons' anchors)."""
        self.fused = FusedCF.for_model(self.model) if compiled else None
        """The compiled engine's champion part for item-to-item champions (None: the separate steps)."""

    def with_engine(self, engine: str) -> DiscoveryModel:
        """This fitted model computing its lists by ``engine`` (``ENGINES``): the same
        champion, content and collections, shared, not copied."""
        other = copy.copy(self)
        other._use(engine)
        return other

    def folded(self, rows: pl.DataFrame, weights: ConfidenceWeights) -> DiscoveryModel:
        """This night's model scoring the members of ``rows`` (normalised collections, marked
        as the night's are) from those rows instead of the rows it was fitted on: fold-in.

        Their champion rows are built as the night built its matrix (``weights``, the
        night's weighting, over the champion's games) and the champion scores them through
        ``Recommender.with_rows``; popularity, the content graph and which games the
        champion shares are the night's. Everything else is the same code: ``rank`` of
        the result gives the list the night would have given for these rows."""
        _ = self.game_index  # made once on the night's model, shared by every copy
        other = copy.copy(self)
        other.collections = rows
        if self.model is not None:
            other.interactions = self.interactions.with_members(rows, weights)
            other.model = self.model.with_rows(other.interactions.matrix)
            if isinstance(other.model, Ensemble):
                other.model.keep_statistics()  # as the night's: its reasons reuse the ranking's
        other._use(self.engine)
        return other

    @cached_property
    def game_index(self) -> IdIndex:
        """The catalogue's games by id (``member_rows``)."""
        return IdIndex(self.game_ids)

    def members(self, collections: pl.DataFrame, user_ids: list[str]) -> Members:
        """Sparse rows (catalogue columns) of these members from normalised collections."""
        return member_rows(self.game_ids, collections, user_ids, games=self.game_index)

    # ----------------------------------------------------------------- scoring

    def cf_scores(self, cf_rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """Champion scores on catalogue columns (only ``cols``, if given: see ``Scores``),
        clipped at 0; 0 where it has nothing to say. With ``cols`` the champion is asked
        for those columns only (``Recommender.score_columns``): the item-to-item models
        sum only them (``models.column_scores``), the others score whole rows, and an
        ensemble does either per member once the ranking has kept its members'
        statistics of the rows."""
        width = self.n_games if cols is None else cols.size
        rows = self.cf_rows_with_shared(cf_rows)
        if rows.size == 0:
            return np.zeros((cf_rows.size, width), dtype=np.float32)
        champion_cols = self.cf_cols if cols is None else self.cf_cols[cols]
        warm = champion_cols >= 0
        if cols is None and self.fused is not None and self.fused.usable():
            return self.fused.scores(cf_rows, rows, champion_cols[warm], np.flatnonzero(warm), width)
        identity = cols is None and self._cf_identity
        scored = cf_rows[rows]
        assert self.model is not None  # rows holds members only where there is a champion
        raw = self.model.score(scored) if identity else self.model.score_columns(scored, champion_cols[warm])
        raw = np.ascontiguousarray(raw, dtype=np.float32)
        if self.engine == "reference":
            return reference.placed_scores(raw, rows, np.flatnonzero(warm), cf_rows.size, width)
        if rows.size == cf_rows.size and identity:
            np.maximum(raw, 0.0, out=raw)  # -inf (not modelled) becomes 0 here already
            raw[~np.isfinite(raw)] = 0.0  # NaN, +inf
            return raw  # every member scored, catalogue columns = the champion's: no copies
        return placed_scores(raw, rows, np.flatnonzero(warm), cf_rows.size, width)

    def user_rows(self, user_ids: list[str]) -> np.ndarray:
        """The members' rows of the champion's matrix (-1: unknown; all -1 without a champion)."""
        if self.model is None:
            return np.full(len(user_ids), -1)
        return self.interactions.user_rows(user_ids)

    def block_inputs(self) -> BlockInputs:
        """What the compiled engine's one pass reads of this model (``models.discovery.onepass``)."""
        return BlockInputs(
            graph=self.graph, n_games=self.n_games, cf_cols=self.cf_cols, pop_term=self.pop_term(),
            content_weight=self.blend.content, reference_rank=int(self.blend.reference_rank),
            cf_evidence=self.champion != "popularity", fused=self.fused, user_rows=self.user_rows,
            rows_with_shared=self.cf_rows_with_shared, cf_scores=self.cf_scores,
        )

    def anchor_inputs(self) -> AnchorInputs:
        """What the reasons' anchors read of this model (``models.discovery.anchors``)."""
        return AnchorInputs(
            graph=self.graph, n_games=self.n_games, cf_cols=self.cf_cols, attribution=self.attribution,
            pair_similarity=self.content.pair_similarity, compiled=self.engine == "compiled",
        )

    def cf_rows_with_shared(self, cf_rows: np.ndarray) -> np.ndarray:
        """Positions of the members the champion can speak for: known, with a shared game."""
        known = np.flatnonzero(cf_rows >= 0)
        if known.size == 0 or self.model is None:
            return known[:0]
        # Confidences are positive, so a positive sum means at least one shared game.
        shared = self.interactions.matrix[cf_rows[known]] @ self.shared_cols.astype(np.float32) > 0
        return known[shared]

    def narrow(self, candidates: np.ndarray) -> np.ndarray | None:
        """The catalogue columns holding any of a batch's candidates, when they are few
        enough to score on them alone (``NARROW_SHARE``); None: score the whole catalogue."""
        if self.engine != "compiled" or candidates.shape[1] == 0:
            return None
        cols = np.flatnonzero(candidates.any(axis=0))
        return cols if 0 < cols.size < NARROW_SHARE * candidates.shape[1] else None

    def score(self, members: Members, candidates: np.ndarray, cols: np.ndarray | None = None) -> Scores:
        """Blended scores of these members over ``candidates`` (each part on the member's
        own scale over those candidates; ``-inf`` elsewhere).

        With ``cols`` (ascending catalogue columns holding every candidate, ``narrow``)
        ``candidates`` and the scores cover those columns only, with the same values
        there: each part's scale is taken over the member's candidates, and no column
        outside ``cols`` is one.
        """
        cf_rows = self.user_rows(members.user_ids)
        cf = self.cf_scores(cf_rows, cols)
        cf_cols = self.cf_cols if cols is None else self.cf_cols[cols]
        graph = self.graph if cols is None else self._graph_columns(cols)
        pop_term = self.pop_term() if cols is None else self.pop_term()[cols]
        candidates = np.ascontiguousarray(candidates, dtype=bool)
        # Over fewer columns a member's max may be 0 where it was positive; then none of
        # their candidates has a positive score, and both ways give a CF part of 0. A game
        # without collection entries sits at the reference level (0) of the CF part.
        if self.engine == "reference":
            content = reference.content_scores(members.liked, graph)
            blended, with_cf, cf_scale, content_scale = reference.blend(
                cf, candidates, cf_cols >= 0, content, pop_term, np.float32(self.blend.content),
                int(self.blend.reference_rank))
        else:  # compiled for float32 (scipy's sums); one compiled pass per member (``blend_rows``)
            content = sparse_rows_dense(members.liked, graph)
            blended, with_cf, cf_scale, content_scale = blend_rows(
                cf, candidates, cf_cols >= 0, content, pop_term, np.float32(self.blend.content),
                int(self.blend.reference_rank))
        return Scores(blended, cf, with_cf, cf_scale, content, content_scale * self.blend.content, cf_rows, cols)

    def pop_term(self) -> np.ndarray:
        """The popularity term of the blend per catalogue game (float32): the blend's
        popularity weight, less its long-tail boost, times the scaled popularity."""
        return np.ascontiguousarray((self.blend.popularity - self.blend.tail) * self.pop_norm, dtype=np.float32)

    def top_n(self, scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Row-wise best ``n`` by this model's engine (the same ids and values either way)."""
        return reference.top_n(scores, n) if self.engine == "reference" else compiled_top_n(scores, n)

    def _graph_columns(self, cols: np.ndarray) -> sp.csr_matrix:
        """The neighbour graph's columns ``cols``, as CSR (cut from a CSC copy made once:
        a column cut of CSR reads the whole graph). Each product entry sums the same
        terms in the same order as the whole graph's, so the values are the same."""
        if self._graph_csc is None:
            self._graph_csc = self.graph.tocsc()
        return self._graph_csc[:, cols].tocsr()

    def evidence_at(self, scores: Scores, ids: np.ndarray) -> np.ndarray:
        """``evidence`` at the listed ``ids`` only (``(members, take)``, catalogue ids >= 0),
        without the dense ``(members, games)`` masks."""
        if scores.cols is not None:
            ids = np.searchsorted(scores.cols, ids)  # a listed game is one of the columns
            ids = np.minimum(ids, scores.cols.size - 1)  # padding (-1 made 0) may fall past them
        pick = lambda values: np.take_along_axis(values, ids, axis=1)  # noqa: E731
        return reference.evidence(pick(scores.content), pick(scores.cf), pick(scores.with_cf),
                                  self.champion != "popularity")

    def evidence(self, scores: Scores) -> np.ndarray:
        """Where the champion or content had something to say (a popularity champion's
        part is popularity, so there only content counts): a *personal* score."""
        return reference.evidence(scores.content, scores.cf, scores.with_cf, self.champion != "popularity")

    # ----------------------------------------------------------------- ranking

    def rank(
        self,
        collections: pl.DataFrame,
        user_ids: list[str],
        depth: int | None,
        *,
        candidates: Candidates = discover_candidates,
        members_of: Callable[[Members, np.ndarray], Members] | None = None,
    ) -> tuple[pl.DataFrame, dict[str, int]]:
        """Rank the ``candidates`` for these members (``depth=None``: every candidate game).

        ``members_of`` may adjust a batch once its candidates are known (play next drops
        the candidates from the liked games). Returns long rows (``user_id``, ``rank``,
        ``game_id``, ``score``, ``reason``) and counts.
        """
        counts = {"users_cf": 0, "users_content_fallback": 0, "users_popularity_only": 0}
        take = self.n_games if depth is None else min(depth, self.n_games)
        batch = max(1, min(USER_BATCH, SCORE_BUDGET // max(self.n_games, 1)))
        # Sorted ids (as `discover` passes them): each batch reads only its slice of the
        # collections sorted by member, instead of joining all of them per batch.
        ordered = collections.sort("user_id") if user_ids == sorted(user_ids) else None
        keys = ordered.get_column("user_id") if ordered is not None else None

        def ranked(start: int) -> tuple[pl.DataFrame, dict[str, int]]:
            chunk = user_ids[start : start + batch]
            rows = collections
            if ordered is not None and keys is not None:
                lo = int(keys.search_sorted(chunk[0], side="left"))
                hi = int(keys.search_sorted(chunk[-1], side="right"))
                rows = ordered.slice(lo, hi - lo)
            members = self.members(rows, chunk)
            allowed = candidates(members)
            if members_of is not None:
                members = members_of(members, allowed)
            # A mode with few candidates (a member's shelf) needs no deeper lists than that.
            return self._rank_batch(members, allowed, max(1, deepest(allowed, take)))

        starts = range(0, len(user_ids), batch)
        frames: list[pl.DataFrame] = []
        workers = 1 if in_turn() else min(RANK_THREADS, len(starts))  # in turn: other processes hold the cores
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            # In order either way: the same rows as one thread.
            for frame, batch_counts in pool.map(ranked, starts) if workers > 1 else map(ranked, starts):
                frames.append(frame)
                for key, value in batch_counts.items():
                    counts[key] += value
        result = pl.concat(frames) if frames else pl.DataFrame(schema=RANKED_SCHEMA)
        return result, counts

    def _rank_batch(self, members: Members, candidates: np.ndarray, take: int) -> tuple[pl.DataFrame, dict[str, int]]:
        cols = self.narrow(candidates)
        depth = max(take, MMR_POOL) if self.blend.diversity > 0 else take
        # The whole catalogue in one pass per member (``models.discovery.onepass``), or the
        # separate steps: a narrow batch, or what that pass leaves to them.
        compiled = self.engine == "compiled"
        block = ranked_block(self.block_inputs(), members, candidates, depth) if cols is None and compiled else None
        if block is not None:
            scores: Scores | Ranked = block
            ids, values = block.ids, block.values
        else:
            scores = self.score(members, candidates if cols is None else candidates[:, cols], cols)
            ids, values = self.top_n(scores.blended, depth)
            if cols is not None:  # back to catalogue ids; ascending columns keep top_n's tie-break
                ids = np.where(ids >= 0, cols[np.maximum(ids, 0)], -1)
        rerank = mmr_order if compiled else reference.mmr_order
        ids, values = rerank(ids, values, self.graph, self.blend.diversity)
        ids, values = ids[:, :take], values[:, :take]
        safe = np.maximum(ids, 0)
        evidence = scores.evidence_of(ids) if isinstance(scores, Ranked) else self.evidence_at(scores, safe)
        kinds = np.where(evidence, KIND_PERSONAL, KIND_POPULAR)
        kinds[ids < 0] = KIND_NONE
        anchors = self.anchors(members, scores, ids, kinds)

        cf_scale, content_scale = scores.cf_scale, scores.content_scale
        counts = {
            "users_cf": int((cf_scale > 0).sum()),
            "users_content_fallback": int(((cf_scale == 0) & (content_scale > 0)).sum()),
            "users_popularity_only": int(((cf_scale == 0) & (content_scale == 0)).sum()),
        }
        return reasoned_rows(members.user_ids, ids, values, kinds, anchors, fallback=members.watch_fallback,
                             game_ids=self.game_ids, names=self.content.names), counts

    def anchors(self, members: Members, scores: Scores | Ranked, ids: np.ndarray, kinds: np.ndarray) -> np.ndarray:
        """The liked game (catalogue index) contributing most to each listed game, -1 for none
        (``models.discovery.anchors``)."""
        return anchors(self.anchor_inputs(), members, scores, ids, kinds)
