"""Releasing a night: published.duckdb and exports/LATEST move together, last.

Why: readers of the published night and the site (which follows LATEST) must see the
same night; if LATEST moved when the export was written, before the published night, a
full disk or a kill at publish would leave LATEST on a night that says nothing was
published. The rule: the night's end is, in order:

1. the bundle `exports/<run_id>/` is written whole, every line validated against its JSON
   Schema (`warehouse.release.export`, `warehouse.release.schemas`; LATEST unmoved),
2. the next published night is written whole to a temporary file, its `marts.publication`
   naming that bundle (`export_run_id`),
3. published.duckdb is replaced (os.replace), then at once LATEST (os.replace),
4. old bundles are pruned.

A crash before 3 leaves both on the previous night, and the unreleased bundle is removed
by the next run; a crash between the two replaces leaves the published night ahead of
LATEST, and the next run, at start-up, points LATEST at the bundle the published night
names (`repair_release`). Readers thus see the two disagree only for the instant between
two os.replace calls, or from such a crash to the next run.

Test hook (the only one): with `BODOGE_TEST_PAUSE_AT` set to `export` (before the export
bundle is written: `warehouse.release.export`), `publish` (2 done), `latest`
(published.duckdb replaced, LATEST not yet) or `prune` (both moved), the process creates
`DATA_DIR/paused-at-<step>`, prints `nightly: paused at <step>` and waits until that file
is removed, so a test can kill -9 a real `bodoge run` exactly between two steps.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import duckdb

from warehouse.release.bundle_io import MANIFEST, ExportError, drop_dir, fsync_dir, write_synced
from warehouse.release.delta import prune_deltas
from warehouse.release.pause import pause_point
from warehouse.release.retention import latest_name, prune_bundles
from warehouse.release.served import prune_served, serve_model
from warehouse.release.publish import Publication, publication, published_path, swap_snapshot, write_snapshot

log = logging.getLogger("bodoge.export")



def release_night(
    con: duckdb.DuckDBPyConnection, data_dir: Path, *, run_id: str, bundle_run_id: str, keep: int | None = None,
    checks: list[dict] | None = None,
) -> Publication:
    """Publish `con`'s marts (with the night's `checks` so far) and point LATEST at
    `exports/<bundle_run_id>`, one right after the other.

    `run_id` is the night's (the Dagster run's): its row of marts.pipeline_runs names the
    bundle (`export_run_id`) in the warehouse and in the published night, and loses it
    again if the release fails before LATEST names the bundle.
    """
    from warehouse.nights import mark_released

    data_dir = Path(data_dir)
    exports = data_dir / "exports"
    if not (exports / bundle_run_id / MANIFEST).is_file():
        raise ExportError(f"export bundle {exports / bundle_run_id} is missing: nothing was released")
    started = time.perf_counter()
    mark_released(con, night_id=run_id, export_run_id=bundle_run_id)
    try:
        serve_model(data_dir, bundle_run_id)  # the night's champion beside its bundle (fold-in)
        tmp = write_snapshot(con, data_dir, run_id=run_id, export_run_id=bundle_run_id, checks=checks,
                             night_id=run_id)
        pause_point("publish", data_dir)
        published = swap_snapshot(tmp, data_dir, run_id=run_id, started=started)
        pause_point("latest", data_dir)
        point_latest(exports, bundle_run_id)
    except Exception:
        mark_released(con, night_id=run_id, export_run_id=None)
        raise
    pause_point("prune", data_dir)
    prune_bundles(con, exports, keep=keep)
    prune_deltas(exports, base_run_id=bundle_run_id)  # a refresh's deltas amend the night before
    prune_served(data_dir)
    return published


def point_latest(exports_dir: Path, run_id: str) -> None:
    """Replace exports/LATEST atomically (temp file, fsync, os.replace, fsync of the folder)."""
    write_synced(exports_dir / "LATEST.tmp", (run_id + "\n").encode("utf-8"))
    os.replace(exports_dir / "LATEST.tmp", exports_dir / "LATEST")
    fsync_dir(exports_dir)


def repair_release(data_dir: Path) -> list[str]:
    """At a night's start-up: make LATEST name the bundle the published night goes with, and
    remove bundles no night released; returns one line per repair (none when all agree).

    A published night that names no bundle (`bodoge build`, or a night published before
    bundles were recorded) claims nothing, and LATEST is left as it is.
    """
    data_dir = Path(data_dir)
    exports = data_dir / "exports"
    if not exports.is_dir():
        return []
    said: list[str] = []
    latest = latest_name(exports)
    named = _published_bundle(data_dir)
    if named and named != latest:
        if (exports / named / MANIFEST).is_file():
            point_latest(exports, named)
            said.append(f"exports/LATEST named {latest or 'nothing'} but the published night goes with "
                        f"{named}: LATEST now names {named}")
            latest = named
        else:
            said.append(f"the published night goes with bundle {named}, which is gone: LATEST left on {latest}")
    for bundle in _unreleased(exports, latest):
        drop_dir(bundle)
        said.append(f"removed export bundle {bundle.name}: its night was never released")
    for line in said:
        log.warning("exports: %s", line)
    return said


def released_ids(con: duckdb.DuckDBPyConnection, data_dir: Path) -> tuple[str | None, str | None, str]:
    """What a rebuild (`bodoge build`) publishes its marts as: (`night_id`, `export_run_id`, a
    line saying which). A rebuild makes the marts from raw again and leaves the night's lists as
    they are, so when those lists are the bundle exports/LATEST names, it keeps that night's ids
    and the published night agrees with LATEST. Otherwise (no bundle yet, or lists a later night
    wrote but did not release) it names no night and no bundle, and the line says so plainly.
    """
    from warehouse.release.export import bundle_run_id

    latest = latest_name(Path(data_dir) / "exports")
    try:
        lists = bundle_run_id(con)
    except ExportError:
        lists = None
    if latest is None or lists != latest:
        why = ("no night has exported a bundle yet" if latest is None
               else f"the warehouse's lists ({lists or 'none'}) are not the bundle exports/LATEST names ({latest})")
        return None, None, f"published without a night or a bundle: {why}; the next `bodoge run` exports and releases one"
    night = con.execute("SELECT max_by(night_id, started_at) FROM marts.pipeline_runs WHERE export_run_id = ?",
                        [latest]).fetchall() if con.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'marts' AND table_name = 'pipeline_runs'"
    ).fetchall() else []
    night_id = night[0][0] if night else None
    return night_id, latest, f"as night {night_id or '(unrecorded)'}, with the bundle exports/LATEST names ({latest})"


def _published_bundle(data_dir: Path) -> str | None:
    """The bundle the published night names in marts.publication, or None."""
    path = published_path(data_dir)
    if not path.is_file():
        return None
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            row = publication(con)
    except duckdb.Error:  # a damaged copy claims no bundle: the night replaces it
        return None
    return (row or {}).get("export_run_id") or None


def _unreleased(exports: Path, latest: str | None) -> list[Path]:
    """Complete bundles written after the one LATEST names (all of them before any LATEST).

    Ordered by (created_at, name), as retention orders them: run ids start with their UTC
    time, so within one second of created_at the name still says which came later.
    """
    released = (_created(exports / latest), latest) if latest and (exports / latest / MANIFEST).is_file() else ("", "")
    return sorted(
        p for p in exports.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST).is_file() and p.name != latest
        and (_created(p), p.name) > released
    )


def _created(bundle: Path) -> str:
    try:
        return str(json.loads((bundle / MANIFEST).read_text(encoding="utf-8")).get("created_at", ""))
    except (OSError, ValueError):
        return ""
