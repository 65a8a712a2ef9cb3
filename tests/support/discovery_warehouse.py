"""A demo warehouse for the discovery commands: a generated site written through the raw
writer, built into marts, then the night's discovery (recommendations, play next, the watch
list, similar games) written and its model saved where `bodoge recommend` looks (DATA_DIR/models/champion).

`shared_discovery_warehouse` builds it once per test session for every file that only reads it
(six files read the same one; `tests/support/built_once.py`). A test that writes copies the
data directory first.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from core.config import resolve_paths
from models.discovery.run import discover
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from tests.support.built_once import built_once
from warehouse.build import build_all
from warehouse.db import connect
from warehouse.release.publish import publish_snapshot
from warehouse.model_marts import replace_table
from warehouse.raw import RawWriter

RUN_ID = "run-demo"


def build_discovery_warehouse(data_dir: Path, *, n_games: int = 150, n_users: int = 200, seed: int = 11,
                              welcome: bool = False) -> dict:
    """Returns the paths and the site's truth frames (with its private members). `welcome`: every
    public member gets a list, as a night gives them (welcome lists: `models.discovery.welcome`)."""
    site = generate_site(n_games=n_games, n_users=n_users, seed=seed)
    frames = truth_frames(site)
    paths = resolve_paths(data_dir=data_dir)
    paths.warehouse.parent.mkdir(parents=True, exist_ok=True)
    with connect(paths.warehouse) as con:
        w = RawWriter(con, run_id="crawl-1")
        w.start_run(base_url="http://127.0.0.1:1")
        for row in frames["games"].iter_rows(named=True):
            w.add("game", row)
        entries = frames["collections"]
        for row in entries.iter_rows(named=True):
            w.add("collection_entry", row)
        counts = dict(entries.group_by("user_id").len().iter_rows())
        for row in frames["members"].iter_rows(named=True):
            w.add("member", row)
            n = int(counts.get(row["user_id"], 0))
            w.add("listing_crawl", {"listing": "collection", "key": row["user_id"],
                                    "status": "public" if n else "empty", "n_entries": n, "n_pages": 1})
        for row in frames["cafe_games"].iter_rows(named=True):
            w.add("cafe_game", row)
        w.flush()
        w.finish_run(status="finished", stats={})
        build_all(con)
        collections = con.sql("SELECT * FROM marts.collections").pl()
        games = con.sql("SELECT * FROM marts.games").pl()
        result = discover(
            collections=collections, games=games, posts=None, champion="ease", params={}, weighting="graded",
            run_id=RUN_ID, generated_at=datetime(2026, 11, 1, 3, 0, tzinfo=timezone.utc),
            model_dir=paths.models / "champion",
            **({"members": con.sql("SELECT user_id FROM marts.members").pl().get_column("user_id").to_list()}
               if welcome else {}),
        )
        flag = pl.col("user_id").is_in(pl.Series(result.welcome, dtype=pl.String).implode()).alias("welcome")
        replace_table(con, "recommendations", result.recommendations.with_columns(flag))
        replace_table(con, "similar_games", result.similar_games)
        replace_table(con, "next_to_play", result.next_to_play)
        replace_table(con, "watch_next", result.watch_next)
        publish_snapshot(con, paths.data_dir, run_id=RUN_ID)  # what the member commands read
    return {"paths": paths, "frames": frames, "welcome": result.welcome, "private": frames["private_users"].get_column("user_id").to_list(),
            "collections": collections, "games": games, "cafes": frames["cafe_games"]}


def shared_discovery_warehouse(factory: pytest.TempPathFactory) -> dict:
    """`build_discovery_warehouse` with its default site, built once per test run for every
    file that only reads it (`tests/support/built_once.py`); a test that writes copies it."""
    return built_once(factory, "discovery-warehouse", lambda folder: build_discovery_warehouse(folder / "data"))


def rows_of(frame: pl.DataFrame, users: list[str]) -> pl.DataFrame:
    return frame.filter(pl.col("user_id").is_in(users))
