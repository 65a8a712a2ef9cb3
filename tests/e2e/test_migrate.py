"""A warehouse written by an older version is migrated in place, after a backup; a failed
migration puts that backup back and says so in one line.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_migrate.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


from warehouse.backup.backup import list_backups
from tests.support.older_warehouse import _columns, _older


def _bodoge(*args: str) -> "subprocess.CompletedProcess[str]":
    env = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_")}
    return subprocess.run([sys.executable, "-m", "bodoge.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=300)


def test_bodoge_build_migrates_an_older_warehouse_first_and_waits_for_no_night(tmp_path: Path) -> None:
    """A manual build writes like a night: under the nightly lock, after the migrations (with
    their backup), so the marts' SQL finds the columns it reads."""
    from ops.lock import try_acquire

    warehouse = _older(tmp_path)
    data = tmp_path / "data"
    lock = try_acquire(data)
    assert lock is not None
    try:
        refused = _bodoge("build", "--data-dir", str(data))
    finally:
        lock.release()
    assert refused.returncode != 0 and "a night is running" in refused.stderr and "Traceback" not in refused.stderr
    assert "etag" not in _columns(warehouse, "pages")  # nothing was touched
    built = _bodoge("build", "--data-dir", str(data))
    assert built.returncode == 0, built.stderr
    assert "migrated: add raw.pages.etag" in built.stdout and "published build-" in built.stdout
    assert "etag" in _columns(warehouse, "pages")
    assert [b.run_id for b in list_backups(data / "backups")] == ["pre-migration-" + built.stdout.split(
        "published ")[1].split(" ")[0]]
