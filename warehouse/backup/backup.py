"""Backups of the warehouse: made after every published night, verified, kept 7 daily + 4 weekly.

Why: the warehouse is three days of a first crawl plus every night's history since (how
each collection changed, counters over time); no crawl can bring the history back. A
disk error, a bad upgrade or a mistaken delete must cost at most one night.

How (see BENCHMARKS.md "Backups" for the measurements behind the choice):
- **CHECKPOINT, then a file copy.** The caller holds the warehouse's only writer (the
  nightly lock and the `warehouse_writer` pool), so after `CHECKPOINT` the file holds
  every committed row and nothing changes under the copy. A plain copy restores in the
  time of a copy, byte for byte the same database (comments, sequences, indexes); DuckDB's
  `EXPORT DATABASE` to Parquet is smaller but restores by re-importing every table.
- **Verified after writing.** The copy is hashed again from disk, opened read-only, checked
  for its blocks (`verify_intact`) and every table counted; counts must equal the live
  warehouse's. Only then is `manifest.json` (sha256, bytes, row counts per table, DuckDB
  version, the night) written and the folder renamed into place: a folder without a
  manifest is never a backup.
- **Privacy**: after each backup, members who are not public now are cut from the older
  backups too (`scrub_backups`): a private collection leaves no trace, old copies included.
- **Retention**: the newest backup of each of the last `DAILY` days that have one and of
  each of the last `WEEKLY` ISO weeks; the newest one always. Folders left half-written
  by a killed run are swept.

`bodoge restore` (warehouse/backup/restore.py) picks the newest backup that still verifies.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from warehouse.release.bundle_io import fsync_dir
from warehouse.db import WarehouseError, first_line, verify_intact
from warehouse.privacy.public import public_users

log = logging.getLogger("bodoge.backup")

MANIFEST = "manifest.json"
DATABASE = "warehouse.duckdb"
FORMAT = 1
#: How many days and ISO weeks keep their newest backup.
DAILY, WEEKLY = 7, 4
_NAME = re.compile(r"^\d{8}T\d{6}Z$")
_CHUNK = 8 << 20


class BackupError(WarehouseError):
    """A backup that could not be written or does not verify: one line for the operator."""


@dataclass(frozen=True, slots=True)
class Backup:
    """One verified backup: its folder and what its manifest says."""

    path: Path
    created_at: datetime
    run_id: str | None
    bytes: int
    sha256: str
    tables: dict[str, int]
    seconds: float

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def database(self) -> Path:
        return self.path / DATABASE

    def describe(self) -> str:
        """'20261125T031502Z (night <run>, 12 tables, 1,314 collection rows, 4.2 MB)'."""
        entries = self.tables.get("raw.collection_entries")
        rows = f", {entries:,} collection rows" if entries is not None else ""
        night = f"night {self.run_id}, " if self.run_id else ""
        return f"{self.name} ({night}{len(self.tables)} tables{rows}, {self.bytes / 1e6:.1f} MB)"


def make_backup(con: duckdb.DuckDBPyConnection, warehouse: Path, backups: Path, *, run_id: str | None,
                now: datetime | None = None, prune_old: bool = True) -> Backup:
    """Checkpoint `con`'s warehouse, copy it into `backups/<UTC time>/`, verify it, prune old
    ones (unless `prune_old` is False), scrub them all; returns the backup as it finally is.

    Why "finally": the scrub may rewrite the new backup too (a member the crawl found private
    is still in the marts), with a new checksum in its manifest. Returning the manifest read
    before the scrub made `put_back` refuse the pre-migration backup for a checksum it no
    longer had. Why `prune_old`: a pre-migration backup is a safety copy of its own, not the
    day's backup; pruning by it removed the same day's older backup.

    The caller must hold the warehouse's only writer (nothing may write during the copy).
    Raises BackupError (one line) when the copy cannot be written or does not verify.
    """
    started = time.perf_counter()
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    warehouse = Path(warehouse)
    name = now.strftime("%Y%m%dT%H%M%SZ")
    tmp = backups / f".tmp-{name}-{os.getpid()}"
    final = backups / name
    try:
        backups.mkdir(parents=True, exist_ok=True)
        sweep_partial(backups)
        con.execute("CHECKPOINT")
        expected = table_counts(con)
        tmp.mkdir()
        copy_file(warehouse, tmp / DATABASE)
        sha, size = file_sha256(tmp / DATABASE)
        found = _open_and_count(tmp / DATABASE)
        if found != expected:
            differ = sorted(k for k in set(found) | set(expected) if found.get(k) != expected.get(k))
            raise BackupError(f"backup {name} does not match the warehouse: {', '.join(differ[:5])} differ")
        manifest = {"format": FORMAT, "created_at": now.isoformat(timespec="seconds"), "run_id": run_id,
                    "source": str(warehouse), "duckdb_version": duckdb.__version__, "bytes": size,
                    "sha256": sha, "tables": expected, "seconds": round(time.perf_counter() - started, 3)}
        _write_json(tmp / MANIFEST, manifest)
        if final.exists():  # two backups in one second: the later one wins
            shutil.rmtree(final)
        os.replace(tmp, final)
        fsync_dir(backups)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, (OSError, duckdb.Error)):
            raise BackupError(f"backup into {backups} failed: {first_line(exc)}") from exc
        raise
    removed = prune(backups) if prune_old else []
    scrub_backups(backups, public_users(con))
    backup = read_manifest(final)
    log.info("backup %s verified in %.1fs%s", backup.describe(), backup.seconds,
             f"; {len(removed)} old backup(s) removed" if removed else "")
    return backup


def scrub_backups(backups: Path, public: set[str]) -> list[str]:
    """Cut every member outside `public` from every kept backup; returns the backups rewritten.

    Why: a member who turns private leaves no trace anywhere, and a backup made while they
    were public still holds them (for up to four weeks). Each backup holding such a member
    is cut in place (`warehouse.privacy.erase`), checkpointed, and gets a new manifest (its sha256
    and row counts), so it still verifies. A backup killed mid-rewrite no longer matches
    its manifest: restore then passes it over for an older good one. A cut the privacy
    guard refuses (too many members at once, `warehouse.privacy.erase`) is logged and skipped.
    """
    from warehouse.privacy.erase import erase_members_not_in

    return _rewrite_backups(backups, lambda con: erase_members_not_in(con, public))


def cut_from_backups(backups: Path, users: set[str]) -> list[str]:
    """Cut these members (found private, by name) from every kept backup; returns those rewritten.

    Why not only by rule after the crawl: a crawl killed after it found a member private
    never reaches that cut, and a restore in between would bring them back. The journal's
    cut (`warehouse.privacy.cut.cut_everywhere`) reaches the backups at once, by name.
    """
    from warehouse.privacy.erase import erase_named

    return _rewrite_backups(backups, lambda con: erase_named(con, users)) if users else []


def default_backups(data_dir: Path) -> Path:
    """Where the backups are when the caller has no settings at hand (the crawl's writers):
    BODOGE_BACKUP_DIR, else DATA_DIR/backups, as `core.settings.Settings.backups` says."""
    return Path(os.environ.get("BODOGE_BACKUP_DIR") or Path(data_dir) / "backups").resolve()


def _rewrite_backups(backups: Path, erase: Callable[[duckdb.DuckDBPyConnection], set[str]]) -> list[str]:
    """Apply `erase` to every kept backup; those it changed are checkpointed and re-manifested."""
    from warehouse.privacy.erase import TooManyToErase

    rewritten = []
    for backup in list_backups(backups):
        with duckdb.connect(str(backup.database)) as con:
            try:
                if not erase(con):
                    continue
            except TooManyToErase as exc:
                log.warning("backup %s not scrubbed: %s", backup.name, exc)
                continue
            con.execute("CHECKPOINT")
            counts = table_counts(con)
        sha, size = file_sha256(backup.database)
        manifest = json.loads((backup.path / MANIFEST).read_text(encoding="utf-8"))
        manifest.update({"sha256": sha, "bytes": size, "tables": counts,
                         "scrubbed_at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
        tmp = backup.path / f".{MANIFEST}.tmp"
        _write_json(tmp, manifest)
        os.replace(tmp, backup.path / MANIFEST)
        rewritten.append(backup.name)
    if rewritten:
        log.info("backups: members no longer public cut from %d backup(s)", len(rewritten))
    return rewritten


def replaced_files(warehouse: Path) -> list[Path]:
    """The files restores kept beside `warehouse` (`<name>.replaced-<time>`), not their WALs."""
    return sorted(p for p in warehouse.parent.glob(f"{warehouse.name}.replaced-*")
                  if p.is_file() and not p.name.endswith(".wal"))


def scrub_replaced(warehouse: Path, erase: Callable[[duckdb.DuckDBPyConnection], set[str]]) -> list[str]:
    """Apply a privacy cut (`erase`, from `warehouse.privacy.erase`) to every kept replaced
    file, checkpointed with its WAL; returns the files rewritten. One that does not open or
    cannot be cut is said in one line (it may still hold members private now: remove it)."""
    from warehouse.privacy.erase import TooManyToErase

    rewritten = []
    for path in replaced_files(warehouse):
        stamp = path.name.rsplit(".replaced-", 1)[1]
        legacy_wal = path.with_name(f"{warehouse.name}.wal.replaced-{stamp}")  # kept by older restores
        if legacy_wal.exists():
            os.replace(legacy_wal, path.with_name(path.name + ".wal"))
        try:
            with duckdb.connect(str(path)) as con:
                if erase(con):
                    con.execute("CHECKPOINT")
                    rewritten.append(path.name)
        except TooManyToErase as exc:
            log.warning("%s not scrubbed: %s", path, exc)
        except duckdb.Error as exc:
            log.warning("%s cannot be scrubbed (%s): it may hold members who are private now; "
                        "remove it once you no longer need it", path, first_line(exc))
    return rewritten


def table_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Rows of every table of the connection's own database, as {"schema.table": n}: one query
    for all of them (a backup counts its source and its copy: on a night's 43 tables a query each
    took 24-27 ms of CPU, one query 9-12 ms)."""
    tables = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "ORDER BY schema_name, table_name").fetchall()
    if not tables:
        return {}
    counts = dict(con.execute(" UNION ALL ".join(
        f'SELECT {i} AS i, count(*) AS n FROM "{s}"."{t}"' for i, (s, t) in enumerate(tables))).fetchall())
    return {f"{s}.{t}": int(counts[i]) for i, (s, t) in enumerate(tables)}


