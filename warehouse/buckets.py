"""Discovery's member buckets on disk, and the one writer that appends them to the warehouse.

Why files: DuckDB keeps one writer, and the buckets are ranked apart (by Dagster partitions,
possibly in processes of their own), so each bucket writes its rows as Parquet into the
night's folder and one step appends every bucket's files to the marts, under the nightly
lock, in one transaction: readers see last night's lists or tonight's, never some buckets
of each. A night with a bucket missing appends nothing and fails (`BucketsMissing`).

The night's folder is `DATA_DIR/buckets/<run_id>/` (the champion's training run, which a
bucket re-run alone later shares with the night it completes):

* `<key>/recommendations.parquet`, `<key>/next_to_play.parquet`, `<key>/watch_next.parquet`:
  bucket `<key>`'s rows (`00`, `01`, …), the folder renamed into place whole;
* `similar_games.parquet`: similar games, one list per game (written once a night).

The files hold members' lists, so they live only as long as the night needs them: the
writer removes the folder once appended, each night removes what an earlier night left, and
a member turning private removes them all (`warehouse.privacy.cut.cut_everywhere`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import duckdb
import polars as pl

from warehouse.db import ensure_table, scalar, transaction
from warehouse.privacy.public import public_users
from warehouse.views import post_games

BUCKET_TABLES = ("recommendations", "next_to_play", "watch_next")
"""The marts each bucket writes rows of, ordered by (user_id, rank) once put together."""
SIMILAR = "similar_games.parquet"


class BucketsMissing(RuntimeError):
    """A night whose buckets are not all written: nothing is appended."""


def bucket_inputs(con: duckdb.DuckDBPyConnection, keep: Callable[[str], bool] | None = None,
                  ) -> tuple[pl.DataFrame, list[str], pl.DataFrame]:
    """What a bucket step reads from the warehouse besides the saved model: the site's
    collection rows (`user_id`, `game_id`: the shelves keep site rows only), the public
    members, sorted (marts.members as the privacy rule sees them: a collection page the
    crawl could not complete is not public to the export, the backups or the published
    night), and the games each member wrote posts about (a welcome list's hints).

    `keep` (a member's id → whether the step ranks them: its buckets) cuts the collection
    rows to those members' in DuckDB, so a bucket's process never holds everyone's rows
    (11.8M at 400,000 members); the ids are read once to ask it."""
    if keep is None:
        site_rows = con.sql("SELECT user_id, game_id FROM marts.collections").pl()
    else:
        ids = con.sql("SELECT DISTINCT user_id FROM marts.collections").pl().get_column("user_id")
        wanted = pl.DataFrame({"user_id": [u for u in ids.to_list() if keep(u)]}, schema={"user_id": pl.String})
        con.register("bucket_members", wanted)
        try:
            site_rows = con.sql("SELECT c.user_id, c.game_id FROM marts.collections c "
                                "SEMI JOIN bucket_members USING (user_id)").pl()
        finally:
            con.unregister("bucket_members")
    known_public = public_users(con)
    public = [u for u in con.sql("SELECT user_id FROM marts.members ORDER BY user_id").pl()
              .get_column("user_id").to_list() if u in known_public]
    return site_rows, public, post_games(con)


def night_folder(root: Path, run_id: str) -> Path:
    """Where the night of champion run `run_id` keeps its buckets' files."""
    return Path(root) / run_id


def clear_other_nights(root: Path, run_id: str) -> None:
    """Remove every night's folder under `root` but `run_id`'s (a failed night's lists)."""
    if Path(root).is_dir():
        for folder in Path(root).iterdir():
            if folder.name != run_id:
                shutil.rmtree(folder, ignore_errors=True)


def remove_buckets(root: Path) -> None:
    """Remove every night's folder under `root`: when a member turns private, a failed night's
    buckets are dropped whole (that night's discovery is ranked again) rather than cut."""
    shutil.rmtree(root, ignore_errors=True)


def write_similar(folder: Path, similar_games: pl.DataFrame) -> Path:
    """The night's similar games into its folder (written whole, then renamed)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / SIMILAR
    tmp = folder / f".{SIMILAR}.{os.getpid()}"
    similar_games.write_parquet(tmp)
    os.replace(tmp, target)
    return target


def write_bucket(folder: Path, key: str, frames: dict[str, pl.DataFrame]) -> Path:
    """Bucket `key`'s rows (one frame per `BUCKET_TABLES` name) into `folder/<key>/`,
    replacing what an earlier attempt at the same bucket wrote; a bucket killed while writing
    leaves only a hidden folder, which counts as missing."""
    folder.mkdir(parents=True, exist_ok=True)
    target, tmp = folder / key, folder / f".{key}.writing-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    for table in BUCKET_TABLES:
        frames[table].write_parquet(tmp / f"{table}.parquet")
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    return target


def missing_buckets(folder: Path, keys: Sequence[str]) -> list[str]:
    """The keys whose bucket is not (wholly) written in `folder`."""
    return [key for key in keys if not all((folder / key / f"{t}.parquet").is_file() for t in BUCKET_TABLES)]


def append_buckets(con: duckdb.DuckDBPyConnection, folder: Path, keys: Sequence[str], *,
                   night_id: str) -> dict[str, int]:
    """Replace marts.recommendations, next_to_play, watch_next and similar_games with the
    rows of every bucket of `keys` (and the night's similar games), in one transaction;
    `night_id` goes on the rows that carry it. DuckDB reads the Parquet files itself, so the
    rows never pass through Python. Returns each table's row count."""
    missing = missing_buckets(folder, keys)
    if missing or not (folder / SIMILAR).is_file():
        said = ", ".join(missing) if missing else "similar games"
        raise BucketsMissing(f"discovery buckets not written: {said} (in {folder}); re-materialize them, then this step")
    counts: dict[str, int] = {}
    for table in (*BUCKET_TABLES, "similar_games"):
        ensure_table(con, table)
    with transaction(con):
        for table in (*BUCKET_TABLES, "similar_games"):
            con.execute(f"DELETE FROM marts.{table}")
        for table in BUCKET_TABLES:
            files = [str(folder / key / f"{table}.parquet") for key in keys]
            night = ", $night AS night_id" if table == "recommendations" else ""
            con.execute(f"INSERT INTO marts.{table} BY NAME SELECT *{night} "
                        "FROM read_parquet($files, union_by_name = true) ORDER BY user_id, rank", {"files": files, **({"night": night_id} if night else {})})
        con.execute("INSERT INTO marts.similar_games BY NAME SELECT *, $night AS night_id FROM read_parquet($file)",
                    {"file": str(folder / SIMILAR), "night": night_id})
    for table in (*BUCKET_TABLES, "similar_games"):
        counts[table] = int(scalar(con, f"SELECT count(*) FROM marts.{table}") or 0)
    return counts
