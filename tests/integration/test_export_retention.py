"""Old export bundles: few kept, LATEST's never deleted, no member who is not public now, no litter.

An integration tier file: each test runs whole nights' ends (the bundle, then the release:
the published night written afresh, LATEST, the prune), several nights in a row.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import polars as pl
import pytest

from tests.support.warehouse_fixtures import create_marts
from warehouse.db import connect
from warehouse.release.export import ExportError, export_bundle, latest_bundle, verify_bundle
from warehouse.release.retention import prune_bundles
from warehouse.release.schemas import schema_bytes, validate_bundle
from warehouse.raw import RawWriter
from warehouse.release.release import release_night

REASON = "「ヒミツの森」が好きなあなたに"


def write_marts(wh: Path, run_id: str, users: list[str]) -> None:
    """Recommendations (two per user, the reason naming a game of theirs), play next and the watch
    list (one per user each) and similar games."""
    recs = pl.DataFrame({
        "user_id": [u for u in users for _ in range(2)], "rank": [1, 2] * len(users),
        "game_id": ["a", "b"] * len(users), "score": [0.9, 0.5] * len(users),
        "model": "ease", "run_id": run_id, "reason": REASON,
    })
    similar = pl.DataFrame({"game_id": ["a"], "rank": [1], "similar_game_id": ["b"], "score": [0.8], "run_id": [run_id]})
    shelf = pl.DataFrame({"user_id": users, "rank": [1] * len(users), "game_id": ["secret-forest"] * len(users),
                          "score": [0.7] * len(users), "reason": [REASON] * len(users), "run_id": run_id})
    watched = shelf.with_columns(pl.lit("owl-coffee").alias("game_id"))
    create_marts(wh, {"recommendations": recs, "similar_games": similar, "next_to_play": shelf, "watch_next": watched})


def crawl(wh: Path, run_id: str, outcomes: dict[str, str]) -> None:
    """What a crawl leaves in raw: each member's collection outcome (a public one has one entry)."""
    with connect(wh) as con:
        w = RawWriter(con, run_id=run_id)
        for user, status in outcomes.items():
            w.add("member", {"user_id": user, "name": f"name-{user}"})
            if status == "public":
                w.add("collection_entry", {"user_id": user, "game_id": "secret-forest", "have": True,
                                           "played": True, "favorite": False, "watching": False})
            w.add("listing_crawl", {"listing": "collection", "key": user, "status": status,
                                    "n_entries": int(status == "public"), "n_pages": 1})
        w.flush()


def export(wh: Path, exports: Path, run_id: str, users: list[str], **kwargs) -> Path:
    """A night's end: its bundle, then its release (published night and LATEST, then the prune)."""
    write_marts(wh, run_id, users)
    with connect(wh) as con:
        bundle = export_bundle(con, exports, **kwargs)
        release_night(con, exports.parent, run_id=f"night-{run_id}", bundle_run_id=bundle.run_id, **kwargs)
        return bundle.path


def bundles(exports: Path) -> list[str]:
    return sorted(p.name for p in exports.iterdir() if p.is_dir())


def user_ids(bundle: Path, name: str = "recommendations.jsonl") -> list[str]:
    return [json.loads(line)["user_id"] for line in (bundle / name).read_text(encoding="utf-8").splitlines()]


@pytest.fixture()
def wh(tmp_path: Path) -> Path:
    path = tmp_path / "warehouse.duckdb"
    crawl(path, "c1", {"1": "public", "2": "public", "3": "public"})
    with connect(path) as con:
        con.execute("CREATE SCHEMA marts")
        con.execute("CREATE TABLE marts.collections AS SELECT user_id, game_id FROM raw.collection_entries")
    return path


