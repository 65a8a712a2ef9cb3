"""Delta bundles (`warehouse.release.delta`): a few members' lines, valid by the bundle's own
schemas, cut like bundles when a member turns private, pruned when they amend an older bundle."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest

from warehouse.release.bundle_io import ExportError
from warehouse.release.delta import delta_bundles, prune_deltas, require_delta, write_delta
from warehouse.release.retention import cut_members_from_bundles
from warehouse.release.schemas import validate_bundle


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    db = duckdb.connect()
    db.execute("CREATE SCHEMA marts")
    db.execute("CREATE TABLE marts.recommendations (user_id VARCHAR, rank INTEGER, game_id VARCHAR, score DOUBLE, "
               "model VARCHAR, run_id VARCHAR, reason VARCHAR, generated_at TIMESTAMPTZ, night_id VARCHAR, welcome BOOLEAN)")
    now = datetime(2026, 11, 28, tzinfo=timezone.utc)
    for user in ("a", "b", "c"):
        for rank in (1, 2):
            db.execute("INSERT INTO marts.recommendations VALUES (?, ?, ?, ?, 'ease', 'r1', '「x」が好きなあなたに', ?, 'n1', false)",
                       [user, rank, f"g{rank}", 1.0 / rank, now])
    db.execute("CREATE TABLE marts.next_to_play (user_id VARCHAR, rank INTEGER, game_id VARCHAR, score DOUBLE, "
               "reason VARCHAR, run_id VARCHAR)")
    db.execute("INSERT INTO marts.next_to_play VALUES ('a', 1, 'g9', 0.5, '積みゲー', 'r1')")
    return db  # no watch_next mart: its file is empty


def test_a_delta_holds_only_its_members_lines_and_validates(con, tmp_path: Path) -> None:
    delta = write_delta(con, tmp_path, users=["a", "c"], base_run_id="bundle-1", night_id="n1")
    assert delta.path.parent == tmp_path / "deltas" and not any(p.name.startswith(".") for p in delta.path.parent.iterdir())
    checked = validate_bundle(delta.path)
    assert checked.lines == {"recommendations.jsonl": 2, "next_to_play.jsonl": 1, "watch_next.jsonl": 0}
    users = [json.loads(line)["user_id"] for line in (delta.path / "recommendations.jsonl").read_text().splitlines()]
    assert users == ["a", "c"]
    manifest = require_delta(delta.path)
    assert manifest["base_run_id"] == "bundle-1" and manifest["counts"]["recommendations"] == 4
    assert '"a"' not in json.dumps(manifest) and '"c"' not in json.dumps(manifest)  # no member's id: a cut leaves no trace


def test_a_member_cut_for_privacy_leaves_every_delta(con, tmp_path: Path) -> None:
    delta = write_delta(con, tmp_path, users=["a", "b"], base_run_id="bundle-1", night_id="n1")
    assert cut_members_from_bundles(tmp_path, {"a"}) == [delta.path.name]
    for name in ("recommendations.jsonl", "next_to_play.jsonl"):
        assert '"a"' not in (delta.path / name).read_text()
    validate_bundle(delta.path)  # still valid, its manifest's counts and digests rewritten
    assert require_delta(delta.path)["counts"]["next_to_play_users"] == 0


def test_deltas_of_another_bundle_are_pruned(con, tmp_path: Path) -> None:
    old = write_delta(con, tmp_path, users=["a"], base_run_id="bundle-0", night_id="n0")
    new = write_delta(con, tmp_path, users=["b"], base_run_id="bundle-1", night_id="n1")
    (tmp_path / "deltas" / ".tmp-left-by-a-kill").mkdir()
    assert prune_deltas(tmp_path, base_run_id="bundle-1") == sorted([old.path.name, ".tmp-left-by-a-kill"])
    assert delta_bundles(tmp_path) == [new.path]
    with pytest.raises(ExportError, match="is not a delta bundle"):
        (tmp_path / "whole").mkdir()
        (tmp_path / "whole" / "manifest.json").write_text('{"run_id": "x"}')
        require_delta(tmp_path / "whole")
