"""Warehouse backups: written, verified, kept 7 daily + 4 weekly; damage is found, litter swept.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_backup.py,
tests/integration/test_backup.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


from warehouse.backup.backup import (
    DATABASE,
    list_backups,
)
from tests.support.backup_warehouse import T0, _backup, warehouse  # noqa: F401 - warehouse is a fixture


def test_a_killed_backups_half_written_folder_is_swept(warehouse: Path, tmp_path: Path) -> None:
    backups = tmp_path / "backups"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    litter = backups / f".tmp-20261124T180500Z-{dead}"
    litter.mkdir(parents=True)
    (litter / DATABASE).write_bytes(b"half")
    _backup(warehouse, backups, T0)
    assert not litter.exists()
    assert [b.name for b in list_backups(backups)] == ["20261125T180500Z"]