def test_eight_exports_keep_the_seven_newest(wh: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("BODOGE_KEEP_EXPORTS", raising=False)
    exports = tmp_path / "exports"
    for n in range(1, 9):
        export(wh, exports, f"run-{n:02d}", ["1"])
    assert bundles(exports) == [f"run-{n:02d}" for n in range(2, 9)]
    assert latest_bundle(exports) == exports / "run-08"
    assert sorted(p.name for p in exports.iterdir() if p.is_file()) == ["LATEST"]


def test_the_bundle_latest_names_is_never_deleted(wh: Path, tmp_path: Path) -> None:
    exports = tmp_path / "exports"
    for n in range(1, 5):
        export(wh, exports, f"run-{n:02d}", ["1"], keep=10)
    (exports / "LATEST").write_text("run-01\n", encoding="utf-8")  # an operator rolled back
    with connect(wh) as con:
        report = prune_bundles(con, exports, keep=2)
    assert report.deleted == ["run-03", "run-02"]
    assert bundles(exports) == ["run-01", "run-04"]


def test_keep_exports_comes_from_the_environment(wh: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BODOGE_KEEP_EXPORTS", "2")
    exports = tmp_path / "exports"
    for n in range(1, 5):
        export(wh, exports, f"run-{n:02d}", ["1"])
    assert bundles(exports) == ["run-03", "run-04"]


@pytest.mark.parametrize("value", ["seven", "0", "-3", "2.5"])
def test_an_invalid_keep_exports_is_a_one_line_error_before_anything_is_written(
    wh: Path, tmp_path: Path, monkeypatch, value: str
) -> None:
    exports = tmp_path / "exports"
    export(wh, exports, "run-01", ["1"])
    monkeypatch.setenv("BODOGE_KEEP_EXPORTS", value)
    with pytest.raises(ExportError) as err:
        export(wh, exports, "run-02", ["1"])
    assert str(err.value) == f"BODOGE_KEEP_EXPORTS must be a whole number of bundles, at least 1 (got {value!r})"
    assert bundles(exports) == ["run-01"] and latest_bundle(exports) == exports / "run-01"


def test_a_member_turned_private_is_cut_from_every_old_bundle(wh: Path, tmp_path: Path) -> None:
    exports = tmp_path / "exports"
    old = export(wh, exports, "run-01", ["1", "2", "3"])
    # A later per-user file in the same shape is scrubbed the same way.
    ntp = b'{"user_id": "2", "items": [{"game_id": "a"}]}\n{"user_id": "3", "items": []}\n'
    (old / "next_to_play.jsonl").write_bytes(ntp)
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["next_to_play.jsonl"] = {"sha256": hashlib.sha256(ntp).hexdigest(), "bytes": len(ntp)}
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    kept_line = (old / "recommendations.jsonl").read_text(encoding="utf-8").splitlines()[0]
    export(wh, exports, "run-02", ["1", "2", "3"])

    crawl(wh, "c2", {"2": "private"})  # raw forgets member 2 at once; the marts still show them
    with connect(wh) as con:
        report = prune_bundles(con, exports)  # right after the crawl, before anything else

    assert report.scrubbed == ["run-01", "run-02"]
    for bundle in (exports / "run-01", exports / "run-02"):
        manifest = verify_bundle(bundle)  # every sha256 matches the rewritten files
        assert user_ids(bundle) == ["1", "3"]
        assert manifest["counts"]["users"] == 2 and manifest["counts"]["recommendations"] == 4
        for file in (p for p in bundle.rglob("*") if p.is_file()):
            assert '"2"' not in file.read_text(encoding="utf-8"), file
    # Whole lines were cut: what is left still matches the schemas, which were left as they were.
    lines = validate_bundle(exports / "run-02").lines
    assert (lines["recommendations.jsonl"], lines["next_to_play.jsonl"], lines["similar_games.jsonl"]) == (2, 2, 1)
    assert (exports / "run-02" / "schemas" / "recommendations.schema.json").read_bytes() == \
        schema_bytes("recommendations.jsonl")
    assert user_ids(old, "next_to_play.jsonl") == ["3"]
    assert user_ids(old, "watch_next.jsonl") == ["1", "3"]
    assert verify_bundle(old)["counts"]["watch_next_users"] == 2
    assert (old / "recommendations.jsonl").read_text(encoding="utf-8").splitlines()[0] == kept_line
    assert json.loads((old / "similar_games.jsonl").read_text(encoding="utf-8"))["game_id"] == "a"


def test_a_deleted_member_is_cut_and_unchanged_bundles_are_left_alone(tmp_path: Path) -> None:
    wh, exports = tmp_path / "warehouse.duckdb", tmp_path / "exports"
    con = connect(wh)
    con.execute("CREATE SCHEMA marts")
    con.execute("CREATE TABLE marts.collections AS SELECT * FROM (VALUES ('1', 'a'), ('4', 'b')) t(user_id, game_id)")
    con.close()
    export(wh, exports, "run-01", ["1", "4"])
    before = (exports / "run-01" / "manifest.json").read_bytes()
    with connect(wh) as con:
        assert prune_bundles(con, exports).scrubbed == []  # nothing to cut: nothing rewritten
        assert (exports / "run-01" / "manifest.json").read_bytes() == before
        con.execute("DELETE FROM marts.collections WHERE user_id = '4'")  # the member left the site
        assert prune_bundles(con, exports).scrubbed == ["run-01"]
    assert user_ids(exports / "run-01") == ["1"]
    assert verify_bundle(exports / "run-01")["counts"]["users"] == 1


def test_export_cuts_members_not_public_from_its_own_bundle_too(wh: Path, tmp_path: Path) -> None:
    crawl(wh, "c2", {"3": "private"})
    bundle = export(wh, tmp_path / "exports", "run-01", ["1", "3"])  # marts built before the crawl
    assert user_ids(bundle) == ["1"]
    assert user_ids(bundle, "next_to_play.jsonl") == user_ids(bundle, "watch_next.jsonl") == ["1"]
    assert verify_bundle(bundle)["counts"] == {"users": 1, "recommendations": 2, "games": 1, "similar_games": 1,
                                               "next_to_play_users": 1, "next_to_play": 1,
                                               "watch_next_users": 1, "watch_next": 1}


def test_litter_of_a_killed_export_is_removed(wh: Path, tmp_path: Path, caplog) -> None:
    exports = tmp_path / "exports"
    export(wh, exports, "run-01", ["1"])
    (exports / ".tmp-run-00").mkdir()
    (exports / ".tmp-run-00" / "recommendations.jsonl").write_text('{"user_id": "2"}\n', encoding="utf-8")
    (exports / ".tmp-drop-run-x").mkdir()
    (exports / "LATEST.tmp").write_text("run-00\n", encoding="utf-8")
    (exports / "run-01" / "recommendations.jsonl.tmp").write_text('{"user_id": "2"}\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="bodoge.export"):
        export(wh, exports, "run-02", ["1"])
    assert sorted(p.name for p in exports.iterdir()) == ["LATEST", "run-01", "run-02"]
    assert sorted(p.name for p in (exports / "run-01").iterdir()) == [
        "manifest.json", "next_to_play.jsonl", "recommendations.jsonl", "schemas", "similar_games.jsonl",
        "watch_next.jsonl"]
    assert [r.getMessage() for r in caplog.records] == [
        "exports: removed 4 leftover(s) of an interrupted export: "
        ".tmp-drop-run-x, .tmp-run-00, LATEST.tmp, run-01/recommendations.jsonl.tmp"]


def test_an_unreadable_old_bundle_is_deleted_an_unreadable_latest_is_an_error(wh: Path, tmp_path: Path) -> None:
    exports = tmp_path / "exports"
    export(wh, exports, "run-01", ["1"])
    export(wh, exports, "run-02", ["1"])
    (exports / "run-01" / "recommendations.jsonl").write_text("{not json\n", encoding="utf-8")
    with connect(wh) as con:
        prune_bundles(con, exports)
        assert bundles(exports) == ["run-02"]  # it may hold anyone: it cannot stay
        (exports / "run-02" / "recommendations.jsonl").write_text("{not json\n", encoding="utf-8")
        with pytest.raises(ExportError, match="run-02 is unreadable"):
            prune_bundles(con, exports)
