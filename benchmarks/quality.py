"""Quality and runtime of the whole ``evaluate`` on seeded synthetic data.

Run: ``uv run python benchmarks/quality.py [--dataset site|ml1m] [--seed 0]``.

* ``site``: ~3,000 members × 1,500 games, taste clusters, Zipf popularity, mixed
  statuses and ratings (target: champion NDCG@10 ≥ 1.5 × popularity).
* ``ml1m``: 6,040 × 3,700, ~1,000,000 rows of ``user_id``/``game_id``/``rating`` only,
  the shape of MovieLens-1M (target: minutes on 2 cores).

Both use a seeded 20 % per-user holdout as TEST. Prints one JSON object with every
model's test NDCG, the champion, its ratios to popularity and ALS, and the seconds.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import time  # noqa: E402


def main() -> None:
    """Generate, split, evaluate, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["site", "ml1m"], default="site")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true", help="log every stage")
    args = parser.parse_args()
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    from models.evaluate import evaluate
    from models.interactions import normalise_interactions
    from models.split import holdout_split
    from models.synthetic import synthetic_interactions

    if args.dataset == "site":
        raw = synthetic_interactions(seed=args.seed)
    else:
        raw = synthetic_interactions(
            6_040, 3_700, n_interactions=1_000_000, statuses=False, seed=args.seed
        )
    train, test = holdout_split(normalise_interactions(raw), fraction=0.2, seed=args.seed + 1)
    started = time.perf_counter()
    report = evaluate(train, test, k=10, seed=args.seed)
    seconds = time.perf_counter() - started
    ndcg = {name: round(result.metrics["ndcg"], 4) for name, result in report.results.items()}
    champion = ndcg[report.champion]
    print(
        json.dumps(
            {
                "dataset": args.dataset,
                "n_interactions": train.height + test.height,
                "champion": report.champion,
                "ndcg": ndcg,
                "champion_vs_popularity": round(champion / max(ndcg["popularity"], 1e-12), 3),
                "champion_vs_als": round(champion / max(ndcg["als"], 1e-12), 3),
                "weighting": report.weighting.name,
                "params": {name: result.params for name, result in report.results.items()},
                "evaluate_seconds": round(seconds, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
