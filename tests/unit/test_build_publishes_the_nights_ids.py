"""`bodoge build` publishes its rebuilt marts as the night whose bundle exports/LATEST names, or
says plainly that it names none (issue 42: it published night_id and export_run_id NULL, so
published.duckdb and LATEST named different nights)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tests.support.warehouse_fixtures import make_warehouse
from warehouse.db import connect
from warehouse.nights import start_night
from warehouse.release.export import export_bundle
from warehouse.release.publish import publication, publish_snapshot, published_path
from warehouse.release.release import release_night, released_ids


def _publication(data_dir: Path) -> dict:
    with connect(published_path(data_dir), read_only=True) as con:
        return publication(con) or {}


def test_a_build_after_a_released_night_keeps_its_ids_and_agrees_with_latest(tmp_path: Path) -> None:
    wh = tmp_path / "warehouse.duckdb"
    make_warehouse(wh, "run-1")
    with connect(wh) as con:
        assert released_ids(con, tmp_path)[:2] == (None, None)  # nothing exported yet: says so
        assert "published without a night or a bundle: no night has exported" in released_ids(con, tmp_path)[2]
        start_night(con, night_id="night-1", job="nightly", started_at=datetime.now(timezone.utc))
        bundle = export_bundle(con, tmp_path / "exports")
        release_night(con, tmp_path, run_id="night-1", bundle_run_id=bundle.run_id)
        night_id, export_run_id, said = released_ids(con, tmp_path)
        assert (night_id, export_run_id) == ("night-1", "run-1") and "run-1" in said
        publish_snapshot(con, tmp_path, run_id="build-1", night_id=night_id, export_run_id=export_run_id)
    row = _publication(tmp_path)
    latest = (tmp_path / "exports" / "LATEST").read_text(encoding="utf-8").strip()
    assert (row["night_id"], row["export_run_id"], latest) == ("night-1", "run-1", "run-1")


def test_lists_that_are_not_latests_bundle_are_published_under_no_night(tmp_path: Path) -> None:
    wh = tmp_path / "warehouse.duckdb"
    make_warehouse(wh, "run-1")
    with connect(wh) as con:
        start_night(con, night_id="night-1", job="nightly", started_at=datetime.now(timezone.utc))
        release_night(con, tmp_path, run_id="night-1", bundle_run_id=export_bundle(con, tmp_path / "exports").run_id)
    make_warehouse(wh, "run-2")  # a later night ranked again, and failed before it released
    with connect(wh) as con:
        night_id, export_run_id, said = released_ids(con, tmp_path)
    assert (night_id, export_run_id) == (None, None)
    assert "the warehouse's lists (run-2) are not the bundle exports/LATEST names (run-1)" in said
