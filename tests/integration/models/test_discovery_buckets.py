"""Member buckets give the unpartitioned night's tables bit for bit: discovery (welcome lists
too), both shelves and similar games, for every kind of champion the engine tests cover, in
one bucket and in four.

On the demo's site (``bodoge demo``: 1,000 games, 2,000 members). The unpartitioned side is
``discover_interactions`` (everyone ranked in one call, as the night did before buckets),
written with ``insert_by_name``; the bucketed side fits and saves the model once
(``fit_night_model``), reads it back, ranks each bucket apart (``rank_bucket``), writes each
bucket's Parquet files and appends them (``warehouse.buckets``). Both into real DuckDB files,
compared row by row, every column. The Dagster night with buckets: tests/e2e/test_buckets_night.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl
import pytest

from models.content import ContentModel
from models.discovery.buckets import bucket_keys, bucket_of, fit_night_model, rank_bucket
from models.discovery.run import ChampionFit, discover_interactions
from models.discovery.store import load_state
from warehouse.buckets import BUCKET_TABLES, append_buckets, night_folder, write_bucket, write_similar
from warehouse.db import insert_by_name

from tests.support.champions import CHAMPIONS

GENERATED_AT = datetime(2026, 11, 28, 3, 0, 7, 123456, tzinfo=timezone.utc)
NEWCOMERS = [f"newcomer-{i}" for i in range(7)]
"""Public members without a collection row: each gets a welcome list, in whichever bucket."""
TABLES = (*BUCKET_TABLES, "similar_games")


@pytest.fixture(scope="module")
def site(demo_site):
    rows, catalog, users = demo_site
    return rows, ContentModel.fit(catalog, None), users


def _table(path: Path, table: str) -> pl.DataFrame:
    keys = "game_id, rank" if table == "similar_games" else "user_id, rank"
    with duckdb.connect(str(path), read_only=True) as con:
        return con.sql(f"SELECT * FROM marts.{table} ORDER BY {keys}").pl()


def _unpartitioned(site, champion: str, path: Path) -> None:
    rows, content, users = site
    result = discover_interactions(interactions=rows, content=content, champion=champion,
                                   params=CHAMPIONS[champion], weighting="graded", run_id="run-1",
                                   generated_at=GENERATED_AT, members=sorted(users + NEWCOMERS))
    welcome = pl.col("user_id").is_in(pl.Series(result.welcome, dtype=pl.String).implode()).alias("welcome")
    night = pl.lit("night-1").alias("night_id")
    with duckdb.connect(str(path)) as con:
        insert_by_name(con, "recommendations", result.recommendations.with_columns(night, welcome))
        insert_by_name(con, "similar_games", result.similar_games.with_columns(night))
        insert_by_name(con, "next_to_play", result.next_to_play)
        insert_by_name(con, "watch_next", result.watch_next)


def _bucketed(site, champion: str, work: Path) -> dict[int, Path]:
    """The model fitted and saved once, then ranked in one bucket and in four from what was
    saved (each bucket's process reads the same files); each bucketing's warehouse file."""
    rows, content, users = site
    fit = ChampionFit(champion=champion, params=CHAMPIONS[champion], weighting="graded")
    similar, _ = fit_night_model(interactions=rows, content=content, fit=fit, run_id="run-1",
                                 generated_at=GENERATED_AT, model_dir=work / "champion")
    state, meta = load_state(work / "champion", engine="compiled")  # as each bucket's process reads it
    paths = {}
    for n_buckets in (1, 4):
        folder = night_folder(work / f"buckets-{n_buckets}", "run-1")
        write_similar(folder, similar)
        for key in bucket_keys(n_buckets):
            lists = rank_bucket(state, meta, bucket=int(key), n_buckets=n_buckets,
                                members=sorted(users + NEWCOMERS), hints=None)
            welcome = pl.col("user_id").is_in(pl.Series(lists.welcome, dtype=pl.String).implode()).alias("welcome")
            write_bucket(folder, key, {"recommendations": lists.recommendations.with_columns(welcome),
                                       "next_to_play": lists.next_to_play, "watch_next": lists.watch_next})
        paths[n_buckets] = work / f"night-{n_buckets}.duckdb"
        with duckdb.connect(str(paths[n_buckets])) as con:
            append_buckets(con, folder, bucket_keys(n_buckets), night_id="night-1")
    return paths


@pytest.mark.parametrize("champion", sorted(CHAMPIONS))
def test_buckets_give_the_unpartitioned_tables(site, champion: str, tmp_path: Path) -> None:
    _unpartitioned(site, champion, tmp_path / "one.duckdb")
    expected = {table: _table(tmp_path / "one.duckdb", table) for table in TABLES}
    assert expected["recommendations"].height > 100_000 and expected["similar_games"].height > 0
    assert expected["recommendations"].filter(pl.col("welcome")).get_column("user_id").n_unique() >= len(NEWCOMERS)
    assert expected["next_to_play"].height > 0 and expected["watch_next"].height > 0
    for n_buckets, path in _bucketed(site, champion, tmp_path / "bucketed").items():
        for table in TABLES:
            got = _table(path, table)
            assert got.equals(expected[table]), f"{champion}: {table} in {n_buckets} buckets differs"
    members = expected["recommendations"].get_column("user_id").unique().to_list()
    assert {bucket_of(u, 4) for u in members} == {0, 1, 2, 3}  # every bucket held members


def test_a_members_bucket_is_the_same_in_every_process() -> None:
    """Not Python's ``hash`` (salted per process): two interpreters with different hash seeds
    put every member in the same bucket as this one does."""
    ids = [f"u{i:05d}" for i in range(200)] + ["alice", "ゲーマー"]
    code = ("import sys, json; from models.discovery.buckets import bucket_of; "
            "print(json.dumps([bucket_of(u, 7) for u in json.loads(sys.stdin.read())]))")
    here = [bucket_of(u, 7) for u in ids]
    assert len(set(here)) == 7  # spread over every bucket
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], input=json.dumps(ids), text=True,
                             capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert json.loads(out.stdout) == here
