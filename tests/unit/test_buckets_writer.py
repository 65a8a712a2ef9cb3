"""The buckets' one writer (`warehouse.buckets`): every bucket appended in one transaction, in
(user_id, rank) order, or nothing when a bucket is missing (a real DuckDB file)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl
import pytest

from warehouse.buckets import BucketsMissing, append_buckets, missing_buckets, write_bucket, write_similar

AT = datetime(2026, 11, 28, 3, tzinfo=timezone.utc)


def _frames(users: list[str]) -> dict[str, pl.DataFrame]:
    lists = pl.DataFrame({"user_id": [u for u in users for _ in (1, 2)], "rank": [1, 2] * len(users),
                          "game_id": ["g1", "g2"] * len(users), "score": [0.9, 0.5] * len(users),
                          "reason": ["r", "r"] * len(users)}).with_columns(pl.col("rank").cast(pl.Int32))
    recs = lists.with_columns(pl.lit("ease").alias("model"), pl.lit("run").alias("run_id"),
                              pl.lit(AT).alias("generated_at"), pl.lit(False).alias("welcome"))
    shelf = lists.with_columns(pl.lit("run").alias("run_id"))
    return {"recommendations": recs, "next_to_play": shelf, "watch_next": shelf.head(0)}


def _similar() -> pl.DataFrame:
    return pl.DataFrame({"game_id": ["g1"], "rank": [1], "similar_game_id": ["g2"], "score": [0.5],
                         "run_id": ["run"]}).with_columns(pl.col("rank").cast(pl.Int32))


def test_every_bucket_is_appended_in_member_order(tmp_path: Path) -> None:
    folder = tmp_path / "night"
    write_bucket(folder, "00", _frames(["u3", "u1"]))
    write_bucket(folder, "01", _frames(["u2"]))
    write_similar(folder, _similar())
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        counts = append_buckets(con, folder, ["00", "01"], night_id="n1")
        rows = con.sql("SELECT user_id, rank, night_id FROM marts.recommendations").fetchall()
    assert counts == {"recommendations": 6, "next_to_play": 6, "watch_next": 0, "similar_games": 1}
    assert rows == [(u, r, "n1") for u in ("u1", "u2", "u3") for r in (1, 2)]


def test_a_missing_bucket_appends_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "night"
    write_bucket(folder, "00", _frames(["u1"]))
    write_similar(folder, _similar())
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        append_buckets(con, folder, ["00"], night_id="last night")
        (folder / ".01.writing-1").mkdir()  # a bucket killed while writing its files
        assert missing_buckets(folder, ["00", "01"]) == ["01"]
        with pytest.raises(BucketsMissing, match="01"):
            append_buckets(con, folder, ["00", "01"], night_id="tonight")
        nights = con.sql("SELECT DISTINCT night_id FROM marts.recommendations").fetchall()
    assert nights == [("last night",)]  # last night's lists, whole


def test_a_member_turning_private_removes_every_nights_buckets(tmp_path: Path) -> None:
    """The buckets hold members' lists: a member found private leaves them with the folder."""
    from warehouse.privacy.cut import cut_everywhere

    write_bucket(tmp_path / "buckets" / "run-1", "00", _frames(["u1", "u2"]))
    cut_everywhere(tmp_path, ["u1"])
    assert not (tmp_path / "buckets").exists()
