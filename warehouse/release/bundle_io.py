"""Writing export bundle files so that a crash never leaves a half-written one behind.

Why a module of its own: both the exporter (`warehouse.release.export`) and the bundle keeper
(`warehouse.release.retention`, which rewrites old bundles) need the same durable writes,
and neither should import the other's internals.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

MANIFEST = "manifest.json"
DELTAS = "deltas"
"""The folder of `exports/` holding delta bundles (`warehouse.release.delta`)."""
TMP_PREFIX = ".tmp-"


class ExportError(Exception):
    """Nothing to export (no recommendations yet) or the bundle could not be written."""


def write_synced(path: Path, data: bytes) -> str:
    """Write `data` to `path` and fsync it; returns its sha256."""
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return hashlib.sha256(data).hexdigest()


def sync_file(path: Path) -> str:
    """fsync a file something else wrote (Polars, for one); returns its sha256, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb+") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
        os.fsync(handle.fileno())
    return digest.hexdigest()


def replace_synced(path: Path, data: bytes) -> str:
    """Replace `path` atomically (temp file, fsync, os.replace, fsync of the folder).

    A reader sees the old file or the new one, never a mix; a crash leaves at most a
    `<name>.tmp` beside it. Returns the sha256 of `data`.
    """
    tmp = path.with_name(path.name + ".tmp")
    digest = write_synced(tmp, data)
    os.replace(tmp, path)
    fsync_dir(path.parent)
    return digest


def fsync_dir(path: Path) -> None:
    """Make a rename inside `path` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def drop_dir(path: Path) -> None:
    """Delete a folder so a crash mid-way leaves only litter (`.tmp-*`), never a half bundle.

    The folder is first renamed to a hidden `.tmp-drop-<name>` (atomic); the next sweep of
    litter finishes the job if this process dies during the delete.
    """
    doomed = path.with_name(f"{TMP_PREFIX}drop-{path.name}")
    if doomed.exists():
        shutil.rmtree(doomed)
    os.replace(path, doomed)
    fsync_dir(path.parent)
    shutil.rmtree(doomed)


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
