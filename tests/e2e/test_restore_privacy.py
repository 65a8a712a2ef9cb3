"""A restore must not bring a private member back, nor keep them beside it (issue 39, case 5).

Why: a crawl killed after it found a member private journals them and cuts the published
night, the bundles and the models, but the backups were cut only when a crawl finished; a
restore in that window put the member's rows back, and every restore kept
`warehouse.duckdb.replaced-*` holding them, which nothing scrubbed. Here the journal is
written as a killed crawl leaves it (raw not purged yet, the id in `erasures.pending`),
and the restore is a real `bodoge restore` process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb

from tests.support.erasure_night import MEMBER, _rows_of, night  # noqa: F401 - night is a fixture
from warehouse.backup.backup import list_backups, make_backup, verify_backup
from warehouse.db import connect
from warehouse.journal import journal_path
from warehouse.privacy.erasure import note, settle_pending
from warehouse.release.publish import published_path

REPO = Path(__file__).resolve().parents[2]
OTHER = "500"  # a second member with recommendations in the night fixture


def bodoge(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_")}
    return subprocess.run([sys.executable, "-m", "bodoge.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=REPO, timeout=300, env=env)


def _traces(path: Path, user: str) -> dict[str, int]:
    """Rows naming `user` in a DuckDB file: member columns, and listing/frontier keys."""
    found = _rows_of(path, user)
    with duckdb.connect(str(path), read_only=True) as con:
        for table, kind in (("listing_crawls", "listing"), ("crawl_frontier", "kind")):
            if con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'raw' AND table_name = ?",
                           [table]).fetchone()[0]:
                n = con.execute(f"SELECT count(*) FROM raw.{table} WHERE {kind} = 'collection' AND key = ?",
                                [user]).fetchone()[0]
                if n:
                    found[f"raw.{table}"] = n
    return found


def _replaced(data: Path) -> list[Path]:
    return sorted(p for p in data.glob("warehouse.duckdb.replaced-*") if not p.name.endswith(".wal"))


def _everywhere(data: Path, user: str, *, live: bool = True) -> dict[str, object]:
    """Where `user` is still found: the warehouse (unless not `live`: a crawl's cut leaves its
    marts to the night's build), the published night, bundles, backups, replaced files."""
    found: dict[str, object] = {}
    copies = [("warehouse", data / "warehouse.duckdb")] if live else []
    for name, path in [*copies, ("published", published_path(data)),
                       *[(f"backup {b.name}", b.database) for b in list_backups(data / "backups")],
                       *[(p.name, p) for p in _replaced(data)]]:
        if rows := _traces(path, user):
            found[name] = rows
    for file in (data / "exports").glob("*/*.jsonl"):
        if any(str(json.loads(line).get("user_id")) == user for line in file.read_text(encoding="utf-8").splitlines()):
            found[str(file.relative_to(data))] = True
    return found


def _back_up(data: Path) -> None:
    wh = data / "warehouse.duckdb"
    with connect(wh) as con:
        make_backup(con, wh, data / "backups", run_id="night-1")


def test_a_restore_in_the_window_after_a_killed_crawl_leaves_the_journals_member_nowhere(night: Path) -> None:  # noqa: F811
    _back_up(night)
    assert all(_traces(b.database, MEMBER) for b in list_backups(night / "backups"))
    note(night, [MEMBER])  # the crawl saw their login page, then was killed before its commit
    run = bodoge("restore", "--data-dir", str(night), "--force")
    assert run.returncode == 0, run
    assert _replaced(night), "the replaced file is still kept"
    assert _everywhere(night, MEMBER) == {}
    assert "1 member(s) no longer public cut" in run.stdout
    assert not journal_path(night).exists()
    assert _traces(night / "warehouse.duckdb", OTHER)  # everyone else is restored
    for backup in list_backups(night / "backups"):
        verify_backup(backup.path)  # rewritten with its manifest: still a backup


def test_a_restore_cuts_who_the_replaced_warehouse_no_longer_knows_as_public(night: Path) -> None:  # noqa: F811
    """The crawl committed (raw lost them, the journal was emptied), then died before the backups
    were cut: the backup still holds them, the warehouse being replaced does not."""
    from warehouse.privacy.erase import purge_members

    _back_up(night)
    with connect(night / "warehouse.duckdb") as con:
        purge_members(con, {MEMBER})
    run = bodoge("restore", "--data-dir", str(night), "--force")
    assert run.returncode == 0, run
    assert _everywhere(night, MEMBER) == {}
    assert _traces(night / "warehouse.duckdb", OTHER)


def test_a_kept_replaced_file_loses_a_member_private_now_at_the_next_cut(night: Path, monkeypatch) -> None:  # noqa: F811
    from warehouse.privacy.cut import cut_everywhere
    from warehouse.privacy.erase import purge_members

    _back_up(night)
    run = bodoge("restore", "--data-dir", str(night), "--force")
    assert run.returncode == 0, run
    [kept] = _replaced(night)
    assert _traces(kept, MEMBER) and _traces(kept, OTHER)  # public when it was replaced: kept as is

    # By name: the next night settles a crawl killed after MEMBER's login page.
    monkeypatch.delenv("BODOGE_BACKUP_DIR", raising=False)  # the backups where the settings put them
    note(night, [MEMBER])
    assert settle_pending(night, night / "warehouse.duckdb") == {MEMBER}
    assert _everywhere(night, MEMBER, live=False) == {}

    # By rule: after a crawl, the warehouse no longer knows OTHER as public.
    with connect(night / "warehouse.duckdb") as con:
        purge_members(con, {OTHER})
        cut = cut_everywhere(night, public_from=con, backups=night / "backups", warehouse=night / "warehouse.duckdb")
    assert cut.replaced == [kept.name]
    assert _everywhere(night, OTHER, live=False) == {}
