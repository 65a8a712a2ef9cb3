"""The price of less popularity bias and more variety in the discovery lists.

Run: ``uv run python benchmarks/diversity_tradeoff.py [--games 1000] [--users 2000]``.

Generates the sample site (seeded) and prints ``models.discovery.rerank.tradeoff_curve``
as JSON: the champion alone, then the discovery blend under a grid of long-tail boosts
and MMR diversity weights, each with NDCG@10, long-tail share, intra-list diversity and
mean popularity rank on a time split.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

GRID = [(0.0, 0.0), (0.1, 0.0), (0.2, 0.0), (0.3, 0.0), (0.5, 0.0), (0.0, 0.1), (0.0, 0.2), (0.0, 0.4),
        (0.2, 0.2)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--champion", default="ease")
    args = parser.parse_args()

    from models.discovery.rerank import tradeoff_curve
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    started = time.perf_counter()
    frames = truth_frames(generate_site(n_games=args.games, n_users=args.users, seed=args.seed))
    games = with_filter_columns(frames["games"])  # marts.games' one filter rule
    curve = tradeoff_curve(frames["collections"], games, settings=GRID, champion=args.champion)
    print(json.dumps({"games": args.games, "users": args.users, "champion": args.champion, "curve": curve,
                      "seconds": round(time.perf_counter() - started, 1)}, indent=2))


if __name__ == "__main__":
    main()
