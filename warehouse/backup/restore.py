"""`bodoge restore`: put the newest good backup (or a named one) back as the warehouse.

Why it refuses and keeps so much: a restore replaces the only copy of the warehouse's
history, so it runs only while no night holds the data directory (the nightly lock, so
`bodoge serve` and `bodoge run` must be stopped or idle), refuses to replace a warehouse
that still opens and reads whole unless told `--force`, and never deletes the file it
replaces: that one is kept beside it as `warehouse.duckdb.replaced-<UTC time>` (with its
WAL, named `….replaced-<UTC time>.wal` so that DuckDB replays it when the file is opened),
for whoever wants to look at it before removing it by hand.

Why a restore cuts what it puts back: a backup may hold a member who turned private
after it was made (a crawl killed after the login page cuts the backups by name, but a
backup made meanwhile, or one kept by an older version, may not be). So right after the
swap, members in the erasure journal and members the replaced warehouse (when it can be
read) no longer knows as public leave the restored warehouse, and then every copy by
name (`warehouse.privacy.erasure.settle_restored`). The kept `replaced-*` files are
copies like the backups: every cut scrubs them too (`backup.scrub_replaced`); one that cannot
be opened any more (the damage the restore was for) is said in one line, to remove.
(`scrub_replaced` lives in `warehouse.backup.backup`: the privacy cut reaches it without
reaching the restore, which calls the privacy cut.)

After a restore the warehouse is as it was when the backup was made. The next night is
incremental from that state when it holds a finished crawl (the directory, the frontier
and the page validators are the backup's, so whatever changed on the site since is
fetched again), and a full crawl otherwise. The published night and the exports are left
as they are until that night publishes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from warehouse.backup.backup import (
    Backup,
    BackupError,
    copy_file,
    file_sha256,
    list_backups,
    read_every_row,
    verify_backup,
)
from warehouse.db import WarehouseError, first_line, verify_intact


class RestoreError(WarehouseError):
    """Why a restore did not happen, in one line."""


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restore did: the backup used, where the replaced file went, what comes next."""

    backup: Backup
    warehouse: Path
    kept: list[Path]
    skipped: list[str]
    next_night: str
    private_cut: int = 0
    """Members cut from the restored warehouse (and every copy) as not public now."""


def warehouse_problem(path: Path) -> str | None:
    """Why the warehouse at `path` is not healthy (missing, does not open, short, unreadable), or None.

    Reads every table whole, so DuckDB checks the checksum of every block a table uses, and
    a cut file fails `verify_intact`. Damage DuckDB cannot see (a flip in a part of a block
    no checksum covers) passes as healthy: `bodoge restore --force` restores all the same.
    """
    if not path.exists():
        return "it does not exist"
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        return f"it does not open ({first_line(exc)})"
    try:
        verify_intact(con, path)
        tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables() "
                             "WHERE database_name = current_database()").fetchall()
        if not tables:
            return "it holds no tables"
        for schema, table in tables:
            read_every_row(con, f"{schema}.{table}")
    except WarehouseError as exc:
        return str(exc).split(": ", 1)[-1]
    except duckdb.Error as exc:
        return f"it cannot be read ({first_line(exc)})"
    finally:
        con.close()
    return None


def restore(*, warehouse: Path, backups: Path, source: str | None = None,
            force: bool = False, data_dir: Path | None = None) -> Restored:
    """Restore `source` (a backup's name or folder) or the newest backup that verifies.

    The caller holds the nightly lock (no night may run meanwhile: `bodoge restore` takes
    it). Raises RestoreError (one line) when no backup verifies, or the warehouse is
    healthy and `force` is not given.
    """
    backup, skipped = _choose(backups, source)
    problem = warehouse_problem(warehouse)
    if problem is None and not force:
        raise RestoreError(f"the warehouse {warehouse} is healthy: pass --force to replace it with "
                           f"backup {backup.name}")
    public_before = _public_now(warehouse)
    kept = put_back(backup, warehouse)
    from warehouse.privacy.erasure import settle_restored

    cut = settle_restored(Path(data_dir or warehouse.parent), warehouse, backups=backups,
                          public_before=public_before)
    return Restored(backup=backup, warehouse=warehouse, kept=kept, skipped=skipped,
                    next_night=next_night(warehouse), private_cut=len(cut))


def _public_now(warehouse: Path) -> set[str] | None:
    """Who the warehouse about to be replaced knows as public now; None when it cannot say
    (missing, or its raw tables cannot be read: damage)."""
    from warehouse.privacy.public import public_users

    if not warehouse.exists():
        return None
    try:
        with duckdb.connect(str(warehouse), read_only=True) as con:
            return public_users(con) or None
    except duckdb.Error:
        return None


def next_night(warehouse: Path) -> str:
    """What the next `bodoge run` does with this warehouse, in words."""
    from warehouse.crawl_runs import has_complete_crawl, page_age_range

    with duckdb.connect(str(warehouse), read_only=True) as con:
        try:
            finished = has_complete_crawl(con)
        except duckdb.Error:
            finished = False
        _, newest = page_age_range(con)
    if not finished:
        return "a full crawl (the backup holds no complete crawl of the site)"
    since = f" (its newest page was read {newest:%Y-%m-%d %H:%M})" if newest is not None else ""
    return (f"incremental from the backup's state{since}: whatever changed on the site since then "
            "is fetched again")


def _choose(backups: Path, source: str | None) -> tuple[Backup, list[str]]:
    """The named backup (verified) or the newest that verifies, and the damaged ones passed over."""
    if source:
        folder = Path(source)
        folder = folder if folder.is_dir() else backups / source
        if not folder.is_dir():
            raise RestoreError(f"no backup named {source} in {backups}")
        try:
            return verify_backup(folder), []
        except BackupError as exc:
            raise RestoreError(str(exc)) from exc
    skipped: list[str] = []
    for candidate in list_backups(backups):
        try:
            return verify_backup(candidate.path), skipped
        except BackupError as exc:
            skipped.append(str(exc))
    reason = f" ({len(skipped)} damaged)" if skipped else ""
    raise RestoreError(f"no backup that verifies in {backups}{reason}")


def put_back(backup: Backup, warehouse: Path) -> list[Path]:
    """Copy the backup beside the warehouse, check it, move the old file (and WAL) aside, swap in."""
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    tmp = warehouse.with_name(f".{warehouse.name}.restore-{os.getpid()}.tmp")
    try:
        copy_file(backup.database, tmp)
        copied = file_sha256(tmp)[0]
        if copied != backup.sha256:
            source = file_sha256(backup.database)[0]
            where = ("the backup's file itself no longer matches its manifest" if source != backup.sha256
                     else "the copy differs from the backup's file")
            raise RestoreError(f"backup {backup.name} not put back: {where} (sha256 {copied[:12]}…, "
                               f"manifest {backup.sha256[:12]}…)")
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        kept = []
        aside = warehouse.with_name(f"{warehouse.name}.replaced-{stamp}")
        for old, to in ((warehouse, aside), (warehouse.with_name(warehouse.name + ".wal"),
                                             aside.with_name(aside.name + ".wal"))):
            if old.exists():
                os.replace(old, to)
                kept.append(to)
        os.replace(tmp, warehouse)
    except OSError as exc:
        raise RestoreError(f"restore of {backup.name} into {warehouse} failed: {first_line(exc)}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return kept
