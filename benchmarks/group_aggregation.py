"""Game night: which aggregation of members' tastes (average, least misery, blend) wins.

Run: ``uv run python benchmarks/group_aggregation.py [--games 2000] [--users 5000] [--size 3]``.

Generates the sample site (seeded), then ``models.discovery.group_eval``: a time split,
synthetic groups whose members later marked the same games, NDCG@10 and recall@10 of
each aggregation. Prints one JSON object.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import time  # noqa: E402

from benchmarks.options import options  # noqa: E402


def main() -> None:
    args = options(None, __doc__.splitlines()[0], games=2000, users=5000, seed=7, size=[2, 3, 4], groups=400)

    from models.discovery.group_eval import evaluate_group_aggregations
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    started = time.perf_counter()
    frames = truth_frames(generate_site(n_games=args.games, n_users=args.users, seed=args.seed))
    games = with_filter_columns(frames["games"])  # marts.games' one filter rule
    results = {
        str(size): evaluate_group_aggregations(frames["collections"], games, size=size,
                                               n_groups=args.groups, seed=args.seed)
        for size in args.size
    }
    print(json.dumps({"games": args.games, "users": args.users, "seed": args.seed, "by_size": results,
                      "seconds": round(time.perf_counter() - started, 1)}, indent=2))


if __name__ == "__main__":
    main()
