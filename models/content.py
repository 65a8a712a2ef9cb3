"""Content similarity between games: what a game *is*, not who collected it.

Collaborative models only know games that members have collected. A new game, or one
nobody on the site has marked yet, is invisible to them; so are the reasons behind a
recommendation when a model cannot attribute its score. Content similarity fills those
gaps (cold start, "because you like X", similar games for every game of the catalogue).

Features, one block each, built with scikit-learn from the ``marts.games`` columns:

* ``mechanics``, ``themes``, ``designers``: every label is one token (a TF-IDF over
  labels with an identity analyzer, so a rare mechanic says more than 「ダイスロール」).
* ``text``: TF-IDF over character 2–3-grams (``analyzer="char_wb"``) of the names,
  the overview and up to ``TEXT_LIMIT`` characters of the game's rule and review posts.
  Japanese has no spaces between words, so word tokens would need a morphological
  analyser; character n-grams need none and still match 「ワーカープレイスメント」
  against 「ワーカー」, and katakana names of a series against each other. ``min_df=2``
  drops n-grams that occur in a single game (they cannot make two games similar) and
  ``sublinear_tf`` keeps long rule texts from outweighing short overviews.
* ``specs``: player count, play time, age and year, scaled and then spread over
  triangular buckets (a value between two bucket centres is shared between them), so
  close values are similar and far ones are not, without one field's scale dominating.
  Player counts become "playable with N" tokens (2–4人 → 2, 3, 4). Implausible values
  (a placeholder maximum such as 65536人, or a flag ``*_implausible`` from the
  warehouse) count as unknown.

Each block is L2-normalised per game, multiplied by the square root of its weight,
stacked and L2-normalised again. The cosine of two games is then a weighted mean of the
blocks' cosines (over the blocks both games have), with mechanics and themes strongest,
text next and specs light (``BlockWeights``): what a game plays like matters most for
"if you liked this".

Similarities are computed in row chunks (``CHUNK_CELLS`` dense cells at a time) and
only the top ``n`` per game are kept: the real site has about 21,000 games, and a dense
21,000² matrix would take 1.7 GB.
"""

from __future__ import annotations

import json
import logging
import math
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from models.base import top_n
from models.similarity import GramRows, reduce_text

log = logging.getLogger("bodoge.models")

TEXT_LIMIT = 2_000
"""Characters of rule/review text kept per game (posts are long; the first part of the
rules says what the game is, the rest is detail that adds noise and cost)."""

CHUNK_CELLS = 1 << 22
"""Dense similarity cells computed at once (4M float32 = 16 MB)."""

MAX_PLAYERS_PLAUSIBLE = 100
"""A larger maximum player count is a placeholder (the site shows 65536人), not a fact."""

MAX_MINUTES_PLAUSIBLE = 24 * 60

PLAYER_TOKENS = 10
"""Player counts 1…10 get a token each; 10 stands for "10 or more"."""

MINUTE_CENTRES = (10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 240.0)
"""Bucket centres of play time (on a log scale: 10 vs 20 minutes differ as 60 vs 120)."""

AGE_CENTRES = (3.0, 6.0, 8.0, 10.0, 12.0, 14.0, 18.0)
YEAR_CENTRES = (1980.0, 1995.0, 2005.0, 2012.0, 2016.0, 2019.0, 2022.0, 2025.0)

CONTENT_FILES = ("content_features.npz", "content_games.parquet", "content.json")
"""What ``ContentModel.save`` writes (the fitted vectorizers are not needed to score)."""


@dataclass(frozen=True)
class BlockWeights:
    """Each block's share of the similarity (relative; see the module docstring)."""

    mechanics: float = 1.0
    themes: float = 1.0
    designers: float = 0.4
    text: float = 0.6
    specs: float = 0.25

    def to_dict(self) -> dict[str, float]:
        """Plain values, for the saved model's description."""
        return asdict(self)


