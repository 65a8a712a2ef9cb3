"""The member buckets as parallel steps: one Dagster run with a step per bucket.

Why a run of its own, launched by the nightly run's `recsys/discovery_buckets` step: the
nightly job stays in one process (`in_process_executor`: the nightly lock is held once per
run, the warehouse file is opened once per run, and ~70 steps pay no process start each),
while the buckets, the one part of the night that is embarrassingly parallel and heavy in
memory, are a fan-out (`DynamicOut`, one mapped step per bucket) that Dagster's own executor
runs: `multiprocess_executor` (a process per bucket, `max_concurrent` from
BODOGE_BUCKET_WORKERS or the core count), `dagster_docker.docker_executor` (a container per
bucket) or `dagster_k8s.k8s_job_executor` (a Kubernetes job per bucket), by
BODOGE_BUCKET_EXECUTOR. The bucket steps take no lock and open no warehouse: they read the
saved model (`store.load_state`) and the night's inputs (`warehouse.bucket_inputs`) and
write Parquet files (`warehouse.buckets.write_bucket`); the nightly run, which holds the
lock, waits for them and then the one writer appends them. `rank_into`, one bucket's ranking,
lives here and is what a bucket step runs; the nightly step runs it too when it ranks the
buckets in turn (`buckets.py`).

Each bucket step records its partition of `recsys/discovery_buckets` as materialized as soon
as its files are written, so the UI shows which buckets a killed night finished, and one
partition can be materialized alone (`discovery_bucket` job, `python -m pipelines.rerun
--bucket KEY`).
"""


import os
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import dagster as dg

from core.settings import SettingError, read
from models.discovery.buckets import bucket_frames, bucket_of
from models.discovery.store import load_state
from models.threads import blocks_in_turn
from ops.procs import identity
from pipelines.defs.resources import SiteSettings
from pipelines.recovery import PID_TAG
from warehouse.bucket_inputs import BucketInputs, read_inputs
from warehouse.buckets import night_folder, write_bucket
from warehouse.release.pause import pause_point

JOB_NAME = "discovery_buckets_fanout"
PRELOAD = ("dagster._core.executor.multiprocess", "pipelines.defs.recsys.fanout", "models.discovery.buckets")
"""What the multiprocess executor's forkserver imports once for every bucket step it forks."""
PARENT_TAG = "bodoge/nightly_run"
"""On the fan-out run: the nightly run that launched it."""


class FanOut(dg.Config):
    """Which buckets to rank, of how many, for which night (the champion's run id), and the
    partitioned asset whose partitions they are (`recsys/discovery_buckets`)."""

    keys: list[str]
    n_buckets: int
    run_id: str
    asset_key: str
    in_turn: bool = False
    """Whether each bucket step ranks on one thread: several run at once, and each holding
    two threads oversubscribed the cores (8 processes 1.5× slower than one process's two
    threads on 2 cores, docs/scaling.md)."""


@dg.op(out=dg.DynamicOut(dict))
def bucket_keys(config: FanOut):
    """One output per bucket: the mapped step that ranks it."""
    for key in config.keys:
        yield dg.DynamicOutput({"key": key, "n_buckets": config.n_buckets, "run_id": config.run_id,
                                "asset_key": config.asset_key, "in_turn": config.in_turn},
                               mapping_key=f"bucket_{key}")


@dg.op(tags={"kind": "numba"})
def ranked_bucket(context: dg.OpExecutionContext, bucket: dict, site: SiteSettings) -> dict:
    """One bucket's lists ranked from the saved model and written as Parquet (its own process)."""
    with blocks_in_turn() if bucket.get("in_turn") else nullcontext():
        stats = rank_into(site, bucket["key"], n_buckets=bucket["n_buckets"], run_id=bucket["run_id"],
                          log=context.log.info)
    context.log_event(dg.AssetMaterialization(asset_key=dg.AssetKey.from_user_string(bucket["asset_key"]),
                                              partition=bucket["key"],
                                              metadata={**stats, "pid": os.getpid()}))
    return {"key": bucket["key"], **stats}


@dg.op
def buckets_ranked(results: list[dict]) -> dict:
    """Every bucket's totals: the fan-out run's last step, once every bucket is written (the
    nightly step sums the buckets' materializations itself, which a failed run also has)."""
    totals: dict[str, Any] = {"keys": sorted(r["key"] for r in results)}
    for field in ("members", "rows", "welcome_lists", "rank_seconds"):
        totals[field] = sum(r[field] for r in results)
    return totals


