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
  Player counts become "playable with N" tokens (2–4人 → 2, 3, 4). Unpublished and
  implausible values (1人～65536人) are unknown, as ``marts.games``' filter columns
  say (``models.specs``).

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

from models.base import top_n
from models.fast.pairwise import csr_row_dots
from models.ids import IdIndex
from models.similarity import GramRows, reduce_text
from models.sklearn_lazy import normalize, tfidf_vectorizer
from models.specs import specs_block
from models.threads import map_blocks

log = logging.getLogger("bodoge.models")

TEXT_LIMIT = 2_000
"""Characters of rule/review text kept per game (posts are long; the first part of the
rules says what the game is, the rest is detail that adds noise and cost)."""

CHUNK_CELLS = 1 << 22
"""Dense similarity cells computed at once (4M float32 = 16 MB)."""

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
    vectorizer = tfidf_vectorizer(analyzer=_labels, lowercase=False, dtype=np.float32)
    # The analyzer receives each document (already a list of labels) as is.
    return sp.csr_matrix(vectorizer.fit_transform(docs), dtype=np.float32)


def _text_block(texts: pl.Series) -> sp.csr_matrix:
    """TF-IDF over character 2–3-grams; empty when the catalogue is too small for min_df=2."""
    vectorizer = tfidf_vectorizer(
        analyzer="char_wb", ngram_range=(2, 3), sublinear_tf=True, min_df=2, dtype=np.float32
    )
    try:
        return sp.csr_matrix(vectorizer.fit_transform(texts.to_list()), dtype=np.float32)
    except ValueError:  # empty vocabulary: fewer than two games share any n-gram
        return sp.csr_matrix((texts.len(), 0), dtype=np.float32)


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
        "specs": specs_block(games),
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
    _sorted: sp.csr_matrix | None = field(default=None, repr=False)
    _finite: bool = field(default=True, repr=False)
    _ids: IdIndex | None = field(default=None, repr=False)

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
        if self._ids is None:
            self._ids = IdIndex(self.game_ids)
        return self._ids.positions(ids)

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
        """Cosine of each pair ``(a[k], b[k])``, exactly, without any n×n work.

        Compiled (``models.fast.pairwise.csr_row_dots``, the same float32 sums as scipy's
        row products of the same rows): the reasons ask for up to millions of pairs a
        night (a listed game the champion cannot attribute is anchored on the member's
        nearest liked game), and scipy's copies of both rows per pair were three
        quarters of the watch-list shelf at 400,000 members. The rows are read with
        their features in column order (a sorted copy, made once), so a cosine may
        differ in its last bit from scipy's on the unsorted rows, never more."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        if a.size == 0:
            return np.zeros(0, dtype=np.float32)
        features = self._sorted_features()
        if not self._finite:  # scipy's products of inf or NaN with a missing column
            return np.asarray(features[a].multiply(features[b]).sum(axis=1), dtype=np.float32).ravel()
        return csr_row_dots(features.indptr, features.indices, features.data, features.shape[1], a, b)

    def _sorted_features(self) -> sp.csr_matrix:
        """``features`` as canonical float32 CSR (column order, no duplicates), made once."""
        if self._sorted is None:
            features = sp.csr_matrix(self.features, dtype=np.float32, copy=True)
            features.sum_duplicates()  # sorts the indices too
            self._finite = bool(np.isfinite(features.data).all())
            self._sorted = features
        return self._sorted

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
        self._gram_rows()  # built once, before the blocks share it

        def block(rows: np.ndarray) -> None:
            sims = self.similarity_rows(rows)
            sims[np.arange(rows.size), rows] = -np.inf
            sims[sims <= 0] = -np.inf
            ids[rows], values[rows] = top_n(sims, n)

        map_blocks(block, self.chunks())  # each block its own rows: the same arrays as in turn
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
