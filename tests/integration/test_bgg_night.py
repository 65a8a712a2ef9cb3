"""The night's BGG stage: skipped unless configured, never failing the night, reported either way.

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/e2e/test_bgg_night.py,
tests/unit/test_bgg_night.py.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from dagster_duckdb import DuckDBResource

from pipelines.defs.bgg.assets import bgg_raw_tables
from pipelines.defs.bgg.resources import BggSettings
from pipelines.defs.resources import NightlyLock

TOKEN = "night-test-token-9e9e"


def _links(tmp_path: Path) -> Path:
    path = tmp_path / "links.csv"
    path.write_text("user_id,bgg_user\nu2,bob\n", encoding="utf-8")
    return path


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


def test_the_resource_is_settings_as_text_without_the_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its fields are `core.settings` fields, parsed with their checks; the token is none of
    them; a malformed value (`dg dev` on its own) is a failed BGG outcome, not a failed night."""
    from core.settings import default
    from pipelines.defs.bgg.resources import bgg_resources

    monkeypatch.setenv("BODOGE_BGG_TOKEN", TOKEN)
    for name in ("BODOGE_BGG_API_URL", "BODOGE_BGG_DELAY", "BODOGE_BGG_LINKS"):
        monkeypatch.delenv(name, raising=False)
    bgg = bgg_resources().resources["bgg"]
    assert not [name for name in BggSettings.model_fields if "token" in name] and TOKEN not in repr(bgg)
    parsed = bgg.settings()
    assert (parsed.bgg_api_url, parsed.bgg_delay) == (default("bgg_api_url"), default("bgg_delay"))
    assert parsed.bgg_links is None
    result = _materialize(tmp_path, "http://127.0.0.1:9", delay="soon")
    details = {m.metadata["bgg/detail"].value for m in result.asset_materializations_for_node("bgg_raw_tables")}
    assert result.success and _statuses(result) == {"failed"}
    assert details == {"BODOGE_BGG_DELAY must be a number of seconds from 0 to 3600, not 'soon'"}
