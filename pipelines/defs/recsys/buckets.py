"""Discovery's member buckets as Dagster partitions: `recsys/discovery_buckets`.

A member's bucket is a stable hash of their id modulo `BODOGE_DISCOVERY_BUCKETS`
(`models.discovery.buckets.bucket_of`); each partition ranks only its bucket's members with
the night's fitted champion and content graph (`recsys/fitted_champion`, read from its files)
and writes their rows as Parquet (`warehouse.buckets`); the `discovery` writer appends them.

The nightly job targets every bucket (the partition range, `BUCKET_RANGE_TAGS`), and a run
over a range is one step here: it reads what the buckets need from the warehouse once
(`warehouse.bucket_inputs`, under the run's nightly lock) and, with several buckets, launches
the fan-out run (`fanout.py`): one step per bucket, run in parallel by Dagster's executor
(BODOGE_BUCKET_EXECUTOR, multiprocess by default), and waits for it. One bucket (N = 1, or one
partition materialized alone: `bucket_job`, `python -m pipelines.rerun --bucket KEY`), an
ephemeral instance (a test's `dg.materialize`), or BODOGE_BUCKET_EXECUTOR=in_process rank the
buckets in turn in this step's process, as before. The writer (`discovery`) then appends them.

Each bucket is recorded as materialized the moment its files are written (so the UI shows
which buckets a killed night finished); the step's result then records the range again,
with the step's totals.
"""

import time
from typing import Any

import dagster as dg
from dagster_duckdb import DuckDBResource

from core.settings import Settings, buckets_for, read
from models.discovery.buckets import bucket_keys
from models.discovery.store import load_state, saved_meta
from pipelines.defs.recsys.fanout import rank_into, run_buckets
from pipelines.defs.resources import NightlyLock, SiteSettings
from warehouse.bucket_inputs import BucketInputs, published_members, read_warehouse, write_inputs
from warehouse.buckets import night_folder

FITTED_CHAMPION = dg.AssetKey(["recsys", "fitted_champion"])
DISCOVERY_BUCKETS = dg.AssetKey(["recsys", "discovery_buckets"])



def night_buckets() -> int:
    """BODOGE_DISCOVERY_BUCKETS, or when it is unset one bucket per 50,000 members of the
    published night (`core.settings.buckets_for`, docs/scaling.md "How many buckets")."""
    explicit = read("discovery_buckets")
    if explicit is not None:
        return int(explicit)
    return buckets_for(published_members(Settings.load(only=("data_dir",)).paths.exports))


BUCKETS = dg.StaticPartitionsDefinition(bucket_keys(night_buckets()))
"""One partition per member bucket, `00` … (the number is decided when the definitions load:
`bodoge run` and `bodoge serve` hand the setting to their Dagster processes)."""

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
    (DATA_DIR/buckets/<run_id>/<bucket>/) for the `discovery` writer to append; several buckets
    run in parallel, a step each, in the fan-out run this step launches."""
    with duckdb.get_connection() as con:
        inputs = read_warehouse(con)
    keys = context.partition_keys
    n_buckets = len(BUCKETS.get_partition_keys())
    meta = saved_meta(site.paths.champion)
    folder = night_folder(site.paths.buckets, meta["run_id"])
    write_inputs(folder, inputs)
    started = time.perf_counter()
    parallel = len(keys) > 1 and read("bucket_executor") != "in_process" and not context.instance.is_ephemeral
    if parallel:
        totals = _in_parallel(context, keys, n_buckets=n_buckets, run_id=meta["run_id"])
    else:
        totals = _in_turn(context, site, keys, n_buckets=n_buckets, inputs=inputs)
    seconds = time.perf_counter() - started
    return dg.MaterializeResult(metadata={
        "buckets": ", ".join(keys), "of": n_buckets, **totals,
        "executor": read("bucket_executor") if parallel else "in turn",
        # members per second of ranking (summed over the buckets), and per second of this step's wall clock
        "seconds": round(seconds, 3), "members_per_second": _per_second(totals["members"], totals["rank_seconds"]),
        "wall_members_per_second": _per_second(totals["members"], seconds),
        "path": dg.MetadataValue.path(str(folder)),
    })


def _in_turn(context: dg.AssetExecutionContext, site: SiteSettings, keys: list[str], *, n_buckets: int,
             inputs: BucketInputs) -> dict[str, Any]:
    """Rank `keys` one after another in this process, each bucket written and dropped before the next."""
    state, meta = load_state(site.paths.champion, engine=site.engine())
    totals: dict[str, Any] = {"members": 0, "rows": 0, "welcome_lists": 0, "rank_seconds": 0.0}
    for key in keys:
        stats = rank_into(site, key, n_buckets=n_buckets, run_id=meta["run_id"], log=context.log.info,
                          inputs=inputs, state=state, meta=meta)
        # recorded as each bucket is written: a night killed in a later bucket shows which are done
        context.log_event(dg.AssetMaterialization(asset_key=DISCOVERY_BUCKETS, partition=key, metadata=stats))
        for field in totals:
            totals[field] += stats[field]
    totals["rank_seconds"] = round(totals["rank_seconds"], 3)
    return totals


def _in_parallel(context: dg.AssetExecutionContext, keys: list[str], *, n_buckets: int, run_id: str) -> dict[str, Any]:
    """Rank `keys` in the fan-out run (a step per bucket, `fanout.py`) and wait for it; fails
    naming the buckets whose step failed (their partitions re-run alone, the others stay)."""
    context.log.info(f"ranking buckets {', '.join(keys)} in parallel ({read('bucket_executor')} executor)")
    result = run_buckets(context.instance, keys=keys, n_buckets=n_buckets, run_id=run_id,
                         parent_run_id=context.run.run_id, asset_key=DISCOVERY_BUCKETS)
    if not result.success:
        failed = sorted({(e.step_key or "").rsplit("[", 1)[-1].rstrip("]").removeprefix("bucket_")
                         for e in result.get_step_failure_events() if e.step_key and "[" in e.step_key})
        raise dg.Failure(description=f"discovery buckets failed: {', '.join(failed) or 'the fan-out run'} "
                                     f"(fan-out run {result.run_id}); re-materialize those partitions "
                                     "(python -m pipelines.rerun --bucket KEY), then what follows")
    totals: dict[str, Any] = {"members": 0, "rows": 0, "welcome_lists": 0, "rank_seconds": 0.0}
    for event in result.all_events:  # each bucket step's materialization, with its figures
        if event.is_step_materialization:
            metadata = event.event_specific_data.materialization.metadata  # type: ignore[union-attr]
            for field in totals:
                totals[field] += metadata[field].value
    totals["rank_seconds"] = round(totals["rank_seconds"], 3)
    totals["fanout_run"] = result.run_id
    return totals
