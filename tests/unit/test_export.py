"""The export bundle: complete, checksummed, atomically published; the push: idempotent, retried."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from warehouse.db import connect
from warehouse.release.export import FILES, ExportError, export_bundle, latest_bundle, verify_bundle
from warehouse.release.schemas import SCHEMA_VERSION
from warehouse.release.release import release_night
from tests.support.warehouse_fixtures import make_warehouse


def test_bundle_is_complete_and_latest_points_at_it(tmp_path: Path) -> None:
    wh = tmp_path / "wh.duckdb"
    exports = tmp_path / "exports"
    for run in ("run-1", "run-2"):
        make_warehouse(wh, run)
        con = connect(wh)
        bundle = export_bundle(con, exports)
        assert latest_bundle(exports) == (exports / "run-1" if run == "run-2" else None)  # LATEST waits
        release_night(con, tmp_path, run_id=f"night-{run}", bundle_run_id=bundle.run_id)
        con.close()
        assert latest_bundle(exports) == bundle.path == exports / run
    assert sorted(p.name for p in exports.iterdir()) == ["LATEST", "run-1", "run-2"]  # no temp folders left
    manifest = verify_bundle(exports / "run-2")
    assert manifest["run_id"] == "run-2" and manifest["model"] == "ease"
    assert manifest["counts"] == {"users": 2, "recommendations": 3, "games": 2, "similar_games": 3,
                                  "next_to_play_users": 1, "next_to_play": 2, "watch_next_users": 1, "watch_next": 1}
    watched = (exports / "run-2" / "watch_next.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x) for x in watched] == [{"user_id": "2", "items": [
        {"rank": 1, "game_id": "s", "score": 0.4, "reason": "「キューブ・タイル」が好きなあなたに"}]}]
    shelf = (exports / "run-2" / "next_to_play.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x) for x in shelf] == [{"user_id": "1", "items": [
        {"rank": 1, "game_id": "p", "score": 0.6, "reason": "「プロポリス」が好きなあなたに"},
        {"rank": 2, "game_id": "r", "score": 0.2, "reason": "人気のゲーム"}]}]
    lines = [json.loads(x) for x in (exports / "run-2" / "recommendations.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"user_id": "1", "items": [
        {"rank": 1, "game_id": "a", "score": 0.9, "reason": "プロポリスが好きなあなたに"},
        {"rank": 2, "game_id": "b", "score": 0.5, "reason": "プロポリスが好きなあなたに"}], "welcome": False}
    similar = (exports / "run-2" / "similar_games.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(similar[0]) == {"game_id": "a", "items": [{"rank": 1, "game_id": "b", "score": 0.8},
                                                                {"rank": 2, "game_id": "c", "score": 0.1}]}
    # Each JSONL file's schema is in the bundle, checksummed like the rest, its version named.
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert sorted(manifest["files"]) == sorted([*FILES, *(f"schemas/{Path(n).stem}.schema.json" for n in FILES)])
    assert sorted(p.name for p in (exports / "run-2" / "schemas").iterdir()) == sorted(
        f"{Path(n).stem}.schema.json" for n in FILES)


def test_tampered_bundle_fails_verification(tmp_path: Path) -> None:
    make_warehouse(tmp_path / "wh.duckdb", "run-1")
    con = connect(tmp_path / "wh.duckdb")
    bundle = export_bundle(con, tmp_path / "exports")
    con.close()
    with open(bundle.path / "recommendations.jsonl", "a", encoding="utf-8") as f:
        f.write("{}\n")
    with pytest.raises(ExportError, match="checksum"):
        verify_bundle(bundle.path)


def test_a_shelf_of_another_run_is_not_exported(tmp_path: Path) -> None:
    """marts.watch_next left by an older run (a night that stopped half-way) never joins a bundle."""
    make_warehouse(tmp_path / "wh.duckdb", "run-2")
    with connect(tmp_path / "wh.duckdb") as con:
        con.execute("UPDATE marts.watch_next SET run_id = 'run-1'")
        with pytest.raises(ExportError, match="marts.watch_next holds run run-1, not run-2"):
            export_bundle(con, tmp_path / "exports")
    assert not (tmp_path / "exports" / "run-2").exists()


def test_nothing_to_export_is_a_clear_error(tmp_path: Path) -> None:
    con = connect(tmp_path / "wh.duckdb")
    con.execute("CREATE SCHEMA marts")
    con.execute("CREATE TABLE marts.recommendations (user_id VARCHAR, rank INT, game_id VARCHAR, score DOUBLE, "
                "reason VARCHAR, model VARCHAR, run_id VARCHAR)")
    with pytest.raises(ExportError, match="empty"):
        export_bundle(con, tmp_path / "exports")
    assert not (tmp_path / "exports" / "LATEST").exists()
    con.close()


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    make_warehouse(tmp_path / "wh.duckdb", "run-9")
    con = connect(tmp_path / "wh.duckdb")
    path = export_bundle(con, tmp_path / "exports").path
    con.close()
    return path


def test_a_welcome_list_is_named_on_its_line(tmp_path: Path) -> None:
    """Schema 1.1.0: a line says whether it is a welcome list (models.discovery.welcome)."""
    import polars as pl

    from tests.support.warehouse_fixtures import create_marts
    from warehouse.release.schemas import validate_bundle

    wh = tmp_path / "wh.duckdb"
    make_warehouse(wh, "run-1")
    recs = pl.DataFrame({"user_id": ["1", "3", "3"], "rank": [1, 1, 2], "game_id": ["a", "b", "c"],
                         "score": [0.9, 0.4, 0.2], "model": ["ease"] * 3, "run_id": ["run-1"] * 3,
                         "reason": ["「プロポリス」が好きなあなたに", "みんなが持っているゲーム", "みんなが持っているゲーム"],
                         "welcome": [False, True, True]})
    create_marts(wh, {"recommendations": recs, "members": pl.DataFrame({"user_id": ["1", "2", "3"]})})
    with connect(wh) as con:
        bundle = export_bundle(con, tmp_path / "exports")
    lines = {line["user_id"]: line for line in map(json.loads, (bundle.path / "recommendations.jsonl").read_text(
        encoding="utf-8").splitlines())}
    assert lines["1"]["welcome"] is False and lines["3"]["welcome"] is True
    assert [item["game_id"] for item in lines["3"]["items"]] == ["b", "c"]
    assert validate_bundle(bundle.path).lines["recommendations.jsonl"] == 2
