"""Throughput of a real crawl: the generated sample site, over HTTP, into a temp warehouse.

Run: ``uv run python benchmarks/crawl_sample_site.py [--games 2000] [--users 5000] [--quick]``
(``--quick`` is 300 games / 500 members). Prints one JSON object:
``{"games", "users", "pages", "items", "seconds", "pages_per_second", "crawler_cpu_seconds",
"crawler_busy", "server_cpu_seconds", "collections", "collections_match", ...}``.

``crawler_cpu_seconds`` is the CPU (user + system) of the Scrapy subprocess, read with
``resource.getrusage(RUSAGE_CHILDREN)`` around `run_crawl` (which waits for its child).
``server_cpu_seconds`` is this process's CPU over the same span: the sample site renders
its pages in threads of this process, so when ``crawler_cpu_seconds + server_cpu_seconds``
is far below ``seconds`` on a machine with two free cores, the crawl sits idle
(``crawler_busy`` is the crawler's CPU over wall time: 1.0 means CPU-bound). Timings vary
with other load on the machine: repeat a run and keep the lowest CPU figure.
``collections_match`` says whether every public collection row of the site is in
``raw.collection_entries`` exactly once.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.site_size import site_size  # noqa: E402
from samplesite.generator import generate_site  # noqa: E402
from samplesite.server import SampleSiteServer  # noqa: E402
from samplesite.truth import truth_frames  # noqa: E402
from scrapers.crawl import run_crawl  # noqa: E402
from warehouse.db import connect  # noqa: E402

QUICK = (300, 500)


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _collections_check(warehouse: Path, expected: Any) -> dict[str, Any]:
    """Rows, distinct (user, game) keys, and whether they equal the truth's keys exactly."""
    with connect(warehouse, read_only=True) as con:
        got = con.sql("SELECT user_id, game_id FROM raw.collection_entries").pl()
    keys = set(zip(got["user_id"].to_list(), got["game_id"].to_list()))
    want = set(zip(expected["user_id"].to_list(), expected["game_id"].to_list()))
    return {
        "collections": got.height,
        "collections_expected": expected.height,
        "collections_match": got.height == len(keys) == expected.height and keys == want,
    }


def benchmark(n_games: int, n_users: int, seed: int = 0) -> dict[str, Any]:
    """Generate, serve and crawl one site; the numbers as a dict."""
    site = generate_site(n_games=n_games, n_users=n_users, seed=seed)
    expected = truth_frames(site)["collections"]
    with tempfile.TemporaryDirectory(prefix="bodoge-bench-") as tmp, SampleSiteServer(site) as server:
        warehouse = Path(tmp) / "warehouse.duckdb"
        children, own = _cpu(resource.RUSAGE_CHILDREN), _cpu(resource.RUSAGE_SELF)
        started = time.perf_counter()
        result = run_crawl(base_url=server.base_url, warehouse=warehouse, progress=None)
        seconds = time.perf_counter() - started
        crawler_cpu, server_cpu = _cpu(resource.RUSAGE_CHILDREN) - children, _cpu(resource.RUSAGE_SELF) - own
        check = _collections_check(warehouse, expected)
    written = result.written
    stats = result.stats
    return {
        "games": n_games,
        "users": n_users,
        "pages": result.pages,
        "items": int(sum(v for k, v in stats.items() if k.startswith("bodoge/items/"))),
        "seconds": round(seconds, 2),
        "pages_per_second": round(result.pages / seconds, 1) if seconds else None,
        "crawler_cpu_seconds": round(crawler_cpu, 2),
        "crawler_cpu_ms_per_page": round(1000 * crawler_cpu / result.pages, 2) if result.pages else None,
        "crawler_busy": round(crawler_cpu / seconds, 2) if seconds else None,
        "server_cpu_seconds": round(server_cpu, 2),
        "retries": stats.get("retry/count", 0),
        "written": written,
        **check,
    }


def main(argv: list[str] | None = None) -> int:
    games, users, seed = site_size(argv, description=__doc__.splitlines()[0], quick=QUICK)
    print(json.dumps(benchmark(games, users, seed), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
