"""The recommender's lineage is what the asset graph shows (issue 24, "lineage you can see").

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/unit/test_recsys_lineage.py.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipelines.defs.recsys.assets import CHAMPION_CHOICE, CONTENT_MODEL, INTERACTIONS
from pipelines.defs.recsys.buckets import DISCOVERY_BUCKETS, FITTED_CHAMPION
from tests.support.discovery_warehouse import build_discovery_warehouse
from warehouse.db import connect


def _table(path: Path, name: str) -> pl.DataFrame:
    with connect(path, read_only=True) as con:  # DuckDB closes it on exit
        frame = con.sql(f"SELECT * FROM marts.{name}").pl().drop("generated_at", "night_id")
    return frame.sort(frame.columns)


def test_the_graph_hands_on_values_that_give_the_librarys_recommendations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from models.discovery.run import discover
    from warehouse.views import post_games
    from pipelines.definitions import defs

    built = build_discovery_warehouse(tmp_path / "data", n_games=50, n_users=70, seed=5)
    paths = built["paths"]
    monkeypatch.setenv("BODOGE_DATA_DIR", str(paths.data_dir))  # what the definitions' resources read
    monkeypatch.setenv("BODOGE_WAREHOUSE", str(paths.warehouse))
    d = defs()
    job = d.resolve_job_def("nightly")  # every member bucket in one run (its partition range)
    discovery_keys = [FITTED_CHAMPION, DISCOVERY_BUCKETS,
                      *d.resolve_assets_def(dg.AssetKey(["marts", "recommendations"])).keys]
    evaluation_keys = list(d.resolve_assets_def(CHAMPION_CHOICE).keys)
    with dg.DagsterInstance.ephemeral() as instance:
        night = job.execute_in_process(
            instance=instance, asset_selection=[INTERACTIONS, CONTENT_MODEL, *evaluation_keys, *discovery_keys])
        assert night.success
        first = _table(paths.warehouse, "recommendations")
        alone = job.execute_in_process(instance=instance, asset_selection=discovery_keys)
        assert alone.success
    models = paths.models
    assert {p.name for p in models.iterdir()} >= {"interactions.parquet", "content_model", "champion_choice.json"}
    assert not (models / "evaluation.json").exists()
    assert_frame_equal(_table(paths.warehouse, "recommendations"), first)

    choice = json.loads((models / "champion_choice.json").read_text(encoding="utf-8"))
    with connect(paths.warehouse, read_only=True) as con:
        collections = con.sql("SELECT * FROM marts.collections").pl()
        games = con.sql("SELECT * FROM marts.games").pl()
        posts = con.sql("SELECT game_id, post_kind, body FROM staging.stg_posts").pl()
        members = con.sql("SELECT user_id FROM marts.members ORDER BY user_id").pl().get_column("user_id").to_list()
        hints = post_games(con)
    library = discover(collections=collections, games=games, posts=posts, champion=choice["champion"],
                       params=choice["params"], weighting=choice["weighting"], run_id=choice["run_id"],
                       generated_at=datetime.now(timezone.utc), members=members, hints=hints)
    welcome = pl.col("user_id").is_in(pl.Series(library.welcome, dtype=pl.String).implode()).alias("welcome")
    expected = library.recommendations.drop("generated_at").with_columns(welcome)
    assert set(expected.get_column("user_id")) == set(members)  # a line for every public member
    assert_frame_equal(first, expected.sort(expected.columns), check_dtypes=False)
