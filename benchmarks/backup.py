"""Backup and restore of the warehouse at the real site's size, beside DuckDB's other means.

Builds the synthetic real-size warehouse of `benchmarks.publish_snapshot` (25,000 games,
100,000 members, ~3M collection rows, 100 recommendations per member, 20 similar games per
game) and times, each on the same file:
- ours: `warehouse.backup.backup.make_backup` (CHECKPOINT, copy with fsync, hash, open and count
  every table), `verify_backup` (hash again and read every table) and the restore's copy;
- bare: `shutil.copyfile` of the same file (the floor for any file copy);
- DuckDB's `EXPORT DATABASE … (FORMAT parquet)` and `IMPORT DATABASE` (a smaller backup
  that restores by loading every table again);
- DuckDB's `COPY FROM DATABASE` into a fresh file (a compacted copy);
- `scrub_backups` after one member turned private.

Prints JSON. Usage: uv run python -m benchmarks.backup [--games 25000] [--members 100000] [--rows 3000000]
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

from benchmarks.options import options
from benchmarks.publish_snapshot import build, frames
from warehouse.backup.backup import make_backup, scrub_backups, verify_backup
from warehouse.db import connect
from warehouse.privacy.public import public_users


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def _timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return round(time.perf_counter() - started, 2)


def measure(games: int, members: int, rows: int, work: Path) -> dict[str, Any]:
    """Every figure of the module docstring, on a warehouse built in `work`."""
    warehouse = work / "warehouse.duckdb"
    build_seconds = _timed(lambda: build(warehouse, frames(games, members, rows, 100, 20)))
    out: dict[str, Any] = {"warehouse_mb": round(_size(warehouse) / 1e6, 1), "build_seconds": build_seconds}

    with connect(warehouse) as con:
        backup = make_backup(con, warehouse, work / "backups", run_id="bench")
    out["ours"] = {"backup_seconds": round(backup.seconds, 2), "backup_mb": round(backup.bytes / 1e6, 1),
                   "verify_seconds": _timed(lambda: verify_backup(backup.path)),
                   "restore_copy_seconds": _timed(lambda: shutil.copyfile(backup.database, work / "restored.duckdb"))}
    out["bare_copy_seconds"] = _timed(lambda: shutil.copyfile(warehouse, work / "bare.duckdb"))

    export_dir = work / "export"
    with duckdb.connect(str(warehouse)) as con:
        out["export_parquet"] = {"seconds": _timed(lambda: con.execute(
            f"EXPORT DATABASE '{export_dir}' (FORMAT parquet)")), "mb": round(_size(export_dir) / 1e6, 1)}
        compact = work / "compact.duckdb"
        con.execute(f"ATTACH '{compact}' AS compact")
        out["copy_from_database"] = {"seconds": _timed(lambda: con.execute(
            "COPY FROM DATABASE warehouse TO compact")), "mb": None}
        con.execute("DETACH compact")
        out["copy_from_database"]["mb"] = round(_size(compact) / 1e6, 1)
    with duckdb.connect(str(work / "imported.duckdb")) as fresh:
        out["export_parquet"]["import_seconds"] = _timed(lambda: fresh.execute(f"IMPORT DATABASE '{export_dir}'"))

    with connect(warehouse) as con:
        public = public_users(con)
    gone = sorted(public)[0]
    out["scrub_one_member_seconds"] = _timed(lambda: scrub_backups(work / "backups", public - {gone}))
    return out


def main(argv: list[str] | None = None) -> int:
    args = options(argv, __doc__.splitlines()[0], games=25_000, members=100_000, rows=3_000_000)
    with tempfile.TemporaryDirectory(prefix="bodoge-backup-") as tmp:
        result = measure(args.games, args.members, args.rows, Path(tmp))
    print(json.dumps({"games": args.games, "members": args.members, "rows": args.rows, **result}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