def display_names(games: pl.DataFrame) -> pl.Series:
    """The name a member sees: ``name_ja``, else ``name_en``, else the slug."""
    parts = [pl.col(name) for name in ("name_ja", "name_en") if name in games.columns]
    parts = [part.cast(pl.String).str.strip_chars() for part in parts]
    parts = [pl.when(part != "").then(part) for part in parts]
    return games.select(pl.coalesce(*parts, pl.col("game_id")).alias("name")).get_column("name")


def game_texts(
    games: pl.DataFrame, posts: pl.DataFrame | None = None, *, limit: int = TEXT_LIMIT
) -> pl.Series:
    """Names, overview and (up to ``limit`` characters of) post bodies, one text per game.

    Posts are taken rules first, then reviews, in ``post_id`` order where the frame has
    it, so the text does not depend on row order. Text is NFKC-normalised (full-width
    digits and letters become ASCII, half-width katakana full-width).
    """
    pieces = [
        pl.col(name).cast(pl.String).fill_null("")
        for name in ("name_ja", "name_en", "overview")
        if name in games.columns
    ]
    base = games.select(
        "game_id", pl.concat_str(pieces, separator="\n").alias("text") if pieces else pl.lit("").alias("text")
    )
    if posts is not None and posts.height and {"game_id", "body"} <= set(posts.columns):
        order = [pl.col("game_id")]
        if "post_kind" in posts.columns:
            order.append(pl.col("post_kind") != "rule")  # rules (what the game is) first
        if "post_id" in posts.columns:
            order += [pl.col("post_id").cast(pl.Int64, strict=False), pl.col("post_id").cast(pl.String)]
        post_text = (
            posts.filter(pl.col("body").is_not_null() & (pl.col("body") != ""))
            .sort(order, nulls_last=True)
            .group_by("game_id", maintain_order=True)
            .agg(pl.col("body").cast(pl.String).str.join("\n").str.slice(0, limit).alias("posts"))
        )
        base = base.join(post_text, on="game_id", how="left", maintain_order="left").select(
            "game_id",
            pl.concat_str([pl.col("text"), pl.col("posts").fill_null("")], separator="\n").alias("text"),
        )
    return pl.Series(
        "text", [unicodedata.normalize("NFKC", text) for text in base.get_column("text").to_list()]
    )


def _labels(value: Sequence[str] | None) -> list[str]:
    """One token per label (module level, so a fitted vectorizer stays picklable)."""
    if not value:
        return []
    labels = (unicodedata.normalize("NFKC", str(label)).strip() for label in value)
    return sorted({label for label in labels if label})


def _label_block(games: pl.DataFrame, column: str) -> sp.csr_matrix:
    """IDF-weighted, L2-normalised label indicators (empty when nobody has a label)."""
    if column not in games.columns:
        return sp.csr_matrix((games.height, 0), dtype=np.float32)
    docs = [_labels(value) for value in games.get_column(column).to_list()]
    if not any(docs):
        return sp.csr_matrix((games.height, 0), dtype=np.float32)
    vectorizer = TfidfVectorizer(analyzer=_labels, lowercase=False, dtype=np.float32)
    # The analyzer receives each document (already a list of labels) as is.
    return sp.csr_matrix(vectorizer.fit_transform(docs), dtype=np.float32)


def _text_block(texts: pl.Series) -> sp.csr_matrix:
    """TF-IDF over character 2–3-grams; empty when the catalogue is too small for min_df=2."""
    vectorizer = TfidfVectorizer(
        analyzer="char_wb", ngram_range=(2, 3), sublinear_tf=True, min_df=2, dtype=np.float32
    )
    try:
        return sp.csr_matrix(vectorizer.fit_transform(texts.to_list()), dtype=np.float32)
    except ValueError:  # empty vocabulary: fewer than two games share any n-gram
        return sp.csr_matrix((texts.len(), 0), dtype=np.float32)


