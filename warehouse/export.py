"""The export bundle the site reads (CONTRACT.md), written so no reader sees half of it.

`exports/<run_id>/` gets `recommendations.jsonl`, `similar_games.jsonl` and
`manifest.json` (sha256 of every file). The bundle is written in a hidden temporary
folder, fsynced, renamed into place, and only then does `exports/LATEST` (replaced
atomically with os.replace) name it. Re-exporting the same run id rewrites that
bundle the same way. Only what the site already shows publicly goes out: members'
ids from public collections and game ids, never other members' data.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl

FILES = ("recommendations.jsonl", "similar_games.jsonl")


class ExportError(Exception):
    """Nothing to export (no recommendations yet) or the bundle could not be written."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """A complete export on disk."""

    run_id: str
    path: Path
    manifest: dict


def export_bundle(con: duckdb.DuckDBPyConnection, exports_dir: Path) -> Bundle:
    """Write the bundle of the latest recommendation run and point LATEST at it."""
    recs = con.sql(
        "SELECT user_id, rank, game_id, score, reason, model, run_id FROM marts.recommendations ORDER BY user_id, rank"
    ).pl()
    if recs.height == 0:
        raise ExportError("marts.recommendations is empty: nothing to export")
    run_ids = recs["run_id"].unique().to_list()
    if len(run_ids) != 1:
        raise ExportError(f"marts.recommendations mixes runs {sorted(run_ids)}")
    run_id, model = run_ids[0], recs["model"][0]
    similar = con.sql("SELECT game_id, rank, similar_game_id, score FROM marts.similar_games ORDER BY game_id, rank").pl()

    exports_dir.mkdir(parents=True, exist_ok=True)
    staging = exports_dir / f".tmp-{run_id}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    lines = {
        "recommendations.jsonl": _grouped_lines(
            recs, "user_id", {"game_id": "game_id", "score": "score", "reason": "reason"}
        ),
        "similar_games.jsonl": _grouped_lines(similar, "game_id", {"similar_game_id": "game_id", "score": "score"}),
    }
    checksums = {}
    for name in FILES:
        checksums[name] = _write_synced(staging / name, lines[name].encode("utf-8"))
    manifest = {
        "run_id": run_id,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model": model,
        "counts": {
            "users": recs["user_id"].n_unique(),
            "recommendations": recs.height,
            "games": similar["game_id"].n_unique() if similar.height else 0,
            "similar_games": similar.height,
        },
        "files": {name: {"sha256": digest, "bytes": (staging / name).stat().st_size} for name, digest in checksums.items()},
    }
    _write_synced(staging / "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=2).encode("utf-8"))

    final = exports_dir / run_id
    if final.exists():
        shutil.rmtree(final)
    os.replace(staging, final)
    _fsync_dir(exports_dir)
    _write_synced(exports_dir / "LATEST.tmp", (run_id + "\n").encode("utf-8"))
    os.replace(exports_dir / "LATEST.tmp", exports_dir / "LATEST")
    _fsync_dir(exports_dir)
    return Bundle(run_id=run_id, path=final, manifest=manifest)


def latest_bundle(exports_dir: Path) -> Path | None:
    """The folder LATEST names, or None before the first export."""
    latest = exports_dir / "LATEST"
    if not latest.exists():
        return None
    return exports_dir / latest.read_text(encoding="utf-8").strip()


def verify_bundle(path: Path) -> dict:
    """Check every file against the manifest; returns the manifest or raises ExportError."""
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    for name, info in manifest["files"].items():
        digest = hashlib.sha256((path / name).read_bytes()).hexdigest()
        if digest != info["sha256"]:
            raise ExportError(f"{path / name}: checksum mismatch")
    return manifest


def _grouped_lines(frame: pl.DataFrame, key: str, fields: dict[str, str]) -> str:
    """One JSON line per key, its rows (already in rank order) as `items`."""
    if frame.height == 0:
        return ""
    grouped = frame.group_by(key, maintain_order=True).agg(
        pl.struct([pl.col(src).alias(dst) for src, dst in fields.items()]).alias("items")
    )
    out = []
    for row in grouped.iter_rows(named=True):
        out.append(json.dumps({key: row[key], "items": row["items"]}, ensure_ascii=False))
    return "\n".join(out) + "\n"


def _write_synced(path: Path, data: bytes) -> str:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return hashlib.sha256(data).hexdigest()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
