"""The night's BGG stage: skipped unless configured, never failing the night, reported either way."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import duckdb
import pytest
from dagster_duckdb import DuckDBResource

from pipelines.defs.bgg.assets import BGG_RAW, bgg_raw_tables
from pipelines.defs.bgg.resources import BggSettings
from pipelines.defs.resources import NightlyLock
from samplesite.bgg_replay import BggReplayServer
from scrapers.bgg_sync import night_sync

TOKEN = "night-test-token-9e9e"


def _links(tmp_path: Path) -> Path:
    path = tmp_path / "links.csv"
    path.write_text("user_id,bgg_user\nu2,bob\n", encoding="utf-8")
    return path


def test_a_refused_token_or_a_bad_links_file_is_reported_not_raised(tmp_path: Path) -> None:
    with BggReplayServer(token=TOKEN) as srv:
        refused = night_sync(warehouse=tmp_path / "w.duckdb", links_file=str(_links(tmp_path)), api_url=srv.api_url,
                             delay=0, env={"BODOGE_BGG_TOKEN": TOKEN + "-old"})
    assert refused.status == "failed" and "refused the token" in refused.detail and TOKEN not in refused.detail
    bad = tmp_path / "bad.csv"
    bad.write_text("nope\n", encoding="utf-8")
    broken = night_sync(warehouse=tmp_path / "w.duckdb", links_file=str(bad), api_url="http://127.0.0.1:9",
                        env={"BODOGE_BGG_TOKEN": TOKEN})
    assert broken.status == "failed" and "header user_id,bgg_user" in broken.detail


def _materialize(tmp_path: Path, api_url: str, delay: str = "0") -> dg.ExecuteInProcessResult:
    warehouse = tmp_path / "warehouse.duckdb"
    with dg.DagsterInstance.ephemeral() as instance:
        return dg.materialize([bgg_raw_tables], instance=instance, resources={
            "duckdb": DuckDBResource(database=str(warehouse)),
            "bgg": BggSettings(bgg_api_url=api_url, bgg_links=str(_links(tmp_path)), bgg_delay=delay),
            "nightly_lock": NightlyLock(data_dir=str(tmp_path), warehouse=str(warehouse)),
        })


def _statuses(result: dg.ExecuteInProcessResult) -> set[str]:
    return {m.metadata["bgg/status"].value for m in result.asset_materializations_for_node("bgg_raw_tables")}


def test_the_stage_syncs_when_configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BODOGE_BGG_TOKEN", TOKEN)
    with BggReplayServer(token=TOKEN) as srv:
        result = _materialize(tmp_path, srv.api_url)
    assert result.success and _statuses(result) == {"ok"}
    assert len(result.asset_materializations_for_node("bgg_raw_tables")) == len(BGG_RAW)
    with duckdb.connect(str(tmp_path / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM raw.bgg_things").fetchall() == [(1,)]


def test_a_bgg_failure_never_fails_the_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BODOGE_BGG_TOKEN", "revoked")
    with BggReplayServer(token=TOKEN) as srv:
        result = _materialize(tmp_path, srv.api_url)
    assert result.success and _statuses(result) == {"failed"}
