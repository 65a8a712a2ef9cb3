"""Discovery: for every member, games they have neither (持ってる) nor played (経験あり).

``discover`` fits the evaluation's champion on all collections, blends it with content
similarity (``models.content``) so that games nobody has collected yet can be found,
and returns the rows of ``marts.recommendations`` and ``marts.similar_games``.

Which games a member may get
    Every game of the catalogue (``marts.games``, including games without any
    collection entry) except the member's *known* games: a row with 持ってる, 経験あり or
    お気に入り (a favourite-only entry says the member already knows and likes the
    game; recommending it back would waste a slot), or a row with no flag at all (an
    interaction of unknown kind). A game marked only 興味あり (watching) may come back,
    with ``watching=True``: the member asked to be reminded of it.

How a member's scores are blended (``Blend``), per member, over their candidate games::

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

Reasons (``reason``), in Japanese, never about other members: each liked game ``j``
contributes to a row's score its share of the CF score (the champion's attribution,
``x_uj · W_ji`` for item-to-item models and implicit's ALS explanation; the same numbers
as the champion's ``explain``) plus its share of the content score. The liked game that
contributes most is named: 「X」が好きなあなたに. When neither part can be attributed
(BPR), the liked game nearest in content is named. A 興味あり game says
興味ありに登録済み・「X」が好きなあなたに; a member with only 興味あり games reads
「X」に興味があるあなたに; a row that only popularity put there says 人気のゲーム; a
personalised row that cannot be attributed at all says あなたへのおすすめ.

Similar games (``similar_games``) exist for every game of the catalogue: the champion's
item similarity (or, for a champion without one, cosine of the games' member vectors),
normalised per game to [0, 1], blended with content similarity. The CF share grows with
the game's number of members, ``similar_cf_share · n / (n + similar_shrink)``, so a
game with a handful of members leans on content and a game with none is content only.

Saved model directory (``model_dir``), enough to rank one member again later
(``score_user_on_the_fly``):

* ``model.pkl``, ``meta.json``, ``users.parquet``, ``games.parquet``, ``matrix.npz``:
  the champion with its id mappings (``models.persist.save_model``);
* ``content_features.npz``, ``content_games.parquet``, ``content.json``: the content
  features of the catalogue (``ContentModel.save``);
* ``content_neighbours.npz``: the content neighbour graph used for scoring;
* ``discovery_collections.parquet``: the normalised collections the run ranked from
  (known games, liked games, popularity);
* ``discovery.json``: champion, parameters, weighting, run id, time, blend and depth.

Contract with ``bodoge recommend``: ``marts.recommendations`` holds the top ``depth``
(100) rows per member. The command filters them with ``filter_recommendations``; when
fewer than ``n`` rows survive the filters, it ranks the member's whole catalogue again
with ``score_user_on_the_fly`` (same scores, same order, same reasons as the stored
rows, for every game rather than the first ``depth``) and filters that.
``recommend_filtered`` does both steps.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.base import SCORE_BUDGET, Recommender, single_threaded_blas, top_n
from models.candidates import default_candidates
from models.content import ContentModel, clean_specs, topk_frame
from models.ease import EASE
from models.factorization import ALS
from models.interactions import WEIGHTINGS, InteractionMatrix, normalise_interactions
from models.knn import ItemKNNBM25, ItemKNNCosine
from models.persist import load_model, save_model
from models.rp3beta import RP3beta

log = logging.getLogger("bodoge.models")

USER_BATCH = 512
"""Members ranked at once (fewer for big catalogues: ``SCORE_BUDGET`` cells per block)."""

REASON_LIKED = "「{}」が好きなあなたに"
"""Because you like X (``{}`` is the liked game's name, as ``pl.format`` fills it)."""
REASON_WATCHED_ONLY = "「{}」に興味があるあなたに"
"""For a member whose only evidence is their 興味あり games."""
REASON_WATCHING_PREFIX = "興味ありに登録済み"
REASON_POPULAR = "人気のゲーム"
REASON_FOR_YOU = "あなたへのおすすめ"

RECOMMENDATION_COLUMNS = (
    "user_id", "rank", "game_id", "score", "model", "run_id", "reason", "watching", "generated_at",
)
SIMILAR_COLUMNS = ("game_id", "rank", "similar_game_id", "score", "run_id")

_KIND_NONE, _KIND_POPULAR, _KIND_PERSONAL = 0, 1, 2


@dataclass(frozen=True)
class Blend:
    """How the champion, content and popularity are mixed (see the module docstring)."""

    content: float = 0.25
    popularity: float = 0.05
    reference_rank: int = 100
    neighbours: int = 200
    similar_cf_share: float = 0.7
    similar_shrink: float = 5.0

    def to_dict(self) -> dict[str, float | int]:
        """Plain values, for ``discovery.json``."""
        return asdict(self)


@dataclass
class Discovery:
    """What ``discover`` returns: the two marts' rows and counts for logs and metadata."""

    recommendations: pl.DataFrame
    similar_games: pl.DataFrame
    stats: dict[str, Any] = field(default_factory=dict)


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


def watching_only() -> pl.Expr:
    """A 興味あり row without 持ってる/経験あり/お気に入り: the only kind that may be recommended."""
    return (pl.col("watching") & ~pl.col("have") & ~pl.col("played") & ~pl.col("favorite")).alias("watch")


@dataclass
class _Members:
    """A batch of members as catalogue-wide sparse rows."""

    user_ids: list[str]
    known: sp.csr_matrix  # 1 where the game may never be recommended
    watch: sp.csr_matrix  # 1 where the member marked the game 興味あり only
    liked: sp.csr_matrix  # weights summing to 1 per row (or an empty row)
    watch_fallback: np.ndarray  # the liked row came from 興味あり games


class DiscoveryModel:
    """The fitted state behind ``discover``: rank members and list similar games.

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
        self._attribution = _Attribution.for_model(model, interactions.matrix) if model is not None else None

    # ----------------------------------------------------------------- members

    def members(self, collections: pl.DataFrame, user_ids: list[str]) -> _Members:
        """Sparse rows (catalogue columns) of these members from normalised collections."""
        users = pl.Series("user_id", user_ids, dtype=pl.String).to_frame().with_row_index("row")
        catalog = self.game_ids.to_frame().with_row_index("col")
        rows = (
            collections.join(users, on="user_id", how="inner")
            .join(catalog, on="game_id", how="inner")
            .with_columns(liked_weight(), watching_only())
            .with_columns((pl.col("liked").max().over("user_id") <= 0).alias("fallback"))
            .with_columns(
                pl.when(pl.col("fallback")).then(pl.col("watch").cast(pl.Float64)).otherwise(pl.col("liked")).alias("w")
            )
        )
        shape = (len(user_ids), self.n_games)
        r = rows.get_column("row").to_numpy()
        c = rows.get_column("col").to_numpy()

        def matrix(values: np.ndarray) -> sp.csr_matrix:
            keep = values > 0
            out = sp.csr_matrix((values[keep].astype(np.float32), (r[keep], c[keep])), shape=shape)
            out.sum_duplicates()
            return out

        watch = rows.get_column("watch").to_numpy().astype(np.float32)
        liked = matrix(rows.get_column("w").to_numpy())
        totals = np.asarray(liked.sum(axis=1)).ravel()
        liked.data /= np.repeat(np.where(totals > 0, totals, 1.0), np.diff(liked.indptr)).astype(np.float32)
        fallback = np.zeros(len(user_ids), dtype=bool)
        flagged = rows.filter(pl.col("fallback")).get_column("row").unique().to_numpy()
        fallback[flagged] = True
        return _Members(user_ids, matrix(1.0 - watch), matrix(watch), liked, fallback)

    # ----------------------------------------------------------------- ranking

    def _cf_scores(self, cf_rows: np.ndarray) -> np.ndarray:
        """Champion scores on catalogue columns, clipped at 0; 0 where it has nothing to say."""
        scores = np.zeros((cf_rows.size, self.n_games), dtype=np.float32)
        if self.model is None:
            return scores
        matrix = self.interactions.matrix
        has_shared = np.zeros(cf_rows.size, dtype=bool)
        known = cf_rows >= 0
        if known.any():
            # Confidences are positive, so a positive sum means at least one shared game.
            shared = matrix[cf_rows[known]] @ self.shared_cols.astype(np.float32) > 0
            has_shared[np.flatnonzero(known)[shared]] = True
        rows = np.flatnonzero(has_shared)
        if rows.size == 0:
            return scores
        warm = self.cf_cols >= 0
        raw = np.asarray(self.model.score(cf_rows[rows]), dtype=np.float32)[:, self.cf_cols[warm]]
        raw[~np.isfinite(raw)] = 0.0
        block = np.zeros((rows.size, self.n_games), dtype=np.float32)
        block[:, warm] = np.maximum(raw, 0.0)
        scores[rows] = block
        return scores

    def rank(self, collections: pl.DataFrame, user_ids: list[str], depth: int | None) -> tuple[pl.DataFrame, dict[str, int]]:
        """Rank the catalogue for these members (``depth=None``: every candidate game).

        Returns long rows (``user_id``, ``rank``, ``game_id``, ``score``, ``reason``,
        ``watching``) and counts.
        """
        counts = {"users_cf": 0, "users_content_fallback": 0, "users_popularity_only": 0}
        frames: list[pl.DataFrame] = []
        take = self.n_games if depth is None else min(depth, self.n_games)
        batch = max(1, min(USER_BATCH, SCORE_BUDGET // max(self.n_games, 1)))
        # Sorted ids (as `discover` passes them): each batch reads only its slice of the
        # collections sorted by member, instead of joining all of them per batch.
        ordered = collections.sort("user_id") if user_ids == sorted(user_ids) else None
        keys = ordered.get_column("user_id") if ordered is not None else None
        for start in range(0, len(user_ids), batch):
            chunk = user_ids[start : start + batch]
            rows = collections
            if ordered is not None and keys is not None:
                lo = int(keys.search_sorted(chunk[0], side="left"))
                hi = int(keys.search_sorted(chunk[-1], side="right"))
                rows = ordered.slice(lo, hi - lo)
            members = self.members(rows, chunk)
            frame, batch_counts = self._rank_batch(members, take)
            frames.append(frame)
            for key, value in batch_counts.items():
                counts[key] += value
        schema = {
            "user_id": pl.String, "rank": pl.Int32, "game_id": pl.String, "score": pl.Float64,
            "reason": pl.String, "watching": pl.Boolean,
        }
        result = pl.concat(frames) if frames else pl.DataFrame(schema=schema)
        return result, counts

    def _rank_batch(self, members: _Members, take: int) -> tuple[pl.DataFrame, dict[str, int]]:
        n_users = len(members.user_ids)
        cf_rows = self.interactions.user_rows(members.user_ids) if self.model is not None else np.full(n_users, -1)
        excluded = members.known.toarray() > 0

        candidates = ~excluded
        cf = self._cf_scores(cf_rows)
        with_cf = candidates & (self.cf_cols >= 0)[None, :] & (cf.max(axis=1) > 0)[:, None]
        cf_offset, cf_scale = reference_scale(cf, with_cf, self.blend.reference_rank)
        # A game without collection entries sits at the reference level (0) of the CF part.
        cf_part = np.where(with_cf, np.clip((cf - cf_offset[:, None]) * cf_scale[:, None], -1.0, 1.0), 0.0)

        content = np.asarray((members.liked @ self.graph).toarray(), dtype=np.float32)
        content_offset, content_scale = reference_scale(content, candidates, self.blend.reference_rank)
        content_part = self.blend.content * np.clip(
            (content - content_offset[:, None]) * content_scale[:, None], -1.0, 1.0
        )
        content_scale = content_scale * self.blend.content

        scores = (cf_part + content_part + self.blend.popularity * self.pop_norm[None, :]).astype(np.float32)
        scores[excluded] = -np.inf
        ids, values = top_n(scores, take)
        valid = ids >= 0
        safe = np.maximum(ids, 0)
        # Personal: the champion or content had something to say about the game (a
        # popularity champion's part is popularity, so there only content counts).
        evidence = content > 0
        if self.champion != "popularity":
            evidence |= with_cf & (cf > 0)
        kinds = np.where(np.take_along_axis(evidence, safe, axis=1), _KIND_PERSONAL, _KIND_POPULAR)
        kinds[~valid] = _KIND_NONE
        anchors = self._anchors(members, cf_rows, cf_scale, content_scale, ids, kinds)

        watch_dense = members.watch.toarray() > 0
        watching = np.take_along_axis(watch_dense, safe, axis=1)
        counts = {
            "users_cf": int((cf_scale > 0).sum()),
            "users_content_fallback": int(((cf_scale == 0) & (content_scale > 0)).sum()),
            "users_popularity_only": int(((cf_scale == 0) & (content_scale == 0)).sum()),
        }
        user_index = np.repeat(np.arange(n_users), valid.sum(axis=1))
        rank = np.broadcast_to(np.arange(1, take + 1, dtype=np.int32), ids.shape)[valid]
        anchor = anchors[valid]
        frame = pl.DataFrame(
            {
                "user_id": pl.Series(members.user_ids, dtype=pl.String).gather(user_index),
                "rank": pl.Series(rank, dtype=pl.Int32),
                "game_id": self.game_ids.gather(ids[valid]),
                "score": pl.Series(values[valid], dtype=pl.Float64),
                "watching": pl.Series(watching[valid], dtype=pl.Boolean),
                "_kind": pl.Series(kinds[valid], dtype=pl.Int8),
                "_anchor": self.content.names.gather(np.maximum(anchor, 0)),
                "_anchored": pl.Series(anchor >= 0, dtype=pl.Boolean),
                "_fallback": pl.Series(members.watch_fallback[user_index], dtype=pl.Boolean),
            }
        )
        frame = frame.with_columns(pl.when(pl.col("_anchored")).then(pl.col("_anchor")).alias("_anchor"))
        return frame.select("user_id", "rank", "game_id", "score", _reason_expr(), "watching"), counts

    def _anchors(
        self,
        members: _Members,
        cf_rows: np.ndarray,
        cf_scale: np.ndarray,
        content_scale: np.ndarray,
        ids: np.ndarray,
        kinds: np.ndarray,
    ) -> np.ndarray:
        """The liked game (catalogue index) contributing most to each row, -1 for none."""
        n_users, take = ids.shape
        anchors = np.full(ids.shape, -1, dtype=np.int64)
        liked = members.liked
        pair_user = np.repeat(np.arange(n_users), np.diff(liked.indptr))
        pair_game = liked.indices.astype(np.int64)
        pair_weight = liked.data
        personal = kinds == _KIND_PERSONAL
        if pair_user.size == 0 or not personal.any():
            return anchors
        items = np.maximum(ids[pair_user], 0)  # (pairs, take)
        contribution = _gather(self.graph, pair_game, items) * (
            pair_weight * content_scale[pair_user]
        )[:, None]
        if self._attribution is not None:
            cf_game = self.cf_cols[pair_game]
            with_cf = (cf_scale[pair_user] > 0) & (cf_game >= 0)
            if with_cf.any():
                item_cols = self.cf_cols[items[with_cf]]
                part = self._attribution.contributions(cf_rows[pair_user[with_cf]], cf_game[with_cf], item_cols)
                part[item_cols < 0] = 0.0
                contribution[with_cf] += part * cf_scale[pair_user[with_cf]][:, None]
        slot = pair_user[:, None] * take + np.arange(take)[None, :]
        best = _segment_argmax(slot.ravel(), contribution.ravel(), np.repeat(pair_game, take), n_users * take)
        best = best.reshape(n_users, take)
        anchors[personal] = best[personal]

        # Rows the champion put there without an attribution: nearest liked game by content.
        missing = personal & (anchors < 0)
        has_liked = np.diff(liked.indptr) > 0
        missing &= has_liked[:, None]
        if missing.any():
            rows, cols = np.nonzero(missing)
            sizes = np.diff(liked.indptr)[rows]
            seg = np.repeat(np.arange(rows.size), sizes)
            starts = np.repeat(liked.indptr[rows], sizes)
            offsets = np.arange(seg.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            games = liked.indices[starts + offsets].astype(np.int64)
            sims = self.content.pair_similarity(games, ids[rows[seg], cols[seg]]) * liked.data[starts + offsets]
            nearest = _segment_argmax(seg, sims, games, rows.size)
            anchors[rows, cols] = nearest
        return anchors

    # ----------------------------------------------------------------- similar games

    def _cf_similarity(self, cols: np.ndarray) -> np.ndarray:
        """Champion item similarity rows over its own columns, or interaction cosine."""
        model = self.model
        assert model is not None
        if self.champion != "popularity":
            try:
                return np.asarray(model.item_similarity(cols), dtype=np.float32)
            except NotImplementedError:
                pass
        if not hasattr(self, "_cosine"):
            columns = sp.csr_matrix(self.interactions.matrix.T, dtype=np.float32)
            norms = np.sqrt(np.asarray(columns.multiply(columns).sum(axis=1)).ravel())
            columns = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)).astype(np.float32) @ columns
            self._cosine = sp.csr_matrix(columns)
        block = self._cosine[cols] @ self._cosine.T
        return np.asarray(block.toarray(), dtype=np.float32)

    def similar(self, n: int) -> pl.DataFrame:
        """``game_id``, ``rank``, ``similar_game_id``, ``score`` for every catalogue game."""
        ids = np.full((self.n_games, n), -1, dtype=np.int64)
        values = np.full((self.n_games, n), -np.inf, dtype=np.float32)
        blend = self.blend
        warm = self.cf_cols >= 0
        share = np.where(
            warm, blend.similar_cf_share * self.cf_members / (self.cf_members + blend.similar_shrink), 0.0
        ).astype(np.float32)
        for rows in self.content.chunks():
            sims = np.asarray(self.graph[rows].toarray(), dtype=np.float32) * (1.0 - share[rows])[:, None]
            hot = rows[warm[rows]]
            if hot.size and self.model is not None:
                cf = self._cf_similarity(self.cf_cols[hot])[:, self.cf_cols[warm]]
                cf[~np.isfinite(cf)] = 0.0
                cf = np.maximum(cf, 0.0)
                cf[np.arange(hot.size), np.searchsorted(np.flatnonzero(warm), hot)] = 0.0
                top = cf.max(axis=1, keepdims=True)
                cf = np.where(top > 0, cf / np.where(top > 0, top, 1.0), 0.0)
                position = np.searchsorted(rows, hot)
                block = sims[position]
                block[:, warm] += cf * share[hot][:, None]
                sims[position] = block
            sims[np.arange(rows.size), rows] = -np.inf
            sims[sims <= 0] = -np.inf
            ids[rows], values[rows] = top_n(sims, n)
        return topk_frame(self.game_ids, ids, values, self.game_ids, key="game_id", value="similar_game_id")

    # ----------------------------------------------------------------- persistence

    def save(self, directory: str | Path, meta: dict[str, Any]) -> Path:
        """Write the files listed in the module docstring."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if self.model is not None:
            save_model(directory, self.model, self.interactions, weights=WEIGHTINGS.get(meta.get("weighting", "")))
        self.content.save(directory)
        sp.save_npz(directory / "content_neighbours.npz", self.graph)
        self.collections.write_parquet(directory / "discovery_collections.parquet")
        payload = {**meta, "champion": self.champion, "blend": self.blend.to_dict(), "cf": self.model is not None}
        (directory / "discovery.json").write_text(
            json.dumps(payload, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
        )
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> tuple[DiscoveryModel, dict[str, Any]]:
        """Read what ``save`` wrote; returns the model and ``discovery.json``."""
        directory = Path(directory)
        meta = json.loads((directory / "discovery.json").read_text(encoding="utf-8"))
        content = ContentModel.load(directory)
        if meta.get("cf", True):
            model, interactions, _ = load_model(directory)
        else:
            model = None
            interactions = _empty_interactions()
        discovery = cls(
            champion=meta["champion"],
            model=model,
            interactions=interactions,
            content=content,
            collections=pl.read_parquet(directory / "discovery_collections.parquet"),
            blend=Blend(**meta["blend"]),
            graph=sp.load_npz(directory / "content_neighbours.npz").tocsr().astype(np.float32),
        )
        return discovery, meta


class _Attribution:
    """The champion's own attribution of a score to the member's games, vectorised.

    ``contributions(user_rows, game_cols, item_cols)`` gives, for each pair (member,
    one of their games ``j``), the contribution of ``j`` to each item's score: the
    numbers behind the champion's ``explain``, for a whole batch at once.
    """

    def __init__(self, model: Recommender, matrix: sp.csr_matrix) -> None:
        self.model = model
        self.matrix = matrix

    @staticmethod
    def for_model(model: Recommender, matrix: sp.csr_matrix) -> _Attribution | None:
        if isinstance(model, (ItemKNNCosine, ItemKNNBM25)):
            return _ItemItemAttribution(model, matrix, model.similarity_, None)
        if isinstance(model, RP3beta):
            return _ItemItemAttribution(model, matrix, model.weights_, None)
        if isinstance(model, EASE):
            return _ItemItemAttribution(model, matrix, model.weights_, model._positions())
        if isinstance(model, ALS):
            return _ALSAttribution(model, matrix)
        return None  # popularity, BPR: explain() says nothing

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        """``(pairs, items)`` float32: what game ``game_cols[p]`` of member ``user_rows[p]``
        adds to the score of each game in ``item_cols[p]`` (pairs grouped by member, and
        all pairs of a member share the same ``item_cols`` row)."""
        raise NotImplementedError


class _ItemItemAttribution(_Attribution):
    """``x_uj · W[j, i]`` (kNN, RP3beta, EASE over its modelled games)."""

    def __init__(
        self, model: Recommender, matrix: sp.csr_matrix, weights: Any, positions: np.ndarray | None
    ) -> None:
        super().__init__(model, matrix)
        self.weights = weights
        self.positions = positions

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        confidence = np.asarray(self.matrix[user_rows, game_cols], dtype=np.float32).ravel()
        rows = np.broadcast_to(game_cols[:, None], item_cols.shape)
        cols = np.maximum(item_cols, 0)
        if self.positions is not None:
            rows, cols = self.positions[rows], self.positions[cols]
            modelled = (rows >= 0) & (cols >= 0)
            values = np.zeros(item_cols.shape, dtype=np.float32)
            values[modelled] = _gather_flat(self.weights, rows[modelled], cols[modelled])
        else:
            values = _gather_flat(self.weights, rows.ravel(), cols.ravel()).reshape(item_cols.shape)
        return values * confidence[:, None]


class _ALSAttribution(_Attribution):
    """implicit's ALS explanation (Hu, Koren & Volinsky 2008, §5), one solve per member.

    ``A_u = YᵀY + λI + Yᵀ(C_u − I)Y`` with ``C_u = α·x_u``; game ``j`` contributes
    ``c_uj · (A_u⁻¹ y_i)·y_j`` to game ``i``.
    """

    def __init__(self, model: ALS, matrix: sp.csr_matrix) -> None:
        super().__init__(model, matrix)
        self.factors = np.asarray(model.item_factors_, dtype=np.float64)
        k = self.factors.shape[1]
        self.base = self.factors.T @ self.factors + model.regularization * np.eye(k)
        self.alpha = float(model.alpha)

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        out = np.zeros(item_cols.shape, dtype=np.float32)
        matrix = self.matrix
        # Pairs come grouped by member: one run of equal rows per member.
        starts = np.flatnonzero(np.r_[True, user_rows[1:] != user_rows[:-1]])
        for run_start, run_stop in zip(starts, np.r_[starts[1:], user_rows.size]):
            pairs = np.arange(run_start, run_stop)
            user = int(user_rows[run_start])
            start, stop = matrix.indptr[user], matrix.indptr[user + 1]
            games = matrix.indices[start:stop]
            if games.size == 0:
                continue
            position = np.minimum(np.searchsorted(games, game_cols[pairs]), games.size - 1)
            present = games[position] == game_cols[pairs]  # a fresher collection may add games
            if not present.any():
                continue
            confidence = self.alpha * matrix.data[start:stop].astype(np.float64)
            y = self.factors[games]
            system = self.base + (y * (confidence - 1.0)[:, None]).T @ y
            items = np.maximum(item_cols[pairs[0]], 0)  # every pair of a member has the same items
            solved = np.linalg.solve(system, self.factors[items].T)  # k × items
            rows = pairs[present]
            liked = y[position[present]] @ solved * confidence[position[present]][:, None]
            out[rows] = liked.astype(np.float32)
        return out


def reference_scale(values: np.ndarray, mask: np.ndarray, reference: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, ``(offset, slope)`` mapping the best masked value to 1 and the
    ``reference``-th best to 0 (min–max over the member's own top ``reference``).

    Rows with fewer masked values use their lowest one; when the best and the reference
    value are equal the offset is 0 (plain division by the best); a row whose best is not
    positive gets slope 0 (no signal).
    """
    n_rows, n_cols = values.shape
    offset = np.zeros(n_rows, dtype=np.float32)
    slope = np.zeros(n_rows, dtype=np.float32)
    if n_rows == 0 or n_cols == 0:
        return offset, slope
    masked = np.where(mask, values, -np.inf).astype(np.float32)
    best = masked.max(axis=1)
    k = min(reference, n_cols)
    kth = top_n(masked, k)[1][:, k - 1]  # the k-th best (-inf when fewer): top_n's prefilter beats a full partition
    lowest = np.where(mask, values, np.inf).min(axis=1)
    kth = np.where(np.isfinite(kth), kth, lowest)
    signal = np.isfinite(best) & (best > 0)
    spread = signal & (best > kth)
    offset[spread] = kth[spread]
    slope[spread] = 1.0 / (best[spread] - kth[spread])
    flat = signal & ~spread
    slope[flat] = 1.0 / best[flat]
    return offset, slope


def _gather_flat(weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``weights[rows[k], cols[k]]`` for a dense array or a sparse matrix, as float32."""
    if rows.size == 0:
        return np.zeros(0, dtype=np.float32)
    if sp.issparse(weights):
        return np.asarray(weights[rows, cols], dtype=np.float32).ravel()
    return np.asarray(weights[rows, cols], dtype=np.float32)


def _gather(weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``weights[rows[p], cols[p, k]]`` as a ``cols``-shaped float32 array."""
    flat_rows = np.broadcast_to(rows[:, None], cols.shape).ravel()
    return _gather_flat(weights, flat_rows, cols.ravel()).reshape(cols.shape)


def _segment_argmax(segment: np.ndarray, values: np.ndarray, label: np.ndarray, n_segments: int) -> np.ndarray:
    """Per segment, the ``label`` of the largest positive value (ties: lowest label), -1 if none."""
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


def _reason_expr() -> pl.Expr:
    """The Japanese reason of a ranked row from its anchor game, kind and flags."""
    liked = pl.format(REASON_LIKED, pl.col("_anchor"))
    watched = pl.format(REASON_WATCHED_ONLY, pl.col("_anchor"))
    named = pl.when(pl.col("_fallback")).then(watched).otherwise(liked)
    base = (
        pl.when(pl.col("_anchor").is_not_null())
        .then(named)
        .when(pl.col("_kind") == _KIND_PERSONAL)
        .then(pl.lit(REASON_FOR_YOU))
        .otherwise(pl.lit(REASON_POPULAR))
    )
    anchored_watch = pl.format("{}・{}", pl.lit(REASON_WATCHING_PREFIX), base)
    return (
        pl.when(pl.col("watching") & pl.col("_anchor").is_not_null())
        .then(anchored_watch)
        .when(pl.col("watching"))
        .then(pl.lit(REASON_WATCHING_PREFIX))
        .otherwise(base)
        .alias("reason")
    )


def _empty_interactions() -> InteractionMatrix:
    return InteractionMatrix(
        matrix=sp.csr_matrix((0, 0), dtype=np.float32),
        user_ids=pl.Series("user_id", [], dtype=pl.String),
        game_ids=pl.Series("game_id", [], dtype=pl.String),
    )


def _catalog(games: pl.DataFrame) -> pl.DataFrame:
    """One row per game id, sorted by id (so the layout does not depend on row order)."""
    return games.filter(pl.col("game_id").is_not_null()).with_columns(
        pl.col("game_id").cast(pl.String)
    ).unique("game_id", keep="first", maintain_order=True).sort("game_id")


def discover(
    *,
    collections: pl.DataFrame,
    games: pl.DataFrame,
    posts: pl.DataFrame | None,
    champion: str,
    params: dict[str, Any],
    weighting: str,
    run_id: str,
    generated_at: datetime,
    depth: int = 100,
    n_similar: int = 10,
    seed: int = 0,
    model_dir: Path | None = None,
    blend: Blend | None = None,
) -> Discovery:
    """Recommendations (top ``depth`` per member) and similar games for a whole run.

    ``champion``/``params``/``weighting`` come from the evaluation report (the champion's
    name, its chosen parameters, ``report.weighting.name``). The champion is fitted on
    every collection row under single-threaded BLAS. See the module docstring for the
    blend, the exclusion rules, the reasons and the files written to ``model_dir``.
    """
    blend = blend or Blend()
    candidates = default_candidates()
    if champion not in candidates:
        raise ValueError(f"unknown champion {champion!r}; known: {', '.join(candidates)}")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"unknown weighting {weighting!r}; known: {', '.join(WEIGHTINGS)}")
    if depth < 1 or n_similar < 1:
        raise ValueError("depth and n_similar must be at least 1")
    started = time.perf_counter()
    timings: dict[str, float] = {}
    rows = normalise_interactions(collections, source="collections")
    catalog = _catalog(games)

    with single_threaded_blas():
        tick = time.perf_counter()
        if rows.height:
            interactions = InteractionMatrix.from_frame(rows, WEIGHTINGS[weighting])
            model: Recommender | None = candidates[champion].build(params, seed).fit(interactions.matrix)
        else:
            interactions, model = _empty_interactions(), None
        timings["fit_seconds"] = time.perf_counter() - tick
        log.info(
            "discover: %s fitted on %d rows (%d members, %d games, weighting %s) in %.1fs",
            champion, rows.height, interactions.shape[0], interactions.shape[1], weighting, timings["fit_seconds"],
        )

        tick = time.perf_counter()
        content = ContentModel.fit(catalog, posts)
        graph = content.neighbours(blend.neighbours)
        timings["content_seconds"] = time.perf_counter() - tick
        state = DiscoveryModel(
            champion=champion, model=model, interactions=interactions, content=content,
            collections=rows, blend=blend, graph=graph,
        )
        n_cold = int((state.cf_cols < 0).sum())
        log.info(
            "discover: content features for %d games (%d without any collection entry), %d neighbours each, in %.1fs",
            content.n_games, n_cold, blend.neighbours, timings["content_seconds"],
        )

        tick = time.perf_counter()
        user_ids = rows.get_column("user_id").unique().sort().to_list()
        ranked, user_counts = state.rank(rows, user_ids, depth)
        timings["rank_seconds"] = time.perf_counter() - tick
        cold_ids = state.game_ids.filter(pl.Series(state.cf_cols < 0))
        n_cold_rows = int(ranked.get_column("game_id").is_in(cold_ids.implode()).sum()) if ranked.height else 0
        log.info(
            "discover: %d rows for %d members in %.1fs (%d on games without entries, %d 興味あり; members: %d CF, %d content fallback, %d popularity only)",
            ranked.height, len(user_ids), timings["rank_seconds"], n_cold_rows,
            int(ranked.get_column("watching").sum()) if ranked.height else 0,
            user_counts["users_cf"], user_counts["users_content_fallback"], user_counts["users_popularity_only"],
        )

        tick = time.perf_counter()
        similar = state.similar(n_similar)
        timings["similar_seconds"] = time.perf_counter() - tick
        log.info(
            "discover: %d similar-game rows for %d games in %.1fs",
            similar.height, similar.get_column("game_id").n_unique() if similar.height else 0,
            timings["similar_seconds"],
        )

    recommendations = ranked.with_columns(
        pl.lit(champion).alias("model"),
        pl.lit(run_id).alias("run_id"),
        pl.lit(generated_at).alias("generated_at"),
    ).select(RECOMMENDATION_COLUMNS)
    similar_games = similar.with_columns(pl.lit(run_id).alias("run_id")).select(SIMILAR_COLUMNS)

    if model_dir is not None:
        tick = time.perf_counter()
        state.save(
            model_dir,
            {
                "run_id": run_id, "generated_at": generated_at.isoformat(), "params": params,
                "weighting": weighting, "depth": depth, "n_similar": n_similar, "seed": seed,
            },
        )
        timings["save_seconds"] = time.perf_counter() - tick
        log.info("discover: model saved to %s in %.1fs", model_dir, timings["save_seconds"])

    timings["total_seconds"] = time.perf_counter() - started
    stats: dict[str, Any] = {
        "champion": champion,
        "weighting": weighting,
        "n_collection_rows": rows.height,
        "n_users": len(user_ids),
        "n_games": content.n_games,
        "n_cold_games": n_cold,
        "n_recommendations": recommendations.height,
        "n_cold_recommendations": n_cold_rows,
        "n_watching_recommendations": int(recommendations.get_column("watching").sum()) if recommendations.height else 0,
        "n_similar": similar_games.height,
        **{f"n_{key}": value for key, value in user_counts.items()},
        **{key: round(value, 3) for key, value in timings.items()},
    }
    if model_dir is not None:
        stats["model_dir"] = str(model_dir)
    log.info("discover: done in %.1fs", timings["total_seconds"])
    return Discovery(recommendations=recommendations, similar_games=similar_games, stats=stats)


# --------------------------------------------------------------------- serving


def filter_recommendations(
    recs: pl.DataFrame,
    games: pl.DataFrame,
    *,
    players: int | None,
    max_minutes: int | None,
    n: int,
) -> pl.DataFrame:
    """The first ``n`` rows per member (by ``rank``) that pass the filters, columns kept.

    * ``players=N``: playable with N, i.e. ``min_players <= N <= max_players``; a game
      missing either value (or with an implausible maximum such as 65536人) is excluded.
    * ``max_minutes=M``: ``max_minutes`` (``min_minutes`` when the maximum is missing)
      ``<= M``; a game with neither (or an implausible time) is excluded.

    ``rank`` keeps the member's overall position (a filtered list may read 1, 4, 9).
    """
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    if players is not None and players < 1:
        raise ValueError(f"players must be at least 1, got {players}")
    if max_minutes is not None and max_minutes < 0:
        raise ValueError(f"max_minutes must not be negative, got {max_minutes}")
    specs = clean_specs(games)
    spec_frame = pl.DataFrame(
        {"game_id": games.get_column("game_id").cast(pl.String), **{k: v for k, v in specs.items()}}
    ).fill_nan(None).unique("game_id", keep="first", maintain_order=True)
    joined = recs.join(spec_frame, on="game_id", how="left", maintain_order="left")
    keep = pl.lit(True)
    if players is not None:
        keep = keep & (pl.col("min_players") <= players) & (pl.col("max_players") >= players)
    if max_minutes is not None:
        keep = keep & (pl.coalesce("max_minutes", "min_minutes") <= max_minutes)
    return (
        joined.filter(keep.fill_null(False))
        .sort("user_id", "rank")
        .group_by("user_id", maintain_order=True)
        .head(n)
        .select(recs.columns)
    )


def score_user_on_the_fly(
    model_dir: str | Path,
    user_id: str,
    *,
    collection: pl.DataFrame | None = None,
    n: int | None = None,
) -> pl.DataFrame:
    """Rank the whole catalogue for one member from a saved ``model_dir``.

    Same columns as ``marts.recommendations`` (``model``, ``run_id`` and
    ``generated_at`` of the run that saved the model), best first, every game the member
    may get (``n`` limits it). With the run's own collections the first ``depth`` rows
    equal the stored ones. ``collection`` (the member's current rows of
    ``marts.collections``) replaces the saved rows for exclusions, liked games and
    興味あり; the champion's part still comes from the member's row at fitting time, and a
    member the champion never saw is ranked by content and popularity.

    Raises ``LookupError`` for a member neither saved nor given a ``collection``.
    """
    state, meta = DiscoveryModel.load(model_dir)
    user_id = str(user_id)
    if collection is None:
        rows = state.collections.filter(pl.col("user_id") == user_id)
        if rows.height == 0:
            raise LookupError(f"unknown user {user_id!r}: no collection in {model_dir}")
    else:
        rows = normalise_interactions(collection, source="collection").filter(pl.col("user_id") == user_id)
    with single_threaded_blas():
        ranked, _ = state.rank(rows, [user_id], n)
    return ranked.with_columns(
        pl.lit(meta["champion"]).alias("model"),
        pl.lit(meta.get("run_id")).cast(pl.String).alias("run_id"),
        pl.lit(datetime.fromisoformat(meta["generated_at"])).alias("generated_at"),
    ).select(RECOMMENDATION_COLUMNS)


def recommend_filtered(
    stored: pl.DataFrame,
    games: pl.DataFrame,
    *,
    user_id: str,
    n: int,
    players: int | None = None,
    max_minutes: int | None = None,
    model_dir: str | Path | None = None,
    collection: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """What ``bodoge recommend`` shows: the stored rows, filtered; re-ranked when too few.

    ``stored`` is the member's rows of ``marts.recommendations``. When the filters leave
    fewer than ``n`` and ``model_dir`` exists, the whole catalogue is ranked again
    (``score_user_on_the_fly``) and filtered instead.
    """
    mine = stored.filter(pl.col("user_id") == str(user_id))
    chosen = filter_recommendations(mine, games, players=players, max_minutes=max_minutes, n=n)
    if chosen.height >= n or model_dir is None or not (Path(model_dir) / "discovery.json").is_file():
        return chosen
    try:
        everything = score_user_on_the_fly(model_dir, user_id, collection=collection)
    except LookupError:
        return chosen
    wider = filter_recommendations(everything, games, players=players, max_minutes=max_minutes, n=n)
    return wider if wider.height > chosen.height else chosen
