"""The export bundle the site reads (docs/interface.md), written so no reader sees half of it.

`exports/<run_id>/` gets `recommendations.jsonl` (a line for every member with a list: every
public member once welcome lists are ranked, `welcome` saying which), `next_to_play.jsonl` (each member's
owned-but-unplayed games, ranked; from marts.next_to_play), `watch_next.jsonl` (each
member's 興味あり games, ranked; from marts.watch_next), `similar_games.jsonl` and
`manifest.json` (sha256 of every file), each JSONL file's JSON Schema in `schemas/` and
their `schema_version` (`warehouse.release.schemas`). Every item carries its `rank`. The
bundle is written in a hidden temporary folder, fsynced, every line validated against
its schema (a bad line fails the export: nothing is published) and renamed into place.
LATEST is not moved here: `warehouse.release.release` moves it right after published.duckdb, so
the site and the readers of the published night see the same night. Re-exporting the
same run id rewrites that bundle the same way. Only what the site already shows publicly
goes out: members' ids from public collections and game ids, never other members' data.

Litter a killed export left is swept first, and the new bundle is cut down to the
members public now (read again only if one of its members is not); once LATEST names it,
old bundles are pruned (at most BODOGE_KEEP_EXPORTS kept, members no longer public cut
from every one): see `warehouse.release.retention`.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from warehouse.release.bucket_export import PER_MEMBER_FILES, PartsMissing, assemble_part_files, missing_parts
from warehouse.release.bundle_io import (
    MANIFEST,
    TMP_PREFIX,
    ExportError,
    drop_dir,
    fsync_dir,
    latest_bundle,
    sync_file,
    verify_bundle,
    write_synced,
)
from warehouse.release.grouped import PER_USER_FIELDS, marts_table, welcome_flag, write_grouped
from warehouse.release.pause import pause_point
from warehouse.release.retention import keep_exports, remove_litter, scrub_new_bundle
from warehouse.release.schemas import SCHEMA_VERSION, validate_bundle, write_schemas

FILES = ("recommendations.jsonl", "next_to_play.jsonl", "watch_next.jsonl", "similar_games.jsonl")
__all__ = ["Bundle", "ExportError", "bundle_run_id", "export_bundle", "latest_bundle", "verify_bundle"]


@dataclass(frozen=True, slots=True)
class Bundle:
    """A complete export on disk."""

    run_id: str
    path: Path
    manifest: dict


def export_bundle(con: duckdb.DuckDBPyConnection, exports_dir: Path, *, keep: int | None = None,
                  parts: tuple[Path, Sequence[str]] | None = None) -> Bundle:
    """Write the bundle of the latest recommendation run (not yet named by LATEST).

    `keep` (default: env BODOGE_KEEP_EXPORTS, else 7) is only checked here, before anything
    is written, so a bad value fails the export cleanly; the release prunes with it.
    `parts` (a folder and the bucket keys): the per-member files are assembled from the
    buckets' parts there (`warehouse.release.bucket_export`), the same bytes, and the folder
    is removed once the bundle is in place; similar games and the rest as without.
    """
    if keep is None:
        keep_exports()
    pause_point("export", exports_dir.parent)
    if parts is not None and (missing := missing_parts(*parts)):
        raise PartsMissing(f"export parts not written: {', '.join(missing)} (in {parts[0]}); write them, then the bundle")
    recs = marts_table(con, "recommendations")
    run_id = _one_run(con)
    model = con.execute("SELECT any_value(model) FROM marts.recommendations").fetchall()[0][0]
    shelves = {table: _shelf(con, table, run_id) for table in ("next_to_play", "watch_next")}

    exports_dir.mkdir(parents=True, exist_ok=True)
    remove_litter(exports_dir)
    staging = exports_dir / f"{TMP_PREFIX}{run_id}"
    staging.mkdir()
    sources = {
        "recommendations.jsonl": (recs, "user_id", PER_USER_FIELDS),
        "next_to_play.jsonl": (shelves["next_to_play"], "user_id", PER_USER_FIELDS),
        "watch_next.jsonl": (shelves["watch_next"], "user_id", PER_USER_FIELDS),
        "similar_games.jsonl": (marts_table(con, "similar_games"), "game_id",
                                {"similar_game_id": "game_id", "score": "score"}),
    }
    checksums, sizes = {}, {}
    for name in FILES:
        source, key, fields = sources[name]
        line = welcome_flag(con) if name == "recommendations.jsonl" else ""
        if parts is not None and name in PER_MEMBER_FILES:
            sizes[name] = assemble_part_files(parts[0], parts[1], name, staging / name)
        else:
            sizes[name] = write_grouped(con, source, key, fields, staging / name, line=line)
        checksums[name] = sync_file(staging / name)
    manifest = {
        "run_id": run_id,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model": model,
        "counts": {
            "users": sizes["recommendations.jsonl"][0],
            "recommendations": sizes["recommendations.jsonl"][1],
            "games": sizes["similar_games.jsonl"][0],
            "similar_games": sizes["similar_games.jsonl"][1],
            "next_to_play_users": sizes["next_to_play.jsonl"][0],
            "next_to_play": sizes["next_to_play.jsonl"][1],
            "watch_next_users": sizes["watch_next.jsonl"][0],
            "watch_next": sizes["watch_next.jsonl"][1],
        },
        "schema_version": SCHEMA_VERSION,
        "files": {name: {"sha256": digest, "bytes": (staging / name).stat().st_size} for name, digest in checksums.items()}
        | write_schemas(staging, FILES),
    }
    write_synced(staging / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2).encode("utf-8"))
    try:
        validate_bundle(staging)  # every line, before the bundle is renamed into place
    except ExportError:
        drop_dir(staging)
        raise

    final = exports_dir / run_id
    if final.exists():
        drop_dir(final)
    os.replace(staging, final)
    fsync_dir(exports_dir)
    if parts is not None:  # members' lists: kept no longer than the bundle needs them
        shutil.rmtree(parts[0], ignore_errors=True)
    members = {row[0] for source in (recs, *shelves.values()) if source
               for row in con.execute(f"SELECT DISTINCT user_id FROM {source}").fetchall()}
    scrub_new_bundle(con, final, members)  # members found private since the marts were built
    manifest = json.loads((final / MANIFEST).read_text(encoding="utf-8"))  # as scrubbed
    return Bundle(run_id=run_id, path=final, manifest=manifest)


def bundle_run_id(con: duckdb.DuckDBPyConnection) -> str:
    """The run id of the bundle the warehouse's recommendations export to (its folder name)."""
    return _one_run(con)


def _one_run(con: duckdb.DuckDBPyConnection) -> str:
    source = marts_table(con, "recommendations")
    run_ids = [row[0] for row in con.execute(f"SELECT DISTINCT run_id FROM {source}").fetchall()] if source else []
    if not run_ids:
        raise ExportError("marts.recommendations is empty: nothing to export")
    if len(run_ids) != 1:
        raise ExportError(f"marts.recommendations mixes runs {sorted(run_ids)}")
    return run_ids[0]



def _shelf(con: duckdb.DuckDBPyConnection, table: str, run_id: str) -> str | None:
    """A shelf mart (`next_to_play`, `watch_next`) holding only this run's rows, or None."""
    source = marts_table(con, table)
    if source is None:
        return None
    stale = con.execute(f"SELECT run_id FROM {source} WHERE run_id IS DISTINCT FROM ? LIMIT 1", [run_id]).fetchall()
    if stale:
        raise ExportError(f"marts.{table} holds run {stale[0][0]}, not {run_id}")
    return source