def _column(games: pl.DataFrame, name: str) -> np.ndarray:
    """A numeric column as float64 with NaN for missing (or absent) values."""
    if name not in games.columns:
        return np.full(games.height, np.nan)
    return games.get_column(name).cast(pl.Float64, strict=False).fill_null(np.nan).to_numpy().copy()


def _flag(games: pl.DataFrame, name: str) -> np.ndarray:
    if name not in games.columns:
        return np.zeros(games.height, dtype=bool)
    return games.get_column(name).cast(pl.Boolean, strict=False).fill_null(False).to_numpy()


def clean_specs(games: pl.DataFrame) -> dict[str, np.ndarray]:
    """Player, minute, age and year values with implausible ones set to NaN.

    A maximum player count above ``MAX_PLAYERS_PLAUSIBLE`` (65536人), below the minimum,
    or flagged ``players_implausible`` is unknown (the minimum stays); both play times
    are unknown when either is above a day, negative, out of order or flagged
    ``minutes_implausible`` (the warehouse's rule); a year flagged ``year_implausible``
    is unknown.
    """
    min_players = _column(games, "min_players")
    max_players = _column(games, "max_players")
    bad_max = (
        (max_players > MAX_PLAYERS_PLAUSIBLE)
        | (max_players < min_players)
        | _flag(games, "players_implausible")
    )
    max_players[bad_max] = np.nan
    min_players[(min_players < 1) | (min_players > MAX_PLAYERS_PLAUSIBLE)] = np.nan
    min_minutes = _column(games, "min_minutes")
    max_minutes = _column(games, "max_minutes")
    # The warehouse's rule (marts.games.minutes_implausible): either bound wrong → both unknown.
    bad_minutes = (
        _flag(games, "minutes_implausible")
        | (max_minutes > MAX_MINUTES_PLAUSIBLE)
        | (min_minutes > MAX_MINUTES_PLAUSIBLE)
        | (min_minutes < 0)
        | (max_minutes < min_minutes)
    )
    min_minutes[bad_minutes] = np.nan
    max_minutes[bad_minutes] = np.nan
    year = _column(games, "year")
    year[_flag(games, "year_implausible")] = np.nan
    min_age = _column(games, "min_age")
    min_age[(min_age < 0) | (min_age > 99)] = np.nan
    return {
        "min_players": min_players,
        "max_players": max_players,
        "min_minutes": min_minutes,
        "max_minutes": max_minutes,
        "min_age": min_age,
        "year": year,
    }


def soft_buckets(values: np.ndarray, centres: Sequence[float]) -> np.ndarray:
    """Triangular bucket memberships: a value between two centres is shared by both.

    Returns ``(len(values), len(centres))``; each known value's row sums to 1 (values
    beyond the ends belong to the end bucket), NaN gives a row of zeros.
    """
    centres_arr = np.asarray(centres, dtype=np.float64)
    out = np.zeros((values.size, centres_arr.size), dtype=np.float64)
    known = np.flatnonzero(~np.isnan(values))
    if known.size == 0:
        return out
    clipped = np.clip(values[known], centres_arr[0], centres_arr[-1])
    upper = np.clip(np.searchsorted(centres_arr, clipped, side="right"), 1, centres_arr.size - 1)
    lower = upper - 1
    span = centres_arr[upper] - centres_arr[lower]
    share = (clipped - centres_arr[lower]) / span
    out[known, lower] = 1.0 - share
    np.add.at(out, (known, upper), share)
    return out


def _player_tokens(min_players: np.ndarray, max_players: np.ndarray) -> np.ndarray:
    """"Playable with N" indicators for N = 1…10 (10 = ten or more); unknown max → min only."""
    lo = np.where(np.isnan(min_players), max_players, min_players)
    hi = np.where(np.isnan(max_players), lo, max_players)
    tokens = np.arange(1, PLAYER_TOKENS + 1, dtype=np.float64)
    known = ~np.isnan(lo)
    lo_c = np.clip(np.nan_to_num(lo), 1, PLAYER_TOKENS)
    hi_c = np.clip(np.nan_to_num(hi), 1, PLAYER_TOKENS)
    inside = (tokens[None, :] >= lo_c[:, None]) & (tokens[None, :] <= hi_c[:, None]) & known[:, None]
    return inside.astype(np.float64)


