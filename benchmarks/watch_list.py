"""Discovery without the watch list, and the watch-list shelf: the rule against the one it replaced.

Run: ``uv run python benchmarks/watch_list.py [--games 1000] [--users 2000] [--seed 0]``.

Generates the sample site (seeded; the defaults are ``bodoge demo``'s), then
``models.discovery.watch_eval``: the night's discovery lists (the watch list's share of the
top-10 slots, catalogue coverage) and, on a time split, discovery NDCG@10 on new games
(before: 興味あり games allowed in, the replaced rule; after: never) and the shelf's
NDCG@10 on the watch list against the same shelf by popularity. The champion defaults to
the demo night's (``marts.model_runs``: bm25, B 1.0, K 200, K1 0.6, flags-only weighting).
Prints one JSON object.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

DEMO_CHAMPION = ("bm25", {"B": 1.0, "K": 200, "K1": 0.6}, "flags_only")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--champion", default=DEMO_CHAMPION[0])
    parser.add_argument("--params", type=json.loads, default=None, help="the champion's parameters as JSON")
    parser.add_argument("--weighting", default=DEMO_CHAMPION[2])
    args = parser.parse_args()
    params = args.params if args.params is not None else (DEMO_CHAMPION[1] if args.champion == "bm25" else {})

    from models.discovery.run import ChampionFit
    from models.discovery.watch_eval import evaluate_watch_split, nightly_lists
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    started = time.perf_counter()
    frames = truth_frames(generate_site(n_games=args.games, n_users=args.users, seed=args.seed))
    games = with_filter_columns(frames["games"])  # marts.games' one filter rule
    fit = ChampionFit(champion=args.champion, params=params, weighting=args.weighting)
    result = {
        "games": args.games, "users": args.users, "seed": args.seed,
        "champion": {"name": args.champion, "params": params, "weighting": args.weighting},
        "nightly": nightly_lists(frames["collections"], games, fit),
        "time_split": evaluate_watch_split(frames["collections"], games, fit),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
