"""The post-crawl night at real-site size: build → evaluation → discovery → outcomes → export.

Run: ``uv run python -m benchmarks.scale --games 25000 --members 100000 --json --work-dir DIR``.

The warehouse is filled straight into the raw tables (`benchmarks.scale_data`); then each
stage is the nightly Dagster job itself (`pipelines/defs/schedules.py`'s ``nightly``)
executed for that stage's assets and their checks, exactly as `bodoge run` executes it,
against a real DuckDB file and a real Dagster instance under ``DIR``. Each stage runs in
its own process so its peak memory (``ru_maxrss`` of that process and of the processes it
reaped) is its own, as it would be in a nightly worker; the night's peak is the largest of
them. The stage processes are forked from one server that imported Dagster, the definitions
and the models once (``PRELOAD``, multiprocessing's forkserver), as a nightly worker imports
them once for all its stages; a stage's peak still counts what those imports hold.

Progress goes to stderr, one line per stage (plus the job's own ``nightly: done …``
lines); the last line on stdout is one JSON object: ``games``, ``members``,
``collection_rows``, ``stages`` (``seconds``, ``peak_rss_mb`` each), ``discovery_members_per_s``,
``content_similarity_seconds``, ``total_seconds`` (the night's stages, not the data
generation, which is ``setup_seconds``; ``job_seconds`` leaves out each process's
fork and Dagster's building of the definitions) and the targets with
whether each was met. ``yardstick`` is the bare numpy/scipy EASE fit and top-k scoring
of every member on the same collections (``benchmarks.yardstick``), timed in the same
run in its own process; each stage's ``yardstick_ratio`` (and ``night_yardstick_ratio``)
is its seconds over the yardstick's, the figure that carries from one machine or day
to another. The raw tables hold exactly ``games`` games (``benchmarks.scale_data``).

``--buckets N`` ranks discovery's members in N member buckets (``BODOGE_DISCOVERY_BUCKETS``,
docs/scaling.md); ``buckets`` in the figures. The night's discovery step runs them as
``bodoge run`` does, in Dagster's fan-out of processes (``--bucket-executor multiprocess``),
or in turn in the stage's one process on threads (``--bucket-executor in_process``).
The fit (``recsys/fitted_champion``) is a stage of its own (``fit``), so its peak is its own.
Then the same buckets are ranked again from the saved model, each in a process of its own,
one per core (``benchmarks.scale_buckets``): ``bucket_processes`` has each one's peak RSS,
the night's peak with them, their seconds beside the night's own step (``side_by_side``,
with ``night_step_executor``), the overhead of the
partitioning (files written and appended) and whether their lists equal the night's.

``--reuse-night`` then runs the same stages a second time on the same warehouse, as the
next night on unchanged data: above the large-data thresholds (``models.budget``) its
evaluation reuses the first night's tuning (``models.tuning_store``), the night the issue
budgets at 600 s. Its figures are ``reuse_night`` (``stages``, ``total_seconds``,
``peak_rss_mb``, ``tuning_reused``: whether the evaluation's notes say it reused).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.scale_stages import STAGES, run_stage, stage_env, stage_in_process

TARGETS = {"total_seconds": 15 * 60, "peak_rss_mb": 8 * 1024, "discovery_members_per_s": 5_000,
           "content_similarity_seconds": 60, "reuse_total_seconds": 10 * 60}
"""The issue's targets; ``reuse_total_seconds`` (the night that reuses the tuning) only with ``--reuse-night``."""

