"""Side-by-side ratios in one run: our code against the bare libraries it stands on.

Run: ``uv run python -m benchmarks [--json] [--quick]``. Prints a table (stderr with
``--json``) and, last on stdout, one JSON object with each comparison and its target:

* ``parse``: game pages per second, `scrapers.pages.games.game_item` vs bare lxml XPath
  selecting the same fields (target ratio ≥ 0.5);
* ``crawl``: a real crawl of the local sample site at local pace (no delay) vs
  ``scrapy bench`` on the same machine, pages per second (target ratio ≥ 0.7);
* ``load``: rows per second into DuckDB from Arrow (target ≥ 1,000,000);
* ``fit``: each candidate's fit vs bare implicit ALS on the same 1M interactions
  (target for the champion ≤ 1.2);
* ``night``: the post-crawl night (`benchmarks.scale`) at three sizes: discovery
  members per second at the largest, and the growth exponent of the night's seconds
  in collection rows (slope of log seconds on log rows, target ≤ 1.1), of the whole
  wall time and of the Dagster jobs alone (without each stage's fixed process start).

The default sizes finish in about 10 minutes on 2 free cores; ``--quick`` is for a smoke
run. Timings move with other load on the machine: note it beside the figures.
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

NIGHT_SIZES = ((750, 3_000), (1_500, 6_000), (3_000, 12_000))
"""(games, members) of the three nights behind the growth exponent."""
QUICK_NIGHT_SIZES = ((150, 400), (300, 800), (600, 1_600))


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


def crawl_ratio(games: int, members: int) -> dict[str, Any]:
    """Our crawl of the sample site against ``scrapy bench``."""
    from benchmarks.crawl_sample_site import benchmark as crawl_benchmark

    ours = crawl_benchmark(games, members)
    bare = scrapy_bench()
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
    """The scale benchmark at each size; growth exponents of the night and of each stage."""
    runs = []
    for games, members in sizes:
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
                   "champion": r["champion"]} for r in runs],
        "growth_exponent": round(growth_exponent(rows, [r["total_seconds"] for r in runs]), 3),
        "job_growth_exponent": round(growth_exponent(rows, [r["job_seconds"] for r in runs]), 3),
        "stage_exponents": {
            stage: round(growth_exponent(rows, [r["stages"][stage]["seconds"] for r in runs]), 3)
            for stage in largest["stages"]
        },
        "discovery_members_per_s": largest["discovery_members_per_s"],
        "champion": largest["champion"],
    }


def _table(result: dict[str, Any]) -> str:
    """The comparisons as aligned lines, one per figure with its target."""
    fit = result["fit"]
    champion = result["night"]["champion"]
    champion_fit = fit["candidates"].get(champion, {})
    lines = [
        ("parse: ours / bare lxml (pages/s)",
         f"{result['parse']['ours_pages_per_s']:,.0f} / {result['parse']['bare_lxml_pages_per_s']:,.0f}",
         result["parse"]["ratio"], "≥ 0.5"),
        ("crawl: ours / scrapy bench (pages/s)",
         f"{result['crawl']['ours_pages_per_s']:,.0f} / {result['crawl']['scrapy_bench_pages_per_s']:,.0f}",
         result["crawl"]["ratio"], "≥ 0.7"),
        ("load: bulk / upsert / writer (rows/s)",
         f"{result['load']['bulk_rows_per_s']:,} / {result['load']['upsert_rows_per_s']:,} / "
         f"{result['load']['writer_rows_per_s']:,}", "", "≥ 1,000,000"),
        (f"fit: {champion} (champion) / bare ALS (s)",
         f"{champion_fit.get('seconds', float('nan')):.2f} / {fit['als_seconds']:.2f}",
         champion_fit.get("ratio", ""), "≤ 1.2"),
        ("fit: our ALS / bare ALS (s)",
         f"{fit['candidates']['als']['seconds']:.2f} / {fit['als_seconds']:.2f}",
         fit["candidates"]["als"]["ratio"], "≤ 1.2"),
        ("discovery (members/s)", f"{result['night']['discovery_members_per_s']:,}", "", "≥ 5,000"),
        ("night growth exponent (wall / jobs only)", "",
         f"{result['night']['growth_exponent']} / {result['night']['job_growth_exponent']}", "≤ 1.1"),
    ]
    width = max(len(name) for name, *_ in lines)
    return "\n".join(f"{name:<{width}}  {value:>32}  {ratio!s:>7}  {target}" for name, value, ratio, target in lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="table on stderr, JSON alone on stdout")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args(argv)
    from benchmarks.fit import fit_ratios
    from benchmarks.load import load_rates
    from benchmarks.parse import parse_ratio

    started = time.perf_counter()
    say = sys.stderr
    result: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                                          "python": platform.python_version()}}
    steps = [
        ("parse", lambda: parse_ratio(300 if args.quick else 2_000, repeats=1 if args.quick else 3)),
        ("crawl", lambda: crawl_ratio(*((100, 200) if args.quick else (1_000, 2_000)))),
        ("load", lambda: load_rates(*((100_000, 20_000) if args.quick else (1_000_000, 200_000)))),
        ("fit", lambda: fit_ratios(**({"users": 600, "games": 400, "interactions": 20_000, "repeats": 1}
                                      if args.quick else {}))),
        ("night", lambda: nights(QUICK_NIGHT_SIZES if args.quick else NIGHT_SIZES)),
    ]
    for name, step in steps:
        tick = time.perf_counter()
        print(f"benchmarks: {name} …", file=say, flush=True)
        result[name] = step()
        print(f"benchmarks: {name} done in {time.perf_counter() - tick:.0f}s", file=say, flush=True)
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(_table(result), file=say if args.json else sys.stdout, flush=True)
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
