"""What every member bucket reads from the warehouse, written once a night as files.

Why: the buckets run as processes of their own (Dagster's multiprocess executor, or a
container or Kubernetes job each), and DuckDB lets one process open the warehouse file for
writing and no other process open it meanwhile. So the step that launches the buckets,
which holds the nightly lock and the run's connection, reads what they need once and
writes it into the night's folder (`warehouse.buckets.night_folder`); each bucket reads
these files and the saved model, and never the warehouse:

* `site_rows.parquet`: (user_id, game_id) of marts.collections, the site's own rows (what
  a reason may name and a shelf may hold);
* `members.parquet`: the public members (marts.members as the privacy rule sees them),
  sorted, each of whom gets a line;
* `hints.parquet`: (user_id, game_id) of the games whose posts each member wrote (welcome
  lists read them).

They hold members' ids and collections, so they live in the night's folder and go with it
(the writer removes it once appended; a member turning private removes every night's).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from warehouse.privacy.public import public_users
from warehouse.views import post_games

FILES = ("site_rows", "members", "hints")


@dataclass(frozen=True, slots=True, kw_only=True)
class BucketInputs:
    """The warehouse's part of a bucket's ranking (module docstring)."""

    site_rows: pl.DataFrame
    members: list[str]
    hints: pl.DataFrame


def read_warehouse(con: duckdb.DuckDBPyConnection, *, keep: Callable[[str], bool] | None = None) -> BucketInputs:
    """The inputs from the warehouse: site rows, public members (sorted), post hints; ``keep``
    as in ``read_inputs`` (the site rows cut in DuckDB)."""
    if keep is None:
        site_rows = con.sql("SELECT user_id, game_id FROM marts.collections").pl()
    else:
        ids = con.sql("SELECT DISTINCT user_id FROM marts.collections").pl().get_column("user_id")
        con.register("bucket_members", _kept(ids, keep).to_frame())
        try:
            site_rows = con.sql("SELECT c.user_id, c.game_id FROM marts.collections c "
                                "SEMI JOIN bucket_members USING (user_id)").pl()
        finally:
            con.unregister("bucket_members")
    # marts.members as the privacy rule sees them: a collection page the crawl could not complete
    # (incomplete, no entry) is not public to the export, the backups or the published night
    known_public = public_users(con)
    members = [u for u in con.sql("SELECT user_id FROM marts.members ORDER BY user_id").pl()
               .get_column("user_id").to_list() if u in known_public]
    return BucketInputs(site_rows=site_rows, members=members, hints=post_games(con))


def write_inputs(folder: Path, inputs: BucketInputs) -> None:
    """The inputs into `folder`, each file written whole and then renamed into place."""
    folder.mkdir(parents=True, exist_ok=True)
    frames = {"site_rows": inputs.site_rows, "members": pl.DataFrame({"user_id": inputs.members}, schema={"user_id": pl.String}),
              "hints": inputs.hints}
    for name in FILES:
        tmp = folder / f".{name}.parquet.{os.getpid()}"
        frames[name].write_parquet(tmp)
        os.replace(tmp, folder / f"{name}.parquet")


def read_inputs(folder: Path, *, keep: Callable[[str], bool] | None = None) -> BucketInputs:
    """What `write_inputs` wrote; a FileNotFoundError names the missing file. ``keep`` (a
    member's id → whether this process ranks them: its bucket) reads only those members' site
    rows, so a bucket's process never holds everyone's (11.8M rows at 400,000 members)."""
    frames = {name: pl.read_parquet(folder / f"{name}.parquet") for name in FILES if name != "site_rows"}
    site_rows = pl.scan_parquet(folder / "site_rows.parquet")
    if keep is not None:
        ids = site_rows.select(pl.col("user_id").unique()).collect().get_column("user_id")
        site_rows = site_rows.filter(pl.col("user_id").is_in(_kept(ids, keep).implode()))
    return BucketInputs(site_rows=site_rows.collect(), members=frames["members"].get_column("user_id").to_list(),
                        hints=frames["hints"])


def _kept(ids: pl.Series, keep: Callable[[str], bool]) -> pl.Series:
    """The ids ``keep`` says yes to (``user_id``, strings)."""
    return pl.Series("user_id", [user for user in ids.to_list() if keep(user)], dtype=pl.String)


def published_members(exports: Path) -> int:
    """How many members the published night lists (its bundle's manifest, `counts.users`); 0
    before the first night or when the manifest cannot be read. Why the published night: it
    changes only when a night completes, so a night and the rerun of its failed bucket see the
    same count (and so the same number of buckets)."""
    try:
        bundle = Path(exports) / (Path(exports) / "LATEST").read_text(encoding="utf-8").strip()
        return int(json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))["counts"]["users"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0