def rank_into(site: SiteSettings, key: str, *, n_buckets: int, run_id: str,
              log: Callable[[str], None], inputs: BucketInputs | None = None,
              state: Any = None, meta: dict | None = None) -> dict[str, Any]:
    """Bucket `key`'s lists, ranked from the saved model and written into the night's folder;
    the bucket's figures. `inputs`, `state`, `meta`: what the caller already read (ranking in
    turn), else read here from the night's files (a bucket step of its own)."""
    folder = night_folder(site.paths.buckets, run_id)
    if inputs is None:  # this bucket's members' site rows only
        inputs = read_inputs(folder, keep=lambda user: bucket_of(user, n_buckets) == int(key))
    if state is None or meta is None:
        state, meta = load_state(site.paths.champion, engine=site.engine())
    if meta["run_id"] != run_id:
        raise RuntimeError(f"the saved champion is of run {meta['run_id']}, not the night's {run_id}")
    pause_point(f"bucket-{key}", site.paths.data_dir)  # the test hook: a night killed in a bucket
    frames, lists = bucket_frames(state, meta, bucket=int(key), n_buckets=n_buckets, members=inputs.members,
                                  hints=inputs.hints, site_rows=inputs.site_rows)
    write_bucket(folder, key, frames)
    log(f"bucket {key} of {n_buckets}: {lists.stats}")
    return {"members": lists.stats["n_users"], "rows": lists.recommendations.height,
            "welcome_lists": len(lists.welcome), "rank_seconds": lists.stats["rank_seconds"]}


def executor_for(kind: str) -> dg.ExecutorDefinition:
    """The executor BODOGE_BUCKET_EXECUTOR names; docker and k8s import their package only
    when chosen, and say in one line (a SettingError) when it is not installed."""
    if kind == "docker":
        try:
            from dagster_docker import docker_executor
        except ImportError:
            raise SettingError("BODOGE_BUCKET_EXECUTOR=docker needs dagster-docker (pip install dagster-docker; "
                               "docs/scaling.md, \"Deploy forms\")") from None
        return docker_executor
    if kind == "k8s":
        try:
            from dagster_k8s import k8s_job_executor
        except ImportError:
            raise SettingError("BODOGE_BUCKET_EXECUTOR=k8s needs dagster-k8s (pip install dagster-k8s; "
                               "docs/scaling.md, \"Deploy forms\")") from None
        return k8s_job_executor
    return dg.multiprocess_executor


def fanout_job() -> dg.JobDefinition:
    """The fan-out job, with the executor of BODOGE_BUCKET_EXECUTOR (read when it is built: the
    nightly step builds it, and each step process rebuilds it from this function)."""
    kind = read("bucket_executor")

    @dg.job(name=JOB_NAME, executor_def=executor_for(kind), resource_defs={"site": SiteSettings.from_env()},
            description="Discovery's member buckets, a step each, run by Dagster's executor "
                        "(launched by the nightly run's recsys/discovery_buckets step).")
    def discovery_buckets_fanout() -> None:
        buckets_ranked(bucket_keys().map(ranked_bucket).collect())

    return discovery_buckets_fanout


def executor_config(kind: str, workers: int, config_file: Path | None) -> dict[str, Any]:
    """The run config's `execution` block: for multiprocess, `max_concurrent` (BODOGE_BUCKET_WORKERS,
    0 = the core count); for docker and k8s, what BODOGE_BUCKET_EXECUTOR_CONFIG's YAML file says
    (image, network, volumes: deploy/), with `max_concurrent` added unless it says one."""
    limit = workers or os.cpu_count() or 1
    if kind == "multiprocess":
        # forkserver: one server process imports Dagster, the definitions and the ranking once,
        # and each bucket step is a fork of it, not a fresh interpreter importing them again
        return {"config": {"max_concurrent": limit,
                           "start_method": {"forkserver": {"preload_modules": list(PRELOAD)}}}}
    import yaml

    config: dict[str, Any] = {}
    if config_file is not None:
        config = yaml.safe_load(Path(config_file).read_text(encoding="utf-8")) or {}
        if not isinstance(config, dict):
            raise SettingError(f"BODOGE_BUCKET_EXECUTOR_CONFIG: {config_file} must hold a mapping of the "
                               f"{kind} executor's config")
    return {"config": {"max_concurrent": limit, **config}}


def run_buckets(instance: dg.DagsterInstance, *, keys: list[str], n_buckets: int, run_id: str,
                parent_run_id: str, asset_key: dg.AssetKey) -> dg.JobExecutionResult:
    """Run the fan-out for `keys` on `instance` (persistent: the steps are other processes) and
    wait for it; the result says which steps failed."""
    kind = read("bucket_executor")
    execution = executor_config(kind, read("bucket_workers"), read("bucket_executor_config"))
    at_once = min(int(execution["config"]["max_concurrent"]), len(keys))
    run_config = {
        "ops": {"bucket_keys": {"config": {"keys": keys, "n_buckets": n_buckets, "run_id": run_id,
                                                "asset_key": asset_key.to_user_string(), "in_turn": at_once > 1}}},
        "execution": execution,
        "loggers": {"console": {"config": {"log_level": "INFO"}}},
    }
    # PID_TAG: this process orchestrates the fan-out, so if it dies the next night's recovery
    # marks the fan-out run failed as it does the nightly run (pipelines.recovery)
    return dg.execute_job(dg.reconstructable(fanout_job), instance, run_config=run_config,
                          tags={PARENT_TAG: parent_run_id, PID_TAG: identity()}, raise_on_error=False)
