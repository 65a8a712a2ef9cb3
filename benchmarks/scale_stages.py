"""One stage of `benchmarks.scale`'s night, in a process of its own.

Why a module of its own: `benchmarks.scale` orchestrates the night and gathers its figures;
this is how a stage runs (the nightly job for the stage's assets, as `bodoge run` executes
it) and how it is measured apart: each stage is forked from one forkserver that imported
Dagster, the definitions and the models once (``PRELOAD``), as a nightly worker imports them
once for all its stages, and reports its own peak memory (``ru_maxrss`` of itself and of
the processes it reaped).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

STAGES: dict[str, list[list[str]] | str] = {
    "build": "warehouse",
    "evaluation": "recsys-evaluation",
    "fit": [["recsys", "fitted_champion"]],
    "discovery": [["recsys", "discovery_buckets"]]
    + [["marts", name] for name in ("recommendations", "next_to_play", "watch_next", "similar_games",
                                    "recommendation_runs", "served_top10")],
    "outcomes": [["marts", name] for name in ("history_nights", "collection_history", "served_lists",
                                              "list_outcomes")],
    "export": [["export", "bundle_parts"], ["export", "site_bundle"], ["export", "published_night"]],
}
"""Each night stage and its assets: a group name, or asset keys."""

def stage_env(work: Path) -> dict[str, str]:
    """What `bodoge run` gives its worker: the warehouse, the data dir, the Dagster home."""
    home = work / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():  # no telemetry banner on stdout, where the JSON line goes
        config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    return {
        **os.environ,
        "BODOGE_WAREHOUSE": str(work / "warehouse.duckdb"),
        "BODOGE_DATA_DIR": str(work),
        "BODOGE_BASE_URL": "",
        "DAGSTER_HOME": str(home),
        "OPENBLAS_NUM_THREADS": "1",
    }


def _selection(stage: str) -> list[Any]:
    """The asset keys of one stage: the discovery and export keys as listed; the build is the
    `warehouse` group, the evaluation the `recsys` group but for discovery's and the outcomes' marts (a
    multi-asset's keys are taken whole by their group, so a mart it adds moves with it)."""
    import dagster as dg

    from pipelines.definitions import defs

    spec = STAGES[stage]
    if isinstance(spec, list):
        return [dg.AssetKey(key) for key in spec]
    discovery = {dg.AssetKey(key) for key in [*STAGES["fit"], *STAGES["discovery"], *STAGES["outcomes"]]}
    group = "warehouse" if spec == "warehouse" else "recsys"
    return [s.key for s in defs().resolve_all_asset_specs() if s.group_name == group and s.key not in discovery]


def run_stage(stage: str, work: Path, out: Path) -> int:
    """In a child process: execute the nightly job for one stage; write what it measured."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    result: dict[str, Any] = {"stage": stage}
    if stage == "load":
        from benchmarks.scale_data import load_warehouse

        args = json.loads(os.environ["BODOGE_SCALE_ARGS"])
        result["raw_rows"] = load_warehouse(work / "warehouse.duckdb", **args)
    elif stage == "yardstick":
        result["yardstick"] = _yardstick(work / "warehouse.duckdb")
    else:
        import dagster as dg

        from pipelines.definitions import defs

        job = defs().resolve_job_def("nightly")
        with dg.DagsterInstance.get() as instance:
            started = time.perf_counter()
            run = job.execute_in_process(
                instance=instance,
                asset_selection=_selection(stage),
                raise_on_error=False,
                run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
            )
            result["job_seconds"] = round(time.perf_counter() - started, 2)
        result["success"] = run.success
        failed = [e.step_key for e in run.all_events if e.is_step_failure]
        if not run.success:
            result["failed_steps"] = failed
        for event in run.get_asset_materialization_events():
            mat = event.event_specific_data.materialization  # type: ignore[union-attr]
            key = "/".join(mat.asset_key.path)
            result.setdefault("assets", {})[key] = {
                k: v.value for k, v in mat.metadata.items() if isinstance(v.value, (int, float, str, bool))
            }
    out.write_text(json.dumps(result, default=str), encoding="utf-8")
    return 0 if result.get("success", True) else 1


def _yardstick(path: Path) -> dict[str, Any]:
    """The bare yardstick on the raw collection rows (members with games × games)."""
    import duckdb

    from benchmarks.yardstick import yardstick

    with duckdb.connect(str(path), read_only=True) as con:
        users, games = con.execute(
            "SELECT dense_rank() OVER (ORDER BY user_id) - 1, dense_rank() OVER (ORDER BY game_id) - 1 "
            "FROM raw.collection_entries"
        ).fetchnumpy().values()
    return yardstick(np.asarray(users, dtype=np.int64), np.asarray(games, dtype=np.int64))


PRELOAD = ("dagster", "pipelines.definitions", "models.discovery.buckets", "benchmarks.scale_data",
           "benchmarks.yardstick")
"""What the stage processes' server imports once (each stage is forked from it): Dagster and the
night's code, ~3 s of CPU a process otherwise. Modules only: the definitions are built in each
stage, after its environment is set (the buckets' count shapes them)."""

_FORKS = multiprocessing.get_context("forkserver")
_FORKS.set_forkserver_preload(list(PRELOAD))


def _stage_main(stage: str, work: str, env: dict[str, str]) -> None:
    """A stage process: the benchmark's environment, stdout onto stderr (stdout carries the
    JSON line alone), the stage, and its peak memory with that of what it reaped."""
    os.environ.clear()
    os.environ.update(env)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    out = Path(work) / f"stage-{stage}.json"
    code = run_stage(stage, Path(work), out)
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    report = json.loads(out.read_text(encoding="utf-8"))
    out.write_text(json.dumps({**report, "peak_rss_kb": peak}, default=str), encoding="utf-8")
    sys.exit(code)


def stage_in_process(stage: str, work: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run one stage in its own process; its seconds, peak RSS and report."""
    out = work / f"stage-{stage}.json"
    out.unlink(missing_ok=True)
    started = time.perf_counter()
    proc = _FORKS.Process(target=_stage_main, args=(stage, str(work), env), name=f"scale-{stage}")
    proc.start()
    proc.join()
    seconds = time.perf_counter() - started
    report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    if proc.exitcode != 0:
        why = report.get("failed_steps") or f"exit {proc.exitcode}"
        raise SystemExit(f"scale: stage {stage} failed: {why} (see the Dagster home in {work})")
    return {"seconds": round(seconds, 2), "job_seconds": report.get("job_seconds"),
            "peak_rss_mb": round(report["peak_rss_kb"] / 1024, 1), "report": report}