def benchmark(games: int, members: int, work: Path, *, seed: int = 0, reuse_night: bool = False,
              buckets: int = 1, bucket_executor: str) -> dict[str, Any]:
    """Fill the warehouse, run each night stage (twice with ``reuse_night``), and gather the figures;
    discovery ranks its members in ``buckets`` member buckets (``BODOGE_DISCOVERY_BUCKETS``)."""
    env = stage_env(work)
    env["BODOGE_DISCOVERY_BUCKETS"] = str(buckets)
    env["BODOGE_BUCKET_EXECUTOR"] = bucket_executor
    env["BODOGE_SCALE_ARGS"] = json.dumps({"games": games, "members": members, "seed": seed})
    print(f"scale: generating {games:,} games × {members:,} members into {work}", file=sys.stderr, flush=True)
    setup = stage_in_process("load", work, env)
    raw = setup["report"]["raw_rows"]
    print(f"scale: setup {setup['seconds']:.1f}s, {raw['raw.collection_entries']:,} collection rows, "
          f"peak {setup['peak_rss_mb']:,.0f} MB", file=sys.stderr, flush=True)
    if raw["raw.games"] != games:
        raise SystemExit(f"scale: asked for {games:,} games, the raw tables hold {raw['raw.games']:,}")
    bare = stage_in_process("yardstick", work, env)
    stick = bare["report"]["yardstick"]
    print(f"scale: yardstick {stick['seconds']:.1f}s (EASE on {stick['items']:,} games {stick['fit_seconds']:.1f}s, "
          f"top-{stick['k']} for {stick['members']:,} members {stick['score_seconds']:.1f}s)", file=sys.stderr, flush=True)
    procs: dict[str, Any] = {}
    stages = _night(work, env, "", processes=procs, buckets=buckets)
    recs = stages["discovery"]["report"]["assets"]["marts/recommendations"]
    ranked = stages["discovery"]["report"]["assets"].get("recsys/discovery_buckets", {})
    fitted = stages["fit"]["report"]["assets"].get("recsys/fitted_champion", {})
    evaluation = stages["evaluation"]["report"]["assets"]
    total = sum(s["seconds"] for s in stages.values())
    peak = max(s["peak_rss_mb"] for s in stages.values())
    figures: dict[str, Any] = {
        "games": raw["raw.games"],
        "members": members,
        "buckets": buckets,
        "members_with_games": int(recs.get("members", 0)),
        "collection_rows": raw["raw.collection_entries"],
        "setup_seconds": setup["seconds"],
        "stages": _stage_figures(stages, stick["seconds"]),
        "yardstick": {**stick, "peak_rss_mb": bare["peak_rss_mb"]},
        "night_yardstick_ratio": _ratio(total, stick["seconds"]),
        "champion": evaluation.get("recsys/champion_choice", {}).get("champion"),
        "model_notes": {k.split("/")[-1].removesuffix("_candidate"): v["notes"] for k, v in evaluation.items()
                        if v.get("notes")},
        "discovery_members_per_s": ranked.get("members_per_second"),
        # the content model is fitted once, before the evaluation; discovery builds its neighbour graph
        "content_similarity_seconds": round(evaluation.get("recsys/content_model", {}).get("fit_seconds", 0.0)
                                            + fitted.get("content_seconds", 0.0), 3),
        "peak_rss_mb": peak,
        "total_seconds": round(total, 2),
        "job_seconds": round(sum(s["job_seconds"] or 0.0 for s in stages.values()), 2),
        "cpu_count": os.cpu_count(),
        "bucket_processes": _bucket_figures(procs, stages, ranked, total, bucket_executor),
    }
    if reuse_night:
        again = _night(work, env, "reuse night: ")
        notes = " ".join(str(v.get("notes", "")) for v in again["evaluation"]["report"].get("assets", {}).values())
        figures["reuse_night"] = {
            "stages": _stage_figures(again, stick["seconds"]),
            "total_seconds": round(sum(s["seconds"] for s in again.values()), 2),
            "peak_rss_mb": max(s["peak_rss_mb"] for s in again.values()),
            "tuning_reused": "reused from the full tuning" in notes,
        }
        figures["reuse_total_seconds"] = figures["reuse_night"]["total_seconds"]
    figures["targets"] = {name: {"target": limit, "met": _met(name, figures[name], limit)}
                          for name, limit in TARGETS.items() if name in figures}
    return figures


def _night(work: Path, env: dict[str, str], label: str, *, processes: dict[str, Any] | None = None,
           buckets: int = 1) -> dict[str, dict[str, Any]]:
    """Each stage of one night in its own process, in order, with a progress line each; with
    ``processes``, after the discovery stage the same buckets again, each in a process of its
    own (``benchmarks.scale_buckets``), their figures put in ``processes``."""
    from benchmarks.scale_buckets import append_and_compare, run_buckets

    stages: dict[str, dict[str, Any]] = {}
    for stage in STAGES:
        print(f"scale: {label}{stage} …", file=sys.stderr, flush=True)
        stages[stage] = stage_in_process(stage, work, env)
        print(f"scale: {label}{stage} done in {stages[stage]['seconds']:.1f}s, "
              f"peak {stages[stage]['peak_rss_mb']:,.0f} MB", file=sys.stderr, flush=True)
        if stage == "discovery" and processes is not None:
            print(f"scale: {label}the {buckets} bucket(s) again, one process each …", file=sys.stderr, flush=True)
            processes.update(run_buckets(work, buckets, env))
            processes.update(append_and_compare(work, buckets))
            print(f"scale: {label}bucket processes done in {processes['wall_seconds']:.1f}s on {processes['workers']} "
                  f"workers, largest {processes['max_bucket_peak_rss_mb']:,.0f} MB, together "
                  f"{processes['concurrent_peak_rss_mb']:,.0f} MB; the same lists: {processes['same_lists']}",
                  file=sys.stderr, flush=True)
    return stages


