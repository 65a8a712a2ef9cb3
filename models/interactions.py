"""Interaction files, normalising them, and the users×games matrix of confidences.

An interaction row says that a member has a game (持ってる ``have``), has played it
(経験あり ``played``), likes it (お気に入り ``favorite``) or watches it (興味あり
``watching``), with an optional 1–5 star ``rating``. A row with none of the flags still
counts as one interaction (files exported from elsewhere often carry only ids and a
rating). Ids are kept as strings whatever the file holds, so ``7`` and ``"7"`` are the
same member.

The confidence weighting that turns each row into one positive number is
``models.weighting``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.ids import IdIndex
from models.weighting import (
    FLAGS,
    ConfidenceWeights,
    latest_time,
    time_expr,
    with_confidence,
)

log = logging.getLogger("bodoge.models")

_TRUTHY = ["1", "true", "t", "yes", "y"]


class InteractionsError(ValueError):
    """Bad interaction input; the message is one line, fit for a CLI error."""


def read_times(path: str | Path) -> pl.DataFrame:
    """``user_id``, ``game_id``, ``updated_at`` (UTC) of an interaction file that ``read_interactions``
    accepted: what a forward split cuts by (``InteractionsError`` without the column or a time)."""
    path = Path(path)
    lazy = pl.scan_parquet(path) if path.suffix.lower() in {".parquet", ".pq"} else pl.scan_csv(
        path, schema_overrides={"user_id": pl.String, "game_id": pl.String}, infer_schema_length=10_000)
    if "updated_at" not in lazy.collect_schema().names():
        raise InteractionsError(f"a forward split needs an updated_at column in {path}")
    try:
        times = lazy.select(pl.col("user_id").cast(pl.String).str.strip_chars(),
                            pl.col("game_id").cast(pl.String).str.strip_chars(),
                            time_expr(lazy.collect_schema()["updated_at"])).collect()
    except Exception as error:  # polars raises many kinds; the CLI needs one line
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InteractionsError(f"could not read the times of {path}: {first_line}") from error
    times = times.group_by("user_id", "game_id").agg(pl.col("updated_at").max())
    if times.get_column("updated_at").null_count() == times.height:
        raise InteractionsError(f"a forward split needs times: no readable updated_at in {path}")
    return times


def read_interactions(path: str | Path) -> pl.DataFrame:
    """Read and normalise an interaction file (``.parquet``/``.pq`` or ``.csv``).

    Raises ``InteractionsError`` (one line) when the file is missing, has an unknown
    extension, cannot be read, or lacks ``user_id``/``game_id``.
    """
    path = Path(path)
    if not path.is_file():
        raise InteractionsError(f"interaction file not found: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix in {".parquet", ".pq"}:
            lazy = pl.scan_parquet(path)
        elif suffix == ".csv":
            lazy = pl.scan_csv(
                path,
                schema_overrides={"user_id": pl.String, "game_id": pl.String},
                infer_schema_length=10_000,
            )
        else:
            raise InteractionsError(
                f"unsupported interaction file type {suffix or '(none)'!r}: {path} (use .parquet or .csv)"
            )
        schema = lazy.collect_schema()
        _require_ids(schema.names(), path)
        frame = lazy.collect()
    except InteractionsError:
        raise
    except Exception as error:  # polars raises many kinds; the CLI needs one line
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InteractionsError(f"could not read interaction file {path}: {first_line}") from error
    check_values(frame, source=str(path))
    return normalise_interactions(frame, source=str(path))


def check_values(frame: pl.DataFrame, *, source: str) -> None:
    """Refuse a file whose ratings or flags are not what the contract says they are.

    A ``rating`` is a whole number 1–5 or empty; a flag (``have``, ``played``, ``favorite``,
    ``watching``) is 0/1, true/false or empty. Why strict: a lenient cast would turn
    ``five`` into "unrated" and ``maybe`` into "no", and score a model on data nobody
    had written. The error names the file, the column, the row (1 = the first
    row after a CSV header) and the first bad value.
    """
    checks: dict[str, Callable[[str, pl.DataType], pl.Expr]] = {"rating": _bad_rating}
    checks |= {flag: _bad_flag for flag in FLAGS}
    for column, is_bad in checks.items():
        if column not in frame.columns:
            continue
        dtype = frame.schema[column]
        bad = frame.select(column).with_row_index("row", offset=1).filter(is_bad(column, dtype))
        if bad.height:
            row, value = bad.row(0)
            expected = "a whole number 1-5, or empty" if column == "rating" else "0/1, true/false, or empty"
            raise InteractionsError(
                f"{source}: column {column}, row {row}: {value!r} is not valid ({expected}); "
                f"{bad.height:,} bad value(s) in all"
            )


def _blank_or_null(column: pl.Expr) -> pl.Expr:
    return column.is_null() | (column.cast(pl.String).str.strip_chars() == "")


def _bad_rating(name: str, dtype: pl.DataType) -> pl.Expr:
    column = pl.col(name)
    if dtype.is_numeric():
        number = column.cast(pl.Float64)  # NaN is how pandas writes "missing": empty
        whole = (number >= 1) & (number <= 5) & (number == number.floor())
        return ~(column.is_null() | number.is_nan() | whole)
    if dtype == pl.String:
        return ~(_blank_or_null(column) | column.str.strip_chars().str.contains(r"^[1-5](\.0*)?$"))
    return ~column.is_null()


def _bad_flag(name: str, dtype: pl.DataType) -> pl.Expr:
    column = pl.col(name)
    if dtype == pl.Boolean:
        return pl.lit(False)
    if dtype.is_numeric():
        return ~(column.is_null() | column.cast(pl.Float64).is_in([0.0, 1.0]))
    if dtype == pl.String:
        text = column.str.strip_chars().str.to_lowercase()
        return ~(_blank_or_null(column) | text.is_in(["0", "1", "true", "false"]))
    return ~column.is_null()


def _require_ids(columns: list[str], source: object) -> None:
    missing = [name for name in ("user_id", "game_id") if name not in columns]
    if missing:
        raise InteractionsError(f"{source} lacks column(s) {', '.join(missing)}")


def _flag_expr(name: str, dtype: pl.DataType | None) -> pl.Expr:
    """0/1, booleans or true/false strings as a boolean; absent or null is False."""
    if dtype is None:
        return pl.lit(False).alias(name)
    column = pl.col(name)
    if dtype == pl.Boolean:
        value = column
    elif dtype.is_numeric():
        value = column != 0
    else:
        value = column.cast(pl.String).str.strip_chars().str.to_lowercase().is_in(_TRUTHY)
    return value.fill_null(False).alias(name)


SMALL_FRAME = 10_000
"""Up to this many rows ``normalise_interactions`` runs on Polars' in-memory engine: its
streaming engine (what "auto" picks for a group-by) costs ~0.5 ms more on a fold-in's one
member (the same rows either way)."""


def normalise_interactions(frame: pl.DataFrame, *, source: str = "interactions") -> pl.DataFrame:
    """Validate an in-memory interaction frame and give it the canonical shape.

    Returns one row per (``user_id``, ``game_id``), both strings, with boolean flags and a
    ``rating`` that is Float64 in 1–5 or null. Duplicate rows merge (a flag is set if any
    row sets it; ratings average). Rows with a null or empty id are dropped. Ratings of 0
    or below mean "unrated"; others are clipped into 1–5 (so half-star scales still work).
    An ``updated_at`` column (a timestamp, or ISO text with an offset) is kept as UTC, the
    latest of merged rows: what recency weighting and the time splits read.
    """
    _require_ids(frame.columns, source)
    schema = frame.schema
    try:
        rating = (
            pl.col("rating").cast(pl.Float64, strict=False)
            if "rating" in schema
            else pl.lit(None, dtype=pl.Float64)
        )
        shaped = frame.lazy().select(
            pl.col("user_id").cast(pl.String).str.strip_chars(),
            pl.col("game_id").cast(pl.String).str.strip_chars(),
            *[_flag_expr(flag, schema.get(flag)) for flag in FLAGS],
            pl.when(rating > 0).then(rating.clip(1.0, 5.0)).otherwise(None).alias("rating"),
            *([time_expr(schema["updated_at"])] if "updated_at" in schema else []),
        )
        cleaned = (
            shaped.filter(
                pl.col("user_id").is_not_null()
                & pl.col("game_id").is_not_null()
                & (pl.col("user_id") != "")
                & (pl.col("game_id") != "")
            )
            .group_by("user_id", "game_id")
            .agg(*[pl.col(flag).any() for flag in FLAGS], pl.col("rating").mean(),
                 *([pl.col("updated_at").max()] if "updated_at" in schema else []))
            .sort("user_id", "game_id")
            .collect(engine="in-memory" if frame.height <= SMALL_FRAME else "auto")
        )
    except pl.exceptions.PolarsError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InteractionsError(f"could not read interactions from {source}: {first_line}") from error
    dropped = frame.height - cleaned.height
    if dropped:
        log.info("%s: %d rows merged or dropped (duplicates, empty ids)", source, dropped)
    return cleaned


def _confidences(values: np.ndarray, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """The float32 CSR of confidences at (row, col), duplicates summed, indices sorted."""
    matrix = sp.csr_matrix((values.astype(np.float32), (rows, cols)), shape=shape, dtype=np.float32)
    matrix.sum_duplicates()
    matrix.sort_indices()
    return matrix


@dataclass
class InteractionMatrix:
    """A users×games CSR of confidences and the id mappings that give it meaning.

    Row ``r`` is member ``user_ids[r]``; column ``c`` is game ``game_ids[c]``. The
    mappings travel with the matrix (and with every model fitted on it) so that a score
    is never attached to the wrong id.
    """

    matrix: sp.csr_matrix
    user_ids: pl.Series
    game_ids: pl.Series
    as_of: datetime | None = None
    """The moment a recency weighting counted ages back from (None: no recency). A member
    folded in later (``with_members``) is weighted from the same moment, so their unchanged
    rows get the confidences the night gave them."""

    @classmethod
    def from_frame(
        cls,
        frame: pl.DataFrame,
        weights: ConfidenceWeights | None = None,
        *,
        user_ids: pl.Series | None = None,
        game_ids: pl.Series | None = None,
        as_of: datetime | None = None,
    ) -> InteractionMatrix:
        """Build the matrix from a normalised frame.

        Pass ``user_ids``/``game_ids`` to reuse existing mappings (rows whose ids are not
        in them are dropped); otherwise the sorted distinct ids are used, which makes the
        layout independent of row order. A recency weighting counts ages back from
        ``as_of``, or from the frame's latest ``updated_at``.
        """
        weights = weights or ConfidenceWeights()
        if weights.half_life_days is not None and as_of is None:
            as_of = latest_time(frame)
        elif weights.half_life_days is None:
            as_of = None
        if user_ids is None:
            user_ids = frame.get_column("user_id").unique().sort()
        if game_ids is None:
            game_ids = frame.get_column("game_id").unique().sort()
        user_ids = user_ids.cast(pl.String).rename("user_id")
        game_ids = game_ids.cast(pl.String).rename("game_id")
        coded = (
            with_confidence(frame, weights, as_of=as_of)
            .join(user_ids.to_frame().with_row_index("row"), on="user_id", how="inner")
            .join(game_ids.to_frame().with_row_index("col"), on="game_id", how="inner")
        )
        matrix = _confidences(coded.get_column("confidence").to_numpy(), coded.get_column("row").to_numpy(),
                              coded.get_column("col").to_numpy(), (user_ids.len(), game_ids.len()))
        return cls(matrix=matrix, user_ids=user_ids, game_ids=game_ids, as_of=as_of)

    def with_members(self, frame: pl.DataFrame, weights: ConfidenceWeights) -> InteractionMatrix:
        """``from_frame(frame, weights, game_ids=self.game_ids)``: the members of ``frame``
        over this matrix's games, found by this matrix's index of them. Why: a fold-in
        builds one member's row per request, and joining it with every game (twice: the
        game ids, then their positions) cost more than scoring it."""
        user_ids = frame.get_column("user_id").unique().sort().cast(pl.String).rename("user_id")
        coded = with_confidence(frame, weights, as_of=self.as_of)
        rows = IdIndex(user_ids).positions(coded.get_column("user_id"))
        cols = self._game_index.positions(coded.get_column("game_id"))
        keep = (rows >= 0) & (cols >= 0)
        matrix = _confidences(coded.get_column("confidence").to_numpy()[keep], rows[keep], cols[keep],
                              (user_ids.len(), self.shape[1]))
        folded = InteractionMatrix(matrix=matrix, user_ids=user_ids, game_ids=self.game_ids, as_of=self.as_of)
        folded.__dict__["_game_index"] = self._game_index  # the same games: share their index
        return folded

    @property
    def shape(self) -> tuple[int, int]:
        """(users, games)."""
        return self.matrix.shape

    def user_rows(self, ids: pl.Series | list[str]) -> np.ndarray:
        """Row index of each id, -1 for an id the matrix does not know."""
        return self._user_index.positions(ids)

    def game_cols(self, ids: pl.Series | list[str]) -> np.ndarray:
        """Column index of each id, -1 for an id the matrix does not know."""
        return self._game_index.positions(ids)

    @cached_property
    def _user_index(self) -> IdIndex:
        return IdIndex(self.user_ids)

    @cached_property
    def _game_index(self) -> IdIndex:
        return IdIndex(self.game_ids)

    def save(self, directory: str | Path) -> Path:
        """Write ``users.parquet``, ``games.parquet`` and ``matrix.npz`` (and ``as_of.json``
        with recency) into ``directory``."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        stamp = directory / "as_of.json"
        if self.as_of is not None:
            stamp.write_text(json.dumps({"as_of": self.as_of.isoformat()}), encoding="utf-8")
        else:
            stamp.unlink(missing_ok=True)
        self.user_ids.to_frame().with_row_index("row").write_parquet(directory / "users.parquet")
        self.game_ids.to_frame().with_row_index("col").write_parquet(directory / "games.parquet")
        sp.save_npz(directory / "matrix.npz", self.matrix)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> InteractionMatrix:
        """Read what ``save`` wrote."""
        directory = Path(directory)
        users = pl.read_parquet(directory / "users.parquet").sort("row").get_column("user_id")
        games = pl.read_parquet(directory / "games.parquet").sort("col").get_column("game_id")
        matrix = sp.load_npz(directory / "matrix.npz").tocsr().astype(np.float32)
        stamp = directory / "as_of.json"
        as_of = (datetime.fromisoformat(json.loads(stamp.read_text(encoding="utf-8"))["as_of"])
                 if stamp.is_file() else None)
        return cls(matrix=matrix, user_ids=users, game_ids=games, as_of=as_of)
