"""Members who turn private leave DATA_DIR/models/ too: the files the recommender keeps between runs.

Why: the night keeps what its models were fitted on beside them (the cleaned interactions,
each candidate's evaluation lists, the champion `bodoge recommend` re-ranks with: its id
mappings, interaction matrix, collections and fitted factors). A private collection must
leave no trace in models either, and these files live until the next night rewrites them.
The rule, applied by every writer's privacy cut (the crawl at once, the next night at
start-up: `warehouse.privacy.cut.cut_everywhere`):

- every Parquet file under models/ with a `user_id` column loses those members' rows
  (written beside and renamed over, so a crash leaves the old file or the new one);
- the saved champion, and each published night's served model (models/served/), is removed
  whole when it was fitted on any of them: its matrix and factors are indexed by member,
  and a re-fit is the next night's work. Until then `bodoge recommend` serves the stored
  lists without re-ranking, and the API answers fold-in requests with 503.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import polars as pl

from warehouse.release.served import SERVED

log = logging.getLogger("bodoge.privacy")

CHAMPION = "champion"
"""The saved champion's folder under models/ (`core.settings.Paths.champion`)."""


def _names_any(path: Path, users: set[str]) -> bool:
    """Whether the Parquet file has a `user_id` column naming any of `users`."""
    try:
        if "user_id" not in pl.read_parquet_schema(path):
            return False
        found = pl.scan_parquet(path).filter(pl.col("user_id").cast(pl.String).is_in(sorted(users)))
        return found.select(pl.len()).collect().item() > 0
    except (OSError, pl.exceptions.PolarsError):
        return False


def _saved_models(models_dir: Path) -> list[Path]:
    """The saved champion and the published nights' served models (`warehouse.release.served`),
    and what a killed save or link left of either."""
    found = [models_dir / CHAMPION] + sorted(models_dir.glob(f".{CHAMPION}.*"))
    served = models_dir / SERVED
    if served.is_dir():
        found += sorted(served.iterdir())
    return [path for path in found if path.is_dir()]


def cut_members_from_models(models_dir: Path, users: set[str]) -> list[str]:
    """Cut `users` from every file under `models_dir`; the paths changed (relative), sorted."""
    models_dir = Path(models_dir)
    if not users or not models_dir.is_dir():
        return []
    changed: list[str] = []
    for saved in _saved_models(models_dir):
        if any(_names_any(p, users) for p in saved.glob("*.parquet")):
            shutil.rmtree(saved)
            changed.append(str(saved.relative_to(models_dir)) + "/")
    for path in sorted(models_dir.rglob("*.parquet")):
        if not _names_any(path, users):
            continue
        kept = pl.read_parquet(path).filter(~pl.col("user_id").cast(pl.String).is_in(sorted(users)))
        tmp = path.with_name(f".{path.name}.cut")
        kept.write_parquet(tmp)
        os.replace(tmp, path)
        changed.append(str(path.relative_to(models_dir)))
    if changed:
        log.info("privacy: %d member(s) cut from %d file(s) under %s", len(users), len(changed), models_dir)
    return sorted(changed)