def _bucket_figures(procs: dict[str, Any], stages: dict[str, dict[str, Any]], ranked: dict[str, Any],
                    night_seconds: float, executor: str) -> dict[str, Any]:
    """The bucket processes beside the night's own discovery step (run by ``executor``), in one run.

    ``night_peak_rss_mb`` is the night's peak were discovery run so: the largest of the other
    stages' peaks, the fit's (its own stage and process) and the buckets' together (the bound:
    the ``workers`` largest bucket peaks summed). ``overhead`` is what the partitioning adds to
    the night: every bucket's files written (summed over the processes) and appended by the one
    writer, as a share of the night's seconds."""
    if not procs:
        return {}
    together = max(procs["concurrent_peak_bound_mb"], procs["concurrent_peak_rss_mb"])
    others = [s["peak_rss_mb"] for name, s in stages.items() if name != "discovery"]
    added = procs["write_seconds"] + procs["append_seconds"]
    return {
        **{k: v for k, v in procs.items()},
        "fit_peak_rss_mb": stages["fit"]["peak_rss_mb"],
        "night_peak_rss_mb": max([*others, together]),
        # the night's own step ran its buckets by BODOGE_BUCKET_EXECUTOR: in_process is today's one
        # process (buckets in turn, blocks on threads), multiprocess Dagster's fan-out of processes
        "side_by_side": {"processes_seconds": procs["wall_seconds"],
                         "night_step_executor": executor,
                         "night_step_seconds": ranked.get("seconds"),
                         "night_stage_seconds": stages["discovery"]["seconds"],
                         "night_stage_peak_rss_mb": stages["discovery"]["peak_rss_mb"],
                         "processes_members_per_s": procs["members_per_second"],
                         "night_step_members_per_s": ranked.get("members_per_second")},
        "overhead": {"write_seconds": procs["write_seconds"], "append_seconds": procs["append_seconds"],
                     "seconds": round(added, 2), "share_of_night": round(added / night_seconds, 4)
                     if night_seconds > 0 else None},
    }


def _stage_figures(stages: dict[str, dict[str, Any]], yardstick: float) -> dict[str, dict[str, Any]]:
    """Each stage's seconds, job seconds, peak RSS and ratio to the yardstick."""
    return {name: {"seconds": s["seconds"], "job_seconds": s["job_seconds"], "peak_rss_mb": s["peak_rss_mb"],
                   "yardstick_ratio": _ratio(s["seconds"], yardstick)} for name, s in stages.items()}


def _ratio(seconds: float, yardstick: float) -> float | None:
    return round(seconds / yardstick, 2) if yardstick > 0 else None


def _met(name: str, value: float | None, limit: float) -> bool:
    if value is None:
        return False
    return value >= limit if name.endswith("_per_s") else value <= limit


def _one_stage(parser: argparse.ArgumentParser, stage: str, work: Path | None) -> int:
    """``--stage``: the benchmark runs each stage so, and a stage may be run again by hand on
    an earlier run's ``--work-dir`` (its warehouse and Dagster home), as when profiling
    discovery alone. Anything else is a one-line error, not a traceback."""
    stages = ["load", "yardstick", *STAGES]
    if stage not in stages:
        parser.error(f"--stage: unknown stage {stage!r} (one of {', '.join(stages)})")
    if stage == "load":
        if "BODOGE_SCALE_ARGS" not in os.environ or work is None:
            parser.error("--stage load is the benchmark's own first step: run it without --stage")
    elif work is None or not (work / "warehouse.duckdb").is_file():
        parser.error(f"--stage {stage} runs again on an earlier run: give its --work-dir (holding warehouse.duckdb)")
    assert work is not None
    os.environ.update(stage_env(work))  # what the benchmark gives each stage
    return run_stage(stage, work, work / f"stage-{stage}.json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=25_000)
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work-dir", type=Path, help="where the warehouse and models go (default: a temp dir)")
    parser.add_argument("--json", action="store_true", help="print only the JSON line on stdout")
    parser.add_argument("--reuse-night", action="store_true",
                        help="then run the night again on the same data (it reuses the first night's tuning)")
    parser.add_argument("--buckets", type=int, default=1,
                        help="member buckets discovery ranks apart (BODOGE_DISCOVERY_BUCKETS, 1 to 64; default 1)")
    parser.add_argument("--bucket-executor", choices=("multiprocess", "in_process"), default="multiprocess",
                        help="how the night's discovery step runs its buckets (BODOGE_BUCKET_EXECUTOR): multiprocess, "
                             "as `bodoge run` does, or in_process, one process ranking them in turn on threads, "
                             "beside which the bucket processes are then measured (default multiprocess)")
    parser.add_argument("--stage", help=argparse.SUPPRESS)  # one stage, again, on an earlier run's --work-dir
    args = parser.parse_args(argv)
    if args.stage:
        return _one_stage(parser, args.stage, args.work_dir)
    if args.games < 1 or args.members < 1:
        parser.error("--games and --members must be at least 1")
    if not 1 <= args.buckets <= 64:
        parser.error("--buckets must be from 1 to 64")
    with tempfile.TemporaryDirectory(prefix="bodoge-scale-") as tmp:
        work = args.work_dir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if (work / "warehouse.duckdb").exists():
            parser.error(f"{work} already holds a warehouse; give an empty --work-dir")
        figures = benchmark(args.games, args.members, work, seed=args.seed, reuse_night=args.reuse_night,
                            buckets=args.buckets, bucket_executor=args.bucket_executor)
    if not args.json:
        for name, stage in figures["stages"].items():
            print(f"{name:<12} {stage['seconds']:>9.1f} s {stage['peak_rss_mb']:>9,.0f} MB "
                  f"{stage['yardstick_ratio'] or 0:>7.2f}× the yardstick")
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
