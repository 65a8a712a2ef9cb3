"""The night's BGG stage: skipped unless configured, never failing the night, reported either way.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_bgg_night.py, tests/integration/test_bgg_night.py.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipelines.defs.bgg.assets import BGG_RAW
from scrapers.bgg_sync import night_sync


def _links(tmp_path: Path) -> Path:
    path = tmp_path / "links.csv"
    path.write_text("user_id,bgg_user\nu2,bob\n", encoding="utf-8")
    return path


def test_without_links_or_token_the_stage_is_skipped(tmp_path: Path) -> None:
    skipped = night_sync(warehouse=tmp_path / "w.duckdb", links_file="", api_url="http://127.0.0.1:9", env={})
    assert (skipped.status, skipped.detail) == ("skipped", "no links file (BODOGE_BGG_LINKS)")
    no_token = night_sync(warehouse=tmp_path / "w.duckdb", links_file=str(_links(tmp_path)),
                          api_url="http://127.0.0.1:9", env={})
    assert no_token.status == "skipped" and "no BoardGameGeek token" in no_token.detail
    assert not (tmp_path / "w.duckdb").exists()


def test_the_stage_is_part_of_the_definitions_and_owns_the_bgg_raw_tables() -> None:
    from pipelines.definitions import defs

    loaded = defs()
    for name in BGG_RAW:
        assert loaded.resolve_assets_def(dg.AssetKey(["raw", name])).node_def.name == "bgg_raw_tables"
    assert loaded.resolve_assets_def(dg.AssetKey(["raw", "games"])).node_def.name != "bgg_raw_tables"
    assert loaded.resolve_assets_def(dg.AssetKey(["marts", "bgg_games"]))