def read_every_row(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Read a table ("schema.table") whole, batch by batch (memory stays flat): DuckDB checks
    the checksum of each block as it loads it, so a damaged block of any table shows here."""
    schema, name = table.split(".", 1)
    for _ in con.sql(f'SELECT * FROM "{schema}"."{name}"').to_arrow_reader(1 << 16):
        pass


def verify_backup(folder: Path) -> Backup:
    """The backup in `folder` if its file still has its manifest's checksum and row counts.

    Hashes the whole file, so a flipped byte anywhere is found, then scans every table.
    """
    backup = read_manifest(folder)
    sha, size = file_sha256(backup.database)
    if size != backup.bytes or sha != backup.sha256:
        raise BackupError(f"backup {folder.name} is damaged: its file no longer has the manifest's checksum")
    found = _open_and_count(backup.database, scan=True)
    if found != backup.tables:
        raise BackupError(f"backup {folder.name} does not hold the rows its manifest counts")
    return backup


def read_manifest(folder: Path) -> Backup:
    """The backup a folder's manifest describes (no verification); BackupError without one."""
    try:
        data: dict[str, Any] = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
        return Backup(path=Path(folder), created_at=datetime.fromisoformat(data["created_at"]),
                      run_id=data.get("run_id"), bytes=int(data["bytes"]), sha256=str(data["sha256"]),
                      tables={str(k): int(v) for k, v in data["tables"].items()},
                      seconds=float(data.get("seconds", 0)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BackupError(f"{folder} is not a backup (no readable {MANIFEST}: {first_line(exc)})") from exc


def list_backups(backups: Path) -> list[Backup]:
    """The backups with a readable manifest, newest first (not verified: see verify_backup)."""
    if not backups.is_dir():
        return []
    found = []
    for folder in backups.iterdir():
        if folder.is_dir() and _NAME.match(folder.name):
            try:
                found.append(read_manifest(folder))
            except BackupError:
                continue
    return sorted(found, key=lambda b: (b.created_at, b.name), reverse=True)


def to_keep(created: list[datetime], *, daily: int = DAILY, weekly: int = WEEKLY) -> set[int]:
    """Indexes of `created` that retention keeps: the newest of each of the last `daily` days
    and `weekly` ISO weeks that have a backup, and the newest overall."""
    order = sorted(range(len(created)), key=lambda i: created[i], reverse=True)
    keep: set[int] = set(order[:1])
    for key, limit in ((lambda t: t.date(), daily), (lambda t: t.isocalendar()[:2], weekly)):
        seen: list[Any] = []
        for i in order:
            period = key(created[i].astimezone(timezone.utc))
            if period in seen:
                continue
            if len(seen) == limit:
                break
            seen.append(period)
            keep.add(i)
    return keep


def prune(backups: Path, *, daily: int = DAILY, weekly: int = WEEKLY) -> list[str]:
    """Remove the backups retention does not keep; returns their names."""
    found = list_backups(backups)
    keep = to_keep([b.created_at for b in found], daily=daily, weekly=weekly)
    removed = []
    for i, backup in enumerate(found):
        if i not in keep:
            shutil.rmtree(backup.path, ignore_errors=True)
            removed.append(backup.name)
    return removed


def sweep_partial(backups: Path) -> list[str]:
    """Remove `.tmp-*` folders of backups whose process died before finishing."""
    from ops.procs import owner_alive

    swept = []
    for folder in backups.glob(".tmp-*"):
        pid = folder.name.rsplit("-", 1)[-1]
        try:  # a pid alone: its process counts only if it started before the folder was made
            written_at = folder.stat().st_mtime
        except OSError:
            continue
        if pid.isdigit() and (int(pid) == os.getpid() or not owner_alive(pid, written_at=written_at)):
            shutil.rmtree(folder, ignore_errors=True)
            swept.append(folder.name)
    return swept


def file_sha256(path: Path) -> tuple[str, int]:
    """(sha256 hex, size) of a file, read in chunks."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def copy_file(source: Path, target: Path) -> None:
    """Copy a file and flush it to disk (a backup or a restore must survive a power cut)."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, _CHUNK)
        dst.flush()
        os.fsync(dst.fileno())


def _open_and_count(path: Path, *, scan: bool = False) -> dict[str, int]:
    """Open a database file read-only, check its blocks, count (and with `scan` read) every table."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise BackupError(f"{path} does not open: {first_line(exc)}") from exc
    try:
        verify_intact(con, path)
        counts = table_counts(con)
        if scan:
            for table in counts:
                read_every_row(con, table)
        return counts
    except duckdb.Error as exc:
        raise BackupError(f"{path} is damaged: {first_line(exc)}") from exc
    finally:
        con.close()


def _write_json(path: Path, data: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
