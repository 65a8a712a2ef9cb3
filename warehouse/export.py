"""The export bundle the site reads (docs/interface.md), written so no reader sees half of it.

`exports/<run_id>/` gets `recommendations.jsonl`, `next_to_play.jsonl` (each member's
owned-but-unplayed games, ranked; from marts.next_to_play), `watch_next.jsonl` (each
member's 興味あり games, ranked; from marts.watch_next), `similar_games.jsonl` and
`manifest.json` (sha256 of every file), each JSONL file's JSON Schema in `schemas/` and
their `schema_version` (`warehouse.export_schemas`). Every item carries its `rank`. The
bundle is written in a hidden temporary folder, fsynced, every line validated against
its schema (a bad line fails the export: nothing is published) and renamed into place.
LATEST is not moved here: `warehouse.release` moves it right after published.duckdb, so
the site and the readers of the published night see the same night. Re-exporting the
same run id rewrites that bundle the same way. Only what the site already shows publicly
goes out: members' ids from public collections and game ids, never other members' data.

Litter a killed export left is swept first, and the new bundle is cut down to the
members public now; once LATEST names it, old bundles are pruned (at most
BODOGE_KEEP_EXPORTS kept, members no longer public cut from every one): see
`warehouse.export_retention`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl

from warehouse.bundle_io import (
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
from warehouse.export_retention import keep_exports, remove_litter, scrub_bundles
from warehouse.export_schemas import SCHEMA_VERSION, validate_bundle, write_schemas

FILES = ("recommendations.jsonl", "next_to_play.jsonl", "watch_next.jsonl", "similar_games.jsonl")
__all__ = ["Bundle", "ExportError", "bundle_run_id", "export_bundle", "latest_bundle", "verify_bundle"]


@dataclass(frozen=True, slots=True)
class Bundle:
    """A complete export on disk."""

    run_id: str
    path: Path
    manifest: dict


def export_bundle(con: duckdb.DuckDBPyConnection, exports_dir: Path, *, keep: int | None = None) -> Bundle:
    """Write the bundle of the latest recommendation run (not yet named by LATEST).

    `keep` (default: env BODOGE_KEEP_EXPORTS, else 7) is only checked here, before anything
    is written, so a bad value fails the export cleanly; the release prunes with it.
    """
    if keep is None:
        keep_exports()
    recs = con.sql(
        "SELECT user_id, rank, game_id, score, reason, model, run_id FROM marts.recommendations ORDER BY user_id, rank"
    ).pl()
    run_id, model = _one_run(recs), recs["model"][0]
    similar = con.sql("SELECT game_id, rank, similar_game_id, score FROM marts.similar_games ORDER BY game_id, rank").pl()
    shelf = _shelf(con, "next_to_play", run_id)
    watched = _shelf(con, "watch_next", run_id)

    exports_dir.mkdir(parents=True, exist_ok=True)
    remove_litter(exports_dir)
    staging = exports_dir / f"{TMP_PREFIX}{run_id}"
    staging.mkdir()
    frames = {
        "recommendations.jsonl": _grouped(recs, "user_id", {"game_id": "game_id", "score": "score", "reason": "reason"}),
        "next_to_play.jsonl": _grouped(shelf, "user_id", {"game_id": "game_id", "score": "score", "reason": "reason"}),
        "watch_next.jsonl": _grouped(watched, "user_id", {"game_id": "game_id", "score": "score", "reason": "reason"}),
        "similar_games.jsonl": _grouped(similar, "game_id", {"similar_game_id": "game_id", "score": "score"}),
    }
    checksums = {}
    for name in FILES:
        frames[name].write_ndjson(staging / name)  # straight from Arrow: no Python object per row
        checksums[name] = sync_file(staging / name)
    manifest = {
        "run_id": run_id,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model": model,
        "counts": {
            "users": recs["user_id"].n_unique(),
            "recommendations": recs.height,
            "games": similar["game_id"].n_unique() if similar.height else 0,
            "similar_games": similar.height,
            "next_to_play_users": shelf["user_id"].n_unique() if shelf.height else 0,
            "next_to_play": shelf.height,
            "watch_next_users": watched["user_id"].n_unique() if watched.height else 0,
            "watch_next": watched.height,
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
    scrub_bundles(con, exports_dir)  # members found private since the marts were built
    manifest = json.loads((final / MANIFEST).read_text(encoding="utf-8"))  # as scrubbed
    return Bundle(run_id=run_id, path=final, manifest=manifest)


def bundle_run_id(con: duckdb.DuckDBPyConnection) -> str:
    """The run id of the bundle the warehouse's recommendations export to (its folder name)."""
    return _one_run(con.sql("SELECT DISTINCT run_id FROM marts.recommendations").pl())


def _one_run(recs: pl.DataFrame) -> str:
    if recs.height == 0:
        raise ExportError("marts.recommendations is empty: nothing to export")
    run_ids = recs["run_id"].unique().to_list()
    if len(run_ids) != 1:
        raise ExportError(f"marts.recommendations mixes runs {sorted(run_ids)}")
    return run_ids[0]


def _shelf(con: duckdb.DuckDBPyConnection, table: str, run_id: str) -> pl.DataFrame:
    """This run's rows of a shelf mart (`next_to_play`, `watch_next`); none before the first
    night that wrote the table."""
    exists = con.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'marts' AND table_name = ?", [table]
    ).fetchall()
    if not exists:
        return pl.DataFrame(schema={"user_id": pl.String, "rank": pl.Int32, "game_id": pl.String,
                                    "score": pl.Float64, "reason": pl.String})
    shelf = con.sql(
        f"SELECT user_id, rank, game_id, score, reason, run_id FROM marts.{table} ORDER BY user_id, rank"
    ).pl()
    stale = shelf.filter(pl.col("run_id") != run_id)
    if stale.height:
        raise ExportError(f"marts.{table} holds run {stale['run_id'][0]}, not {run_id}")
    return shelf.drop("run_id")


def _grouped(frame: pl.DataFrame, key: str, fields: dict[str, str]) -> pl.DataFrame:
    """One row per key, its rows (already in rank order) as the list `items` of structs,
    each with its `rank` first (the site need not count, and a gap would show).

    Why frames written by Polars rather than `json.dumps` per line: at the real site's
    size (100,000 members × 100 games) a Python dict per row peaked at 9.4 GB.
    """
    return frame.group_by(key, maintain_order=True).agg(
        pl.struct([pl.col("rank"), *(pl.col(src).alias(dst) for src, dst in fields.items())]).alias("items")
    ).select(key, "items")