def _specs_block(games: pl.DataFrame) -> sp.csr_matrix:
    """Player tokens and bucketed minutes/age/year, each field L2-normalised, then the block."""
    specs = clean_specs(games)
    lo, hi = specs["min_minutes"], specs["max_minutes"]
    both = ~np.isnan(lo) & ~np.isnan(hi)
    minutes = np.where(np.isnan(lo), hi, lo)
    minutes[both] = np.sqrt(lo[both] * hi[both])  # geometric middle of the range
    log_centres = [math.log2(centre) for centre in MINUTE_CENTRES]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_minutes = np.log2(minutes)
    fields = [
        _player_tokens(specs["min_players"], specs["max_players"]),
        soft_buckets(log_minutes, log_centres),
        soft_buckets(specs["min_age"], AGE_CENTRES),
        soft_buckets(specs["year"], YEAR_CENTRES),
    ]
    block = np.hstack([normalize(part) for part in fields])
    return sp.csr_matrix(normalize(block), dtype=np.float32)


def content_features(
    games: pl.DataFrame,
    posts: pl.DataFrame | None = None,
    *,
    weights: BlockWeights | None = None,
    text_limit: int = TEXT_LIMIT,
) -> sp.csr_matrix:
    """The games×features CSR (float32, rows L2-normalised; a game without any feature is a zero row)."""
    weights = weights or BlockWeights()
    blocks = {
        "mechanics": _label_block(games, "mechanics"),
        "themes": _label_block(games, "themes"),
        "designers": _label_block(games, "designers"),
        "text": reduce_text(_text_block(game_texts(games, posts, limit=text_limit))),
        "specs": _specs_block(games),
    }
    scaled = [
        normalize(block) * np.float32(math.sqrt(getattr(weights, name)))
        for name, block in blocks.items()
        if block.shape[1] and getattr(weights, name) > 0
    ]
    log.info(
        "content features: %d games; %s",
        games.height,
        ", ".join(f"{name} {block.shape[1]}" for name, block in blocks.items()),
    )
    if not scaled:
        return sp.csr_matrix((games.height, 0), dtype=np.float32)
    stacked = sp.hstack(scaled, format="csr", dtype=np.float32)
    return sp.csr_matrix(normalize(stacked), dtype=np.float32)


