"""The model a published night serves with: DATA_DIR/models/served/<bundle>/, beside its bundle.

Why: the HTTP API (`bodoge api`) and `bodoge recommend` re-rank members with the night's
saved champion (fold-in, `models.discovery.foldin`), and must use the champion of the night
they serve, not whatever DATA_DIR/models/champion/ holds: a night saves its champion there
long before it publishes, and a night that fails after discovery leaves its champion there
beside the previous night's lists. So each release links the champion's files into
`models/served/<bundle run id>/` before published.duckdb and exports/LATEST move (hard
links: no copy; the champion is saved into a new folder each night, never rewritten in
place, `models.discovery.store.save_state`), and the published night names its bundle
(`marts.publication.export_run_id`): one id finds the lists and the model.

Kept as long as its bundle is (`prune_served`); cut for privacy like every model file
(`warehouse.privacy.model_files`).
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

import duckdb

from warehouse.release.bundle_io import fsync_dir

log = logging.getLogger("bodoge.export")

SERVED = "served"
"""The folder under DATA_DIR/models/ holding one served model per released bundle."""


def served_dir(data_dir: Path, bundle_run_id: str) -> Path:
    """DATA_DIR/models/served/<bundle_run_id>/ (it may not exist)."""
    return Path(data_dir) / "models" / SERVED / bundle_run_id


def serve_model(data_dir: Path, bundle_run_id: str) -> Path | None:
    """Link the saved champion's files into `served_dir` (a fresh folder renamed into
    place); None when there is no saved champion (nothing to fold in with)."""
    champion = Path(data_dir) / "models" / "champion"
    if not (champion / "discovery.json").is_file():
        return None
    target = served_dir(data_dir, bundle_run_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.linking-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(champion, tmp, copy_function=_link)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    fsync_dir(target.parent)
    return target


def _link(source: str, destination: str) -> None:
    """A hard link where the file system allows it, else a copy."""
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def prune_served(data_dir: Path) -> list[str]:
    """Remove the served models whose bundle is gone (and what a killed link left)."""
    root = Path(data_dir) / "models" / SERVED
    exports = Path(data_dir) / "exports"
    if not root.is_dir():
        return []
    gone = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(".") or not (exports / path.name).is_dir():
            shutil.rmtree(path, ignore_errors=True)
            gone.append(path.name)
    if gone:
        log.info("exports: removed %d served model(s) without a bundle", len(gone))
    return gone


def night_model(con: Any, data_dir: Path, *, fallback: Path) -> Path:
    """The served model of the night `con` holds (its `marts.publication` names the bundle),
    else `fallback` (the saved champion: a warehouse, or a night published by `bodoge build`)."""
    try:
        row = con.execute("SELECT export_run_id FROM marts.publication ORDER BY published_at DESC LIMIT 1").fetchone()
    except duckdb.Error:
        return fallback
    if row and row[0] and (served_dir(data_dir, row[0]) / "discovery.json").is_file():
        return served_dir(data_dir, row[0])
    return fallback
