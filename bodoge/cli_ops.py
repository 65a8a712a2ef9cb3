"""The operator's commands for the warehouse's safety: `bodoge backup` and `bodoge restore`.

Why a module of their own: they act on the data directory as a whole (under the nightly
lock) rather than on one night or one member; each is a thin shell over
`warehouse.backup.backup` and `warehouse.backup.restore`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bodoge.args import add_data_dir, setting_flag

#: What the backup commands read of the settings (a bad crawl setting does not stop them).
_READS = ("data_dir", "warehouse", "backup_dir")


def register_backup(sub: Any) -> None:
    p = sub.add_parser("backup", help="back up the warehouse now (a night does it after publishing)")
    add_data_dir(p, warehouse=False)
    setting_flag(p, "backup_dir")
    p.add_argument("--list", action="store_true", help="list the backups instead, newest first")
    p.set_defaults(handler=cmd_backup)


def register_restore(sub: Any) -> None:
    p = sub.add_parser("restore", help="restore the warehouse from its newest verified backup")
    add_data_dir(p, warehouse=False)
    setting_flag(p, "backup_dir")
    p.add_argument("--from", dest="source", metavar="BACKUP",
                   help="a backup's name (e.g. 20261125T031502Z) or folder; default the newest that verifies")
    p.add_argument("--force", action="store_true", help="replace a warehouse that is still healthy")
    p.set_defaults(handler=cmd_restore)


def cmd_backup(args: argparse.Namespace) -> int:
    from core.settings import Settings
    from ops.lock import try_acquire
    from warehouse.backup.backup import list_backups, make_backup
    from warehouse.db import WarehouseError, connect

    settings = Settings.load(args, only=_READS)
    paths, backups = settings.paths, settings.backups
    if args.list:
        found = list_backups(backups)
        for backup in found:
            print(f"{backup.created_at:%Y-%m-%d %H:%M:%S} UTC  {backup.describe()}")
        if not found:
            print(f"no backups in {backups}")
        return 0
    if not paths.warehouse.exists():
        raise WarehouseError(f"no warehouse at {paths.warehouse} to back up")
    lock = try_acquire(paths.data_dir)
    if lock is None:
        raise WarehouseError("a night is running: it backs the warehouse up itself once it has published")
    try:
        con = connect(paths.warehouse)
        try:
            backup = make_backup(con, paths.warehouse, backups, run_id=None)
        finally:
            con.close()
    finally:
        lock.release()
    print(f"backup {backup.describe()} verified in {backup.seconds:.1f}s: {backup.path}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from core.settings import Settings
    from ops.lock import LOCK_NAME, holder, try_acquire
    from warehouse.backup.restore import RestoreError, restore

    settings = Settings.load(args, only=_READS)
    paths = settings.paths
    if not paths.data_dir.is_dir():  # a typo'd --data-dir: said before any folder or lock is made there
        raise RestoreError(f"no data directory {paths.data_dir}: nothing to restore into (check --data-dir)")
    lock = try_acquire(paths.data_dir)
    if lock is None:
        who = holder(paths.data_dir / LOCK_NAME)
        raise RestoreError(f"a night is running in {paths.data_dir} (pid {who.get('pid', '?')}): stop "
                           "`bodoge serve` or wait for the night to end, then restore")
    try:
        done = restore(warehouse=paths.warehouse, backups=settings.backups,
                       source=args.source, force=args.force, data_dir=paths.data_dir)
    finally:
        lock.release()
    for note in done.skipped:
        print(f"bodoge: passed over: {note}", file=sys.stderr)
    print(f"restored {done.warehouse} from backup {done.backup.describe()}")
    if done.private_cut:
        print(f"{done.private_cut} member(s) no longer public cut from it and from every kept copy")
    for kept in done.kept:
        print(f"the file it replaced is kept as {kept} (remove it by hand once you no longer need it)")
    print(f"next night: {done.next_night}")
    return 0