@dataclass
class ContentModel:
    """Content features of a catalogue and the similarities they give.

    Row ``i`` of ``features`` is game ``game_ids[i]`` (``names[i]`` is what a member
    sees). Similarities are cosines in [0, 1] (features are non-negative).
    """

    game_ids: pl.Series
    names: pl.Series
    features: sp.csr_matrix
    weights: BlockWeights = field(default_factory=BlockWeights)
    _graphs: dict[int, sp.csr_matrix] = field(default_factory=dict, repr=False)
    _gram: GramRows | None = field(default=None, repr=False)

    @classmethod
    def fit(
        cls,
        games: pl.DataFrame,
        posts: pl.DataFrame | None = None,
        *,
        weights: BlockWeights | None = None,
        text_limit: int = TEXT_LIMIT,
    ) -> ContentModel:
        """Featurise ``games`` (one row per ``game_id``; later duplicates are dropped), in frame order."""
        weights = weights or BlockWeights()
        games = games.unique("game_id", keep="first", maintain_order=True)
        features = content_features(games, posts, weights=weights, text_limit=text_limit)
        return cls(
            game_ids=games.get_column("game_id").cast(pl.String).rename("game_id"),
            names=display_names(games).rename("name"),
            features=features,
            weights=weights,
        )

    @property
    def n_games(self) -> int:
        """Games in the catalogue."""
        return int(self.features.shape[0])

    def index_of(self, ids: pl.Series | list[str]) -> np.ndarray:
        """Row of each game id, -1 when the catalogue does not have it."""
        keys = pl.Series("key", ids).cast(pl.String)
        index = self.game_ids.to_frame("key").with_row_index("index")
        found = keys.to_frame().join(index, on="key", how="left", maintain_order="left")
        return found.get_column("index").fill_null(-1).cast(pl.Int64).to_numpy()

    def similarity_rows(self, item_idx: np.ndarray | Sequence[int]) -> np.ndarray:
        """Dense cosine rows ``(len(item_idx), n_games)`` (the game itself included)."""
        return self._gram_rows().rows(np.asarray(item_idx, dtype=np.int64))

    def _gram_rows(self) -> GramRows:
        """The product's split into dense frequent and sparse rare features, built once."""
        if self._gram is None:
            self._gram = GramRows(self.features)
            log.info("content similarity: %d of %d features multiplied densely",
                     self._gram.n_dense_columns, self.features.shape[1])
        return self._gram

    def pair_similarity(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Cosine of each pair ``(a[k], b[k])``, exactly, without any n×n work."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        if a.size == 0:
            return np.zeros(0, dtype=np.float32)
        product = self.features[a].multiply(self.features[b])
        return np.asarray(product.sum(axis=1), dtype=np.float32).ravel()

    def chunks(self) -> Iterator[np.ndarray]:
        """Row index blocks sized so one dense similarity block holds ``CHUNK_CELLS`` cells."""
        step = max(1, CHUNK_CELLS // max(self.n_games, 1))
        for start in range(0, self.n_games, step):
            yield np.arange(start, min(start + step, self.n_games))

    def similarity_topk(self, n: int = 50) -> tuple[np.ndarray, np.ndarray]:
        """Each game's ``n`` most similar other games, best first, computed in row chunks.

        Returns ``(idx, scores)`` of shape ``(n_games, n)``; only positive similarities
        count, the rest is padded with ``-1`` / ``-inf`` (as ``Recommender.recommend``).
        Ties go to the lower row, so the result is reproducible.
        """
        ids = np.full((self.n_games, n), -1, dtype=np.int64)
        values = np.full((self.n_games, n), -np.inf, dtype=np.float32)
        for rows in self.chunks():
            sims = self.similarity_rows(rows)
            sims[np.arange(rows.size), rows] = -np.inf
            sims[sims <= 0] = -np.inf
            ids[rows], values[rows] = top_n(sims, n)
        return ids, values

    def neighbours(self, n: int = 200) -> sp.csr_matrix:
        """``similarity_topk(n)`` as a sparse games×games graph (cached per ``n``).

        Row ``i`` holds game ``i``'s ``n`` nearest games with their cosines. Scoring
        members through this graph costs one sparse product instead of a pass over
        every feature; the similarities it leaves out are the smallest ones, which
        cannot lift a game into anyone's top list.
        """
        if n not in self._graphs:
            ids, values = self.similarity_topk(n)
            self._graphs[n] = topk_graph(ids, values, self.n_games)
        return self._graphs[n]

    def similar_frame(self, n: int = 10) -> pl.DataFrame:
        """``game_id``, ``rank`` (1…), ``similar_game_id``, ``score``: content only."""
        ids, values = self.similarity_topk(n)
        return topk_frame(self.game_ids, ids, values, self.game_ids, key="game_id", value="similar_game_id")

    def scores_for(
        self,
        liked: sp.spmatrix | Sequence[tuple[int, float]],
        *,
        neighbours: int | None = None,
    ) -> np.ndarray:
        """Weighted mean similarity of every game to each member's liked games.

        ``liked`` is a members×games sparse matrix of weights (one row per member) or,
        for one member, a list of ``(game_idx, weight)``; the result is dense
        ``(members, n_games)`` (or ``(n_games,)`` for a list). The mean, not the sum,
        keeps the score in [0, 1] whatever the size of a collection, so it can be blended
        with other normalised scores.

        Exact by default (features of the liked games against the catalogue: cheap for a
        few members); with ``neighbours=k`` each liked game contributes only its ``k``
        nearest games (``neighbours(k)``), which is how whole populations are scored.
        """
        single = not sp.issparse(liked)
        if single:
            pairs = list(liked)  # type: ignore[arg-type]
            cols = np.asarray([int(game) for game, _ in pairs], dtype=np.int64)
            data = np.asarray([float(weight) for _, weight in pairs], dtype=np.float32)
            matrix = sp.csr_matrix(
                (data, (np.zeros(cols.size, dtype=np.int64), cols)), shape=(1, self.n_games)
            )
        else:
            matrix = sp.csr_matrix(liked, dtype=np.float32)
        totals = np.asarray(matrix.sum(axis=1), dtype=np.float32).ravel()
        if neighbours is not None:
            scores = np.asarray((matrix @ self.neighbours(neighbours)).toarray(), dtype=np.float32)
        else:
            used = np.unique(matrix.indices)
            scores = np.zeros(matrix.shape, dtype=np.float32)
            if used.size:
                scores = np.asarray(matrix[:, used] @ self.similarity_rows(used), dtype=np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.where(totals[:, None] > 0, scores / totals[:, None], 0.0).astype(np.float32)
        return scores[0] if single else scores

    def save(self, directory: str | Path) -> Path:
        """Write ``CONTENT_FILES``: the feature matrix, ids and names, and the block weights."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        sp.save_npz(directory / "content_features.npz", self.features)
        pl.DataFrame({"game_id": self.game_ids, "name": self.names}).with_row_index("row").write_parquet(
            directory / "content_games.parquet"
        )
        (directory / "content.json").write_text(
            json.dumps({"weights": self.weights.to_dict()}, ensure_ascii=False, indent=2),
            encoding="utf-8",
        )
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> ContentModel:
        """Read what ``save`` wrote."""
        directory = Path(directory)
        games = pl.read_parquet(directory / "content_games.parquet").sort("row")
        meta = json.loads((directory / "content.json").read_text(encoding="utf-8"))
        return cls(
            game_ids=games.get_column("game_id"),
            names=games.get_column("name"),
            features=sp.load_npz(directory / "content_features.npz").tocsr().astype(np.float32),
            weights=BlockWeights(**meta["weights"]),
        )


def topk_graph(ids: np.ndarray, values: np.ndarray, n_cols: int) -> sp.csr_matrix:
    """Top-k lists (padded with -1) as a sparse rows×``n_cols`` matrix of their scores."""
    keep = ids >= 0
    rows = np.repeat(np.arange(ids.shape[0]), keep.sum(axis=1))
    return sp.csr_matrix(
        (values[keep].astype(np.float32), (rows, ids[keep])), shape=(ids.shape[0], n_cols), dtype=np.float32
    )


def topk_frame(
    row_ids: pl.Series,
    ids: np.ndarray,
    values: np.ndarray,
    col_ids: pl.Series,
    *,
    key: str,
    value: str,
) -> pl.DataFrame:
    """Long frame ``key``, ``rank`` (1…), ``value``, ``score`` of top-k lists (padding dropped)."""
    keep = ids >= 0
    row_index = np.repeat(np.arange(ids.shape[0]), ids.shape[1]).reshape(ids.shape)[keep]
    rank = np.broadcast_to(np.arange(1, ids.shape[1] + 1), ids.shape)[keep]
    return pl.DataFrame(
        {
            key: row_ids.cast(pl.String).gather(row_index),
            "rank": pl.Series(rank, dtype=pl.Int32),
            value: col_ids.cast(pl.String).gather(ids[keep]),
            "score": pl.Series(values[keep], dtype=pl.Float64),
        }
    )
