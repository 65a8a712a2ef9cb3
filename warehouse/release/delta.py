"""Delta bundles: a few members' fresh lists for the site, between two nights (`bodoge refresh`).

Why a bundle of its own: the site takes whole bundles (`exports/<run>/`, named by
`exports/LATEST`) once a night; a member refreshed at 21:00 changes three lines, and
shipping a whole bundle (1.2 GB at the real size) for them would be absurd. A delta is
`exports/deltas/<id>/`: the per-member files of the whole bundle (`DELTA_FILES`) holding
only the refreshed members' lines, written by the same query, with the same JSON Schemas
and a manifest naming the whole bundle it amends (`base_run_id`). It is validated line by
line before it is renamed into place, like a whole bundle. `LATEST` keeps naming the
last whole bundle: a delta amends it, never replaces it.

Its lines replace the base bundle's lines of the same members; a member absent from a
delta file has no list of that kind now (an emptied shelf). Deltas of an older base are
deleted when a new one is written or a new night is released (`prune_deltas`), and the
privacy cuts read deltas like bundles (`warehouse.release.retention`).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from warehouse.release.bundle_io import DELTAS, MANIFEST, ExportError, drop_dir, fsync_dir, sync_file, write_synced
from warehouse.release.export import PER_USER_FIELDS, marts_table, welcome_flag, write_grouped
from warehouse.release.schemas import SCHEMA_VERSION, validate_bundle, write_schemas

DELTA_FILES = {"recommendations.jsonl": "recommendations", "next_to_play.jsonl": "next_to_play",
               "watch_next.jsonl": "watch_next"}
"""Each file of a delta and the mart its lines come from."""


@dataclass(frozen=True)
class Delta:
    """A delta bundle written: its id, folder and manifest."""

    delta_id: str
    path: Path
    manifest: dict


def deltas_dir(exports_dir: Path) -> Path:
    return Path(exports_dir) / DELTAS


def write_delta(con: duckdb.DuckDBPyConnection, exports_dir: Path, *, users: list[str], base_run_id: str | None,
                night_id: str | None) -> Delta:
    """The delta bundle of `users`' rows in `con`'s marts (the three per-member files),
    validated, then renamed into `exports/deltas/<id>/`."""
    created = datetime.now(timezone.utc)
    delta_id = f"refresh-{created.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"
    folder = deltas_dir(exports_dir)
    folder.mkdir(parents=True, exist_ok=True)
    staging = folder / f".tmp-{delta_id}"
    staging.mkdir()
    con.execute("CREATE OR REPLACE TEMP TABLE refresh_users AS SELECT unnest(?::VARCHAR[]) AS user_id", [users])
    try:
        sizes, digests = {}, {}
        for name, mart in DELTA_FILES.items():
            table = marts_table(con, mart)
            source = f"(SELECT * FROM {table} SEMI JOIN refresh_users USING (user_id))" if table else None
            line = welcome_flag(con) if name == "recommendations.jsonl" else ""
            sizes[name] = write_grouped(con, source, "user_id", PER_USER_FIELDS, staging / name, line=line)
            digests[name] = sync_file(staging / name)
        manifest = {
            "kind": "delta",
            "run_id": delta_id,
            "base_run_id": base_run_id,
            "night_id": night_id,
            "created_at": created.isoformat(timespec="seconds"),
            # The counts of a whole bundle's manifest (a privacy cut updates them alike); no
            # list of ids: a member cut from the lines must leave no trace in the manifest.
            "counts": {"users": sizes["recommendations.jsonl"][0], "recommendations": sizes["recommendations.jsonl"][1],
                       "next_to_play_users": sizes["next_to_play.jsonl"][0], "next_to_play": sizes["next_to_play.jsonl"][1],
                       "watch_next_users": sizes["watch_next.jsonl"][0], "watch_next": sizes["watch_next.jsonl"][1]},
            "schema_version": SCHEMA_VERSION,
            "files": {name: {"sha256": digest, "bytes": (staging / name).stat().st_size} for name, digest in digests.items()}
            | write_schemas(staging, DELTA_FILES),
        }
        write_synced(staging / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2).encode("utf-8"))
        validate_bundle(staging)  # every line, before the delta is renamed into place
    except BaseException:
        drop_dir(staging)
        raise
    finally:
        con.execute("DROP TABLE IF EXISTS refresh_users")
    final = folder / delta_id
    os.replace(staging, final)
    fsync_dir(folder)
    return Delta(delta_id=delta_id, path=final, manifest=manifest)


def delta_bundles(exports_dir: Path) -> list[Path]:
    """The complete delta bundles (a folder with a manifest), oldest first."""
    folder = deltas_dir(exports_dir)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST).is_file())


def prune_deltas(exports_dir: Path, *, base_run_id: str | None) -> list[str]:
    """Delete the deltas that amend another bundle than `base_run_id` (the one LATEST names),
    unreadable ones and staging leftovers; returns their names."""
    folder = deltas_dir(exports_dir)
    if not folder.is_dir():
        return []
    gone = []
    for path in sorted(folder.iterdir()):
        if not path.is_dir():
            continue
        try:
            base = json.loads((path / MANIFEST).read_text(encoding="utf-8")).get("base_run_id")
        except (OSError, ValueError, AttributeError):
            base = object()  # a staging leftover or a broken delta: never current
        if base != base_run_id:
            drop_dir(path)
            gone.append(path.name)
    return gone


def require_delta(path: Path) -> dict:
    """The manifest of a delta bundle, or a one-line ExportError."""
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExportError(f"delta bundle {path} is unreadable: {exc}") from None
    if manifest.get("kind") != "delta":
        raise ExportError(f"{path} is not a delta bundle")
    return manifest
