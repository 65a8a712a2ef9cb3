"""Did the demo's lists come true? The sample site's nights through the whole nightly job.

Run: ``nice -n 10 uv run python -m benchmarks.outcomes_nights [--games 1000] [--users 2000]
[--nights 3] [--data-dir DIR]``. Prints one JSON object.

Why: ``marts.list_outcomes`` is only worth reading if, on a site whose members act on their
taste (``samplesite.nights``), our lists beat the popularity baseline beyond noise. Each night
is the sample site's next night (``site_on_night``) served over HTTP, crawled and run through
every asset (``run_nightly``, as ``bodoge run`` does); after the last night the published
night's ``marts.list_outcomes`` is printed, each rate beside its bootstrap 95 % interval and
our rate as a ratio of popularity's (the baseline this measures against).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any


def run_nights(data_dir: Path, *, games: int, users: int, seed: int, nights: int) -> dict[str, Any]:
    """Run nights 1..``nights`` of the sample site into ``data_dir``; the outcomes and timings."""
    import duckdb

    from bodoge.jobs import run_nightly
    from core.settings import Settings
    from samplesite.generator import generate_site
    from samplesite.nights import site_on_night
    from samplesite.server import SampleSiteServer

    settings = Settings(data_dir=data_dir)
    site = generate_site(n_games=games, n_users=users, seed=seed)
    seconds = []
    with SampleSiteServer(site) as server:
        for night in range(1, nights + 1):
            server.site = site if night == 1 else site_on_night(site, night)
            started = time.perf_counter()
            run_nightly(settings.replace(base_url=server.base_url))
            seconds.append(round(time.perf_counter() - started, 1))
    with duckdb.connect(str(data_dir / "published.duckdb"), read_only=True) as con:
        cursor = con.execute(
            "SELECT h.night_no, o.* EXCLUDE (computed_at) FROM marts.list_outcomes o "
            "JOIN marts.history_nights h ON h.night_id = o.served_night_id ORDER BY h.night_no, list_kind, nights_after")
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, row)) for row in cursor.fetchall()]
    for row in rows:
        ours, popular = row["hit_rate_at_10"], row["popularity_hit_rate_at_10"]
        row["ratio_to_popularity"] = round(ours / popular, 2) if ours is not None and popular else None
        row["beats_popularity"] = (row["hit_rate_low"] is not None and row["popularity_high"] is not None
                                   and row["hit_rate_low"] > row["popularity_high"])
    return {"site": {"games": games, "users": users, "seed": seed}, "nights": nights,
            "night_seconds": seconds, "outcomes": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.outcomes_nights", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=None, help="where the nights go (default: a temporary folder)")
    args = parser.parse_args(argv)
    if args.nights < 2:
        parser.error("--nights: at least 2 (outcomes need a night after the served one)")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="bodoge-outcomes-") as tmp:
        data_dir = args.data_dir or Path(tmp)
        result = run_nights(data_dir, games=args.games, users=args.users, seed=args.seed, nights=args.nights)
    print(json.dumps(result, default=str, ensure_ascii=False))


if __name__ == "__main__":
    main()
