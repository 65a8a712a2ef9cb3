"""Discovery's member buckets as Dagster partitions: `recsys/discovery_buckets`.

A member's bucket is a stable hash of their id modulo `BODOGE_DISCOVERY_BUCKETS`
(`models.discovery.buckets.bucket_of`); each partition ranks only its bucket's members with
the night's fitted champion and content graph (`recsys/fitted_champion`, read from its files)
and writes their rows as Parquet (`warehouse.buckets`); the `discovery` writer appends them.

The nightly job targets every bucket (the partition range, `BUCKET_RANGE_TAGS`), and a run
over a range is one step: it ranks them in turn, each bucket's rows written and dropped
before the next (memory is one bucket's lists). A backfill launched from the UI has the
default policy instead, one run per bucket. A bucket can be materialized alone
(`bucket_job`, one partition key) and the writer then appends it with the others.

Each bucket is recorded as materialized the moment its files are written (so the UI shows
which buckets a killed night finished); the step's result then records the range again,
with the step's totals.
"""

import time

import dagster as dg
from dagster_duckdb import DuckDBResource

from core.settings import read
from models.discovery.buckets import bucket_frames, bucket_keys, bucket_of
from models.discovery.store import load_state
from pipelines.defs.resources import NightlyLock, SiteSettings
from warehouse.buckets import bucket_inputs, night_folder, write_bucket
from warehouse.release.pause import pause_point

FITTED_CHAMPION = dg.AssetKey(["recsys", "fitted_champion"])
DISCOVERY_BUCKETS = dg.AssetKey(["recsys", "discovery_buckets"])

BUCKETS = dg.StaticPartitionsDefinition(bucket_keys(read("discovery_buckets")))
"""One partition per member bucket, `00` … (the setting is read when the definitions load:
`bodoge run` and `bodoge serve` hand it to their Dagster processes)."""

BUCKET_RANGE_TAGS = {
    "dagster/asset_partition_range_start": BUCKETS.get_partition_keys()[0],
    "dagster/asset_partition_range_end": BUCKETS.get_partition_keys()[-1],
}
"""A run over every bucket: the nightly job's tags."""


def _per_second(count: int, seconds: float) -> float:
    """A throughput for the UI and the scale benchmark (members ranked per second)."""
    return round(count / seconds, 1) if seconds > 0 else 0.0


@dg.asset(
    key=DISCOVERY_BUCKETS,
    deps=[FITTED_CHAMPION, dg.AssetKey(["marts", "collections"]), dg.AssetKey(["marts", "members"]),
          dg.AssetKey(["raw", "posts"])],
    partitions_def=BUCKETS,
    group_name="recsys",
    kinds={"numba", "parquet"},
)
def discovery_buckets(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings,
                      nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """Each member bucket's discovery lists (welcome lists for public members the model cannot score),
    play next and watch list, ranked by the night's fitted champion and written as Parquet
    (DATA_DIR/buckets/<run_id>/<bucket>/) for the `discovery` writer to append."""
    keys = context.partition_keys
    n_buckets = len(BUCKETS.get_partition_keys())
    mine = {int(key) for key in keys}
    with duckdb.get_connection() as con:  # the collection rows of this step's buckets' members only
        site_rows, public, hints = bucket_inputs(con, keep=lambda user: bucket_of(user, n_buckets) in mine)
    state, meta = load_state(site.paths.champion, engine=site.engine())
    folder = night_folder(site.paths.buckets, meta["run_id"])
    totals = {"members": 0, "rows": 0, "welcome_lists": 0}
    rank_seconds = 0.0
    started = time.perf_counter()
    for key in keys:
        pause_point(f"bucket-{key}", site.paths.data_dir)  # the test hook: a night killed in a bucket
        frames, lists = bucket_frames(state, meta, bucket=int(key), n_buckets=n_buckets, members=public,
                                      hints=hints, site_rows=site_rows)
        write_bucket(folder, key, frames)
        context.log.info(f"bucket {key} of {n_buckets}: {lists.stats}")
        # recorded as each bucket is written: a night killed in a later bucket shows which are done
        context.log_event(dg.AssetMaterialization(asset_key=DISCOVERY_BUCKETS, partition=key, metadata={
            "members": lists.stats["n_users"], "rows": lists.recommendations.height,
            "welcome_lists": len(lists.welcome), "rank_seconds": lists.stats["rank_seconds"]}))
        totals["members"] += lists.stats["n_users"]
        totals["rows"] += lists.recommendations.height
        totals["welcome_lists"] += len(lists.welcome)
        rank_seconds += lists.stats["rank_seconds"]
    seconds = time.perf_counter() - started
    return dg.MaterializeResult(metadata={
        "buckets": ", ".join(keys), "of": n_buckets, **totals, "rank_seconds": round(rank_seconds, 3),
        "seconds": round(seconds, 3), "members_per_second": _per_second(totals["members"], rank_seconds),
        "path": dg.MetadataValue.path(str(folder)),
    })
