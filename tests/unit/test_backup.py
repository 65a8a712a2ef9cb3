"""Warehouse backups: written, verified, kept 7 daily + 4 weekly; damage is found, litter swept."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from warehouse.backup.backup import (
    DATABASE,
    MANIFEST,
    BackupError,
    list_backups,
    prune,
    to_keep,
    verify_backup,
)
from warehouse.db import connect
from tests.support.backup_warehouse import T0, _backup, warehouse  # noqa: F401 - warehouse is a fixture


def test_a_backup_holds_every_row_and_says_so_in_its_manifest(warehouse: Path, tmp_path: Path) -> None:
    backups = tmp_path / "backups"
    backup = _backup(warehouse, backups, T0, run_id="r-1")
    manifest = json.loads((backup.path / MANIFEST).read_text())
    assert backup.path == backups / "20261125T180500Z" and manifest["run_id"] == "r-1"
    with connect(warehouse, read_only=True) as con:
        rows = con.execute("SELECT count(*) FROM raw.collection_entries").fetchone()[0]
        tables = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()"
                             ).fetchone()[0]
    assert manifest["tables"]["raw.collection_entries"] == rows > 0
    assert len(manifest["tables"]) == tables and manifest["bytes"] == (backup.path / DATABASE).stat().st_size
    assert verify_backup(backup.path).sha256 == manifest["sha256"]
    assert not list(backups.glob(".tmp-*"))


def test_a_flipped_byte_or_a_cut_file_fails_verification(warehouse: Path, tmp_path: Path) -> None:
    backup = _backup(warehouse, tmp_path / "backups", T0)
    data = bytearray((backup.path / DATABASE).read_bytes())
    middle = len(data) // 2
    data[middle] ^= 0xFF
    (backup.path / DATABASE).write_bytes(bytes(data))
    with pytest.raises(BackupError, match="damaged"):
        verify_backup(backup.path)
    (backup.path / DATABASE).write_bytes(bytes(data[:middle]))
    with pytest.raises(BackupError, match="damaged"):
        verify_backup(backup.path)


def test_retention_keeps_the_newest_of_seven_days_and_four_weeks() -> None:
    nightly = [T0 - timedelta(days=d) for d in range(40)] + [T0 - timedelta(hours=1)]
    kept = {nightly[i] for i in to_keep(nightly)}
    days = {T0 - timedelta(days=d) for d in range(7)}  # the newest of each of the last 7 days
    # Weeks (ISO, Monday first): T0 is Wednesday 25 Nov. The newest backup of each of the last four
    # weeks: this week's is T0 (kept as a day), then Sundays 22 Nov, 15 Nov and 8 Nov.
    sundays = {datetime(2026, 11, d, 18, 5, tzinfo=timezone.utc) for d in (22, 15, 8)}
    assert kept == days | sundays
    assert T0 - timedelta(hours=1) not in kept  # a second backup the same day: only the newest stays
    assert to_keep([]) == set() and to_keep([T0]) == {0}


def test_pruning_removes_what_retention_drops(warehouse: Path, tmp_path: Path) -> None:
    backups = tmp_path / "backups"
    for d in (20, 10, 2, 1, 0):
        _backup(warehouse, backups, T0 - timedelta(days=d))
    names = [b.name for b in list_backups(backups)]
    assert names == ["20261125T180500Z", "20261124T180500Z", "20261123T180500Z", "20261115T180500Z",
                     "20261105T180500Z"]
    assert prune(backups, daily=2, weekly=1) == ["20261123T180500Z", "20261115T180500Z", "20261105T180500Z"]
    assert [b.name for b in list_backups(backups)] == ["20261125T180500Z", "20261124T180500Z"]


def test_a_member_no_longer_public_is_cut_from_every_backup(warehouse: Path, tmp_path: Path) -> None:
    from warehouse.backup.backup import scrub_backups
    from warehouse.privacy.public import public_users

    backups = tmp_path / "backups"
    older = _backup(warehouse, backups, T0 - timedelta(days=1))
    with connect(warehouse) as con:
        everyone = public_users(con)
    gone = sorted(everyone)[0]
    assert scrub_backups(backups, everyone - {gone}) == [older.name]
    cut = verify_backup(older.path)  # still verifies: its manifest was rewritten
    with connect(cut.database, read_only=True) as con:
        for table, column in (("raw.collection_entries", "user_id"), ("raw.members", "user_id"),
                              ("marts.collections", "user_id"), ("raw.listing_crawls", "key")):
            assert con.execute(f"SELECT count(*) FROM {table} WHERE {column} = ?", [gone]).fetchall()[0][0] == 0
        assert con.execute("SELECT count(*) FROM raw.members").fetchall()[0][0] == len(everyone) - 1
    assert scrub_backups(backups, everyone - {gone}) == []  # nothing left to cut


def test_a_cut_of_most_members_is_refused_and_the_backup_kept_whole(warehouse: Path, tmp_path: Path) -> None:
    import duckdb

    from warehouse.privacy.erase import TooManyToErase, erase_members_not_in

    backup = _backup(warehouse, tmp_path / "backups", T0)
    with duckdb.connect(str(backup.database)) as con:
        members = con.execute("SELECT count(*) FROM raw.members").fetchall()[0][0]
        with pytest.raises(TooManyToErase, match="refusing"):
            erase_members_not_in(con, set(), min_guard=0)  # every member "private": a login wall, not privacy
    assert verify_backup(backup.path).tables["raw.members"] == members
