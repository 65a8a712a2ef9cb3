"""Side-by-side ratios in one run: our code against the bare libraries it stands on.

Run: ``uv run python -m benchmarks [--json] [--quick] [--skip crawl,night]``. Prints a
table (stderr with ``--json``) and, last on stdout, one JSON object with each comparison,
``targets`` (each figure, its target, whether it was met) and the load average before
and after (other work on the machine moves every figure). Progress on stderr.

* ``parse``: game pages per second from the bytes, `scrapers.pages.games.game_item` on
  the tree the spider builds (`scrapers.pages.source`) vs bare lxml (compiled XPath)
  selecting the same fields (target ratio ≥ 0.5); ``tree_share_of_ours`` is building
  the tree, ``through_scrapy_ratio`` the same parser on Scrapy's `response.selector`;
* ``crawl``: a real crawl of the local sample site at local pace (no delay) vs
  ``scrapy bench`` on the same machine, pages per second (target ratio ≥ 0.7);
* ``load``: rows per second into DuckDB from Arrow on the pipeline's bulk path
  (`model_marts.replace_table`, target ≥ 1,000,000), beside bulk CTAS, the keyed raw
  upsert and the crawl's writer;
* ``fit``: each candidate's fit vs bare implicit ALS on the same 1M interactions
  (target for the night's champion ≤ 1.2);
* ``night``: the post-crawl night (`benchmarks.scale`) at three sizes: discovery
  members per second at the largest, and the growth exponent in collection rows
  (slope of log seconds on log rows, target ≤ 1.1) read on the Dagster jobs' own
  seconds (``job_growth_exponent``; ``growth_exponent`` is the wall time with each
  stage's fixed process start), and per stage.

The default sizes take about 10 minutes on 2 idle cores; ``--quick`` is a smoke run.
``--night-sizes 25000x100000,25000x200000,25000x400000`` runs the nights at the real
site's size and at two and four times its members instead (about 1.5 hours, 16 GB).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

SIZES: dict[str, Any] = {
    "parse": {"n_games": 2_000, "repeats": 3},
    "crawl": {"games": 1_000, "members": 2_000, "bench_seconds": 10},
    "load": {"n_rows": 2_000_000, "writer_rows": 200_000},
    "fit": {"repeats": 3},
    "night": ((750, 3_000), (1_500, 6_000), (3_000, 12_000)),
}
"""Default sizes: per-row work dominates each figure, and the whole run fits 15 minutes
on 2 idle cores (about 10). The nights double twice (about 86k, 173k and 346k collection
rows; the largest took ~6 minutes under a load average of 8, ~2.5 idle)."""
QUICK_SIZES: dict[str, Any] = {
    "parse": {"n_games": 300, "repeats": 1},
    "crawl": {"games": 100, "members": 200, "bench_seconds": 3},
    "load": {"n_rows": 100_000, "writer_rows": 20_000},
    "fit": {"users": 600, "games": 400, "interactions": 20_000, "repeats": 1},
    "night": ((150, 400), (300, 800), (600, 1_600)),
}


def scrapy_bench(seconds: int = 10) -> dict[str, Any]:
    """``scrapy bench`` (its own local server and link-following spider): pages per second."""
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "bench", "-s", f"CLOSESPIDER_TIMEOUT={seconds}", "-s", "LOG_LEVEL=INFO"],
        capture_output=True, text=True, timeout=seconds * 6 + 60, check=False,
    )
    log = proc.stdout + proc.stderr
    pages = re.search(r"'response_received_count': (\d+)", log)
    elapsed = re.search(r"'elapsed_time_seconds': ([\d.]+)", log)
    if proc.returncode != 0 or not (pages and elapsed):
        raise RuntimeError(f"scrapy bench failed (exit {proc.returncode}): {log.strip().splitlines()[-1:]}")
    return {"pages": int(pages.group(1)), "seconds": float(elapsed.group(1)),
            "pages_per_s": round(int(pages.group(1)) / float(elapsed.group(1)), 1)}


def crawl_ratio(games: int, members: int, bench_seconds: int = 10) -> dict[str, Any]:
    """Our crawl of the sample site against ``scrapy bench``."""
    from benchmarks.crawl_sample_site import benchmark as crawl_benchmark

    ours = crawl_benchmark(games, members)
    bare = scrapy_bench(bench_seconds)
    return {
        "pages": ours["pages"], "seconds": ours["seconds"], "ours_pages_per_s": ours["pages_per_second"],
        "collections_match": ours["collections_match"], "scrapy_bench_pages_per_s": bare["pages_per_s"],
        "ratio": round(ours["pages_per_second"] / bare["pages_per_s"], 3),
    }


def growth_exponent(rows: list[float], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) on log(rows): 1.0 is linear growth."""
    xs, ys = [math.log(r) for r in rows], [math.log(s) for s in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def nights(sizes: tuple[tuple[int, int], ...]) -> dict[str, Any]:
    """The scale benchmark at each size; growth exponents of the night and of each stage.

    The exponent that meets the target is ``job_growth_exponent``: the Dagster jobs'
    own seconds, without each stage's process start and definitions loading (~10 s a
    stage, the same at every size), which would flatten the slope of small nights.
    """
    runs = []
    for i, (games, members) in enumerate(sizes, 1):
        print(f"benchmarks: night {i}/{len(sizes)}: {games:,} games × {members:,} members", file=sys.stderr, flush=True)
        # A fresh small parent per night: a child's peak RSS counts its parent's memory
        # at fork time (Linux keeps the high-water mark across exec).
        with tempfile.TemporaryDirectory(prefix="bodoge-night-") as tmp:
            proc = subprocess.run(
                [sys.executable, "-m", "benchmarks.scale", "--games", str(games), "--members", str(members),
                 "--json", "--work-dir", str(Path(tmp) / "night")],
                stdout=subprocess.PIPE, text=True, check=False,
            )
        if proc.returncode != 0:
            raise RuntimeError(f"the night at {games} games × {members} members failed (exit {proc.returncode})")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    rows = [float(r["collection_rows"]) for r in runs]
    largest = runs[-1]
    return {
        "sizes": [{"games": r["games"], "members": r["members"], "collection_rows": r["collection_rows"],
                   "total_seconds": r["total_seconds"], "job_seconds": r["job_seconds"],
                   "peak_rss_mb": r["peak_rss_mb"], "champion": r["champion"],
                   "discovery_members_per_s": r["discovery_members_per_s"],
                   "stages": {stage: {key: part.get(key) for key in ("seconds", "job_seconds", "peak_rss_mb")}
                              for stage, part in r["stages"].items()}} for r in runs],
        "growth_exponent": round(growth_exponent(rows, [r["total_seconds"] for r in runs]), 3),
        "job_growth_exponent": round(growth_exponent(rows, [r["job_seconds"] for r in runs]), 3),
        "stage_exponents": {
            stage: round(growth_exponent(rows, [r["stages"][stage]["job_seconds"] or r["stages"][stage]["seconds"]
                                                for r in runs]), 3)
            for stage in largest["stages"]
        },
        "discovery_members_per_s": largest["discovery_members_per_s"],
        "champion": largest["champion"],
    }


TARGETS: dict[str, tuple[str, float]] = {
    "parse": ("≥", 0.5), "crawl": ("≥", 0.7), "load": ("≥", 1_000_000), "fit": ("≤", 1.2),
    "discovery": ("≥", 5_000), "growth": ("≤", 1.1),
}
"""Each comparison's target: the figure in ``targets`` must be at least / at most this."""


def targets(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each measured comparison's figure, its target and whether it was met."""
    figures: dict[str, Any] = {}
    if "parse" in result:
        figures["parse"] = result["parse"]["ratio"]
    if "crawl" in result:
        figures["crawl"] = result["crawl"]["ratio"]
    if "load" in result:
        figures["load"] = result["load"]["marts_rows_per_s"]
    if "fit" in result and "night" in result:
        figures["fit"] = result["fit"]["candidates"].get(result["night"]["champion"], {}).get("ratio")
    if "night" in result:
        figures["discovery"] = result["night"]["discovery_members_per_s"]
        figures["growth"] = result["night"]["job_growth_exponent"]
    out = {}
    for name, value in figures.items():
        sign, limit = TARGETS[name]
        met = value is not None and (value >= limit if sign == "≥" else value <= limit)
        out[name] = {"value": value, "target": f"{sign} {limit:,}", "met": met}
    return out


def _table(result: dict[str, Any]) -> str:
    """The comparisons as aligned lines, one per figure with its target (skipped ones left out)."""
    lines: list[tuple[str, str, object, str]] = []
    if "parse" in result:
        parse = result["parse"]
        lines.append(("parse: ours / bare lxml (pages/s)",
                      f"{parse['ours_pages_per_s']:,.0f} / {parse['bare_lxml_pages_per_s']:,.0f}", parse["ratio"], "≥ 0.5"))
    if "crawl" in result:
        crawl = result["crawl"]
        lines.append(("crawl: ours / scrapy bench (pages/s)",
                      f"{crawl['ours_pages_per_s']:,.0f} / {crawl['scrapy_bench_pages_per_s']:,.0f}", crawl["ratio"],
                      "≥ 0.7"))
    if "load" in result:
        load = result["load"]
        lines.append(("load: marts / bulk CTAS (rows/s)", f"{load['marts_rows_per_s']:,} / {load['bulk_rows_per_s']:,}",
                      "", "≥ 1,000,000"))
        lines.append(("load: keyed upsert / crawl writer (rows/s)",
                      f"{load['upsert_rows_per_s']:,} / {load['writer_rows_per_s']:,}", "", ""))
    if "fit" in result:
        fit = result["fit"]
        champion = result.get("night", {}).get("champion")
        if champion in fit["candidates"]:
            lines.append((f"fit: {champion} (champion) / bare ALS (s)",
                          f"{fit['candidates'][champion]['seconds']:.2f} / {fit['als_seconds']:.2f}",
                          fit["candidates"][champion]["ratio"], "≤ 1.2"))
        lines.append(("fit: our ALS / bare ALS (s)", f"{fit['candidates']['als']['seconds']:.2f} / {fit['als_seconds']:.2f}",
                      fit["candidates"]["als"]["ratio"], "≤ 1.2"))
    if "night" in result:
        night = result["night"]
        lines.append(("discovery (members/s, largest night)", f"{night['discovery_members_per_s']:,}", "", "≥ 5,000"))
        lines.append(("night growth exponent: jobs (wall)", "",
                      f"{night['job_growth_exponent']} ({night['growth_exponent']})", "≤ 1.1"))
    width = max(len(name) for name, *_ in lines)
    return "\n".join(f"{name:<{width}}  {value:>32}  {ratio!s:>13}  {target}" for name, value, ratio, target in lines)


STEPS = ("parse", "crawl", "load", "fit", "night")


def night_sizes(text: str) -> tuple[tuple[int, int], ...]:
    """``GAMESxMEMBERS`` pairs, comma-separated (``25000x100000,25000x400000``): the nights'
    sizes, smallest first; at least two, for a growth exponent."""
    sizes = []
    for part in (piece.strip() for piece in text.split(",")):
        games, _, members = part.lower().partition("x")
        if not (games.isdigit() and members.isdigit() and int(games) > 0 and int(members) > 0):
            raise ValueError(f"{part!r} is not GAMESxMEMBERS (for example 25000x100000)")
        sizes.append((int(games), int(members)))
    if len(sizes) < 2:
        raise ValueError("give at least two sizes: the growth exponent is a slope")
    return tuple(sorted(sizes, key=lambda size: size[0] * size[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="table on stderr, JSON alone on stdout")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--skip", default="", help=f"comma-separated steps to leave out, of {','.join(STEPS)}")
    parser.add_argument("--night-sizes", default="",
                        help="the nights' sizes as GAMESxMEMBERS,… (default: 750x3000,1500x6000,3000x12000)")
    args = parser.parse_args(argv)
    try:
        chosen_nights = night_sizes(args.night_sizes) if args.night_sizes else None
    except ValueError as exc:
        parser.error(f"--night-sizes: {exc}")
    skip = {name for name in args.skip.split(",") if name}
    if skip - set(STEPS):
        parser.error(f"--skip: unknown step(s) {', '.join(sorted(skip - set(STEPS)))}; steps are {', '.join(STEPS)}")
    from benchmarks.fit import fit_ratios
    from benchmarks.load import load_rates
    from benchmarks.parse import parse_ratio

    started = time.perf_counter()
    say = sys.stderr
    result: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                                          "python": platform.python_version(), "loadavg": _loadavg()}}
    sizes = QUICK_SIZES if args.quick else SIZES
    steps = {
        "parse": lambda: parse_ratio(**sizes["parse"]),
        "crawl": lambda: crawl_ratio(**sizes["crawl"]),
        "load": lambda: load_rates(**sizes["load"]),
        "fit": lambda: fit_ratios(**sizes["fit"]),
        "night": lambda: nights(chosen_nights or sizes["night"]),
    }
    for name in STEPS:
        if name in skip:
            continue
        tick = time.perf_counter()
        print(f"benchmarks: {name} …", file=say, flush=True)
        result[name] = steps[name]()
        print(f"benchmarks: {name} done in {time.perf_counter() - tick:.0f}s", file=say, flush=True)
    result["targets"] = targets(result)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["machine"]["loadavg_after"] = _loadavg()
    print(_table(result), file=say if args.json else sys.stdout, flush=True)
    print(json.dumps(result, ensure_ascii=False))
    return 0


def _loadavg() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages: other work on the machine moves every figure."""
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3]]
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit(main())
