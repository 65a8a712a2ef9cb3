"""The bundle's per-member files per member bucket: `export/bundle_parts`, one partition per
bucket (the discovery buckets' `BUCKETS`), each writing its bucket's part of
recommendations.jsonl, next_to_play.jsonl and watch_next.jsonl from the marts
(`warehouse.release.bucket_export.write_part`) into `DATA_DIR/buckets/<run_id>.export/`;
`export/site_bundle` assembles the parts into the bundle, the same bytes as written whole.

Why partitioned: a part is one bucket's members, so the buckets' steps can run apart (the
multiprocess executor, one per core; a machine each) and no step writes everyone's lists.
The nightly job runs the range as one step, the parts in turn; a part re-runs alone.
"""

import time

import dagster as dg
from dagster_duckdb import DuckDBResource

from models.discovery.buckets import bucket_of
from pipelines.defs.recsys.buckets import BUCKETS
from pipelines.defs.resources import NightlyLock, SiteSettings
from warehouse.buckets import night_folder
from warehouse.release.bucket_export import in_bucket_of, parts_folder, write_part
from warehouse.release.export import bundle_run_id

BUNDLE_PARTS = dg.AssetKey(["export", "bundle_parts"])
PER_MEMBER_MARTS = [dg.AssetKey(["marts", t]) for t in ("recommendations", "next_to_play", "watch_next")]


def parts_of(site: SiteSettings, run_id: str) -> tuple:
    """Where the night of champion run `run_id` keeps its export parts, and every bucket's key."""
    return parts_folder(night_folder(site.paths.buckets, run_id)), BUCKETS.get_partition_keys()


@dg.asset(key=BUNDLE_PARTS, deps=PER_MEMBER_MARTS, partitions_def=BUCKETS, group_name="export", kinds={"json"})
def bundle_parts(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings,
                 nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """Each member bucket's part of the bundle's per-member files (DATA_DIR/buckets/<run_id>.export/<bucket>/),
    for `export/site_bundle` to put together; removed once it has."""
    n_buckets = len(BUCKETS.get_partition_keys())
    started, lines, items = time.perf_counter(), 0, 0
    with duckdb.get_connection() as con:
        folder, _ = parts_of(site, bundle_run_id(con))
        for key in context.partition_keys:
            counts = write_part(con, folder, key, keep=in_bucket_of(int(key), n_buckets, bucket_of))
            lines += counts["recommendations.jsonl"][0]
            items += counts["recommendations.jsonl"][1]
    return dg.MaterializeResult(metadata={"buckets": ", ".join(context.partition_keys), "users": lines,
                                          "recommendations": items, "seconds": round(time.perf_counter() - started, 3)})
