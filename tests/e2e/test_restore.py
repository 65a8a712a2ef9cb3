"""`bodoge restore` after real damage: two crawled nights, a backup, a corrupt warehouse, night 3.

The issue's proof: fill a warehouse over two nights, back up, corrupt the file (bytes
flipped in the middle, then cut short), restore with one command, run night 3
incrementally; the marts equal night 3's truth and nothing from before the backup is lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


from samplesite import SampleSiteServer, generate_site
from samplesite.nights import site_on_night
from ops.lock import try_acquire
from tests.support.crawl_fixtures import crawl_and_build
from tests.support.night_checks import collections_differ
from warehouse.backup.backup import DATABASE, list_backups
from warehouse.db import connect
from warehouse.backup.restore import warehouse_problem

REPO = Path(__file__).resolve().parents[2]


def bodoge(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_")}
    return subprocess.run([sys.executable, "-m", "bodoge.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=REPO, timeout=300, env=env)


def _history(warehouse: Path) -> set[tuple]:
    """Every counter row and crawl run: the history no crawl can bring back."""
    with connect(warehouse, read_only=True) as con:
        counters = con.execute("SELECT game_id, run_id FROM raw.game_counters").fetchall()
        runs = con.execute("SELECT run_id, status FROM raw.crawl_runs").fetchall()
    return {("counter", *r) for r in counters} | {("run", *r) for r in runs}


def _flip_middle(path: Path) -> None:
    """Flip 4 KiB inside the middle block that holds members' collection rows.

    Why that block: a file also has free blocks (left by deleted rows), and damage there
    harms nothing; this is damage to data the warehouse holds.
    """
    with connect(path, read_only=True) as con:
        size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
        blocks = sorted({r[0] for r in con.execute(
            "SELECT block_id FROM pragma_storage_info('raw.collection_entries') WHERE block_id >= 0").fetchall()})
    start = 3 * 4096 + blocks[len(blocks) // 2] * size + 64
    with open(path, "r+b") as f:
        f.seek(start)
        chunk = bytearray(f.read(4096))
        f.seek(start)
        f.write(bytes(b ^ 0x5A for b in chunk))


def _one_error(run: subprocess.CompletedProcess) -> str:
    assert run.returncode == 2 and "Traceback" not in run.stderr, run
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bodoge: error: "), run.stderr
    return lines[0]


def test_a_corrupt_warehouse_is_restored_and_night_three_is_exact(tmp_path: Path) -> None:
    data = tmp_path / "data"
    warehouse = data / "warehouse.duckdb"
    site = generate_site(n_games=100, n_users=200, seed=5)
    with SampleSiteServer(site) as srv:
        crawl_and_build(srv.base_url, warehouse)
        srv.site = site_on_night(site, 2)
        srv.faults.reset()
        crawl_and_build(srv.base_url, warehouse)

        made = bodoge("backup", "--data-dir", str(data))
        assert made.returncode == 0 and "verified" in made.stdout, made
        before = _history(warehouse)
        [backup] = list_backups(data / "backups")

        # A healthy warehouse is not replaced without --force, nor while a night holds the lock.
        assert "healthy" in _one_error(bodoge("restore", "--data-dir", str(data)))
        lock = try_acquire(data)
        assert lock is not None
        try:
            assert "a night is running" in _one_error(bodoge("restore", "--data-dir", str(data), "--force"))
        finally:
            lock.release()

        _flip_middle(warehouse)
        assert warehouse_problem(warehouse) is not None
        restored = bodoge("restore", "--data-dir", str(data))
        assert restored.returncode == 0, restored
        assert f"from backup {backup.name}" in restored.stdout and "next night: incremental" in restored.stdout
        assert list(data.glob("warehouse.duckdb.replaced-*")), "the damaged file is kept, not deleted"
        assert warehouse_problem(warehouse) is None and _history(warehouse) == before

        # Cut short this time, and restored by name.
        with open(warehouse, "r+b") as f:
            f.truncate(warehouse.stat().st_size // 3)
        assert "no backup named" in _one_error(bodoge("restore", "--data-dir", str(data), "--from", "nope"))
        again = bodoge("restore", "--data-dir", str(data), "--from", backup.name)
        assert again.returncode == 0, again
        assert (warehouse.read_bytes() == (backup.path / DATABASE).read_bytes())

        night3 = site_on_night(site, 3)
        srv.site = night3
        srv.faults.reset()
        result = crawl_and_build(srv.base_url, warehouse)
    assert result.stats["bodoge/mode"] == "incremental"
    assert collections_differ(warehouse, night3) == 0
    assert before <= _history(warehouse), "history from before the backup was lost"


def test_a_damaged_backup_is_passed_over_for_an_older_good_one(tmp_path: Path) -> None:
    from tests.support.warehouse_fixtures import build_small_warehouse
    from warehouse.backup.backup import make_backup
    from datetime import datetime, timezone

    data = tmp_path / "data"
    warehouse = build_small_warehouse(data / "warehouse.duckdb")
    with connect(warehouse) as con:
        old = make_backup(con, warehouse, data / "backups", run_id="old",
                          now=datetime(2026, 11, 23, 18, tzinfo=timezone.utc))
        new = make_backup(con, warehouse, data / "backups", run_id="new",
                          now=datetime(2026, 11, 24, 18, tzinfo=timezone.utc))
    _flip_middle(new.path / DATABASE)
    warehouse.unlink()
    run = bodoge("restore", "--data-dir", str(data))
    assert run.returncode == 0, run
    assert f"from backup {old.name}" in run.stdout and f"passed over: backup {new.name}" in run.stderr
    assert "next night: a full crawl" in run.stdout  # the small warehouse was never crawled


def test_a_mistyped_data_dir_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    """Issue 39 (case 10): `bodoge restore --data-dir <typo>` made the folder and a lock in it
    before saying there was no backup."""
    typo = tmp_path / "dtaa"
    done = subprocess.run([sys.executable, "-m", "bodoge.cli", "restore", "--data-dir", str(typo)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stderr.count("\n") == 1 and "no data directory" in done.stderr, done.stderr
    assert not typo.exists()
