"""Quality on real rating data: the whole ``evaluate`` on MovieLens-100k over several seeds.

Run: ``nice -n 10 uv run python -m benchmarks.quality_real [--seeds 5] [--models ...]``;
``--forward [--cuts 0.7 0.8 0.9]`` cuts at global moments instead (``benchmarks.quality_forward``);
``--split-dir DIR`` only writes seed 0's split for ``bodoge evaluate --train DIR/train.parquet
--test DIR/test.parquet`` (the same numbers as seed 0 here: the same split, the same seed).

Why: synthetic data flatters whatever generated it; ML-100k (943 users, 1,682 movies,
100,000 real ratings, shipped inside the recbole wheel: ``models.movielens``) is the
usual small public yardstick. Protocol per seed ``s``: a per-user 20 % holdout
(``holdout_split(seed=s)``) is TEST, ``evaluate(seed=s)`` tunes and selects on TRAIN only,
every candidate ranks every unseen movie (full ranking). Printed as one JSON object:

* per model: NDCG@10, catalogue coverage and long-tail share, mean and std over seeds, and
  the paired test against tuned EASE over all seeds' users (``vs_ease``);
* the champion of each seed (chosen on the selection split of TRAIN, never on TEST);
* the paired per-user test, champion vs tuned EASE and ensemble vs tuned EASE: Wilcoxon
  signed-rank on per-user NDCG@10 differences, per seed and over all seeds' users, with
  the mean relative gain;
* ``evaluate`` seconds per seed;
* each model's Jaccard@10 between two consecutive "nights" for the members whose rows did
  not change (``stability``), with the first seed's parameters.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from benchmarks.paired import paired  # noqa: E402


def one_seed(frame: pl.DataFrame, seed: int, models: list[str] | None) -> dict[str, Any]:
    """Split, evaluate, and the per-user NDCG of every model on this seed's TEST."""
    from models.evaluate import evaluate
    from models.metrics import ndcg_per_user
    from models.split import holdout_split

    train, test = holdout_split(frame, fraction=0.2, seed=seed)
    started = time.perf_counter()
    report = evaluate(train.drop("updated_at"), test.drop("updated_at"), k=10, seed=seed, models=models)
    seconds = time.perf_counter() - started
    relevant = test.join(train, on=["user_id", "game_id"], how="anti").select("user_id", "game_id")
    per_user = {name: ndcg_per_user(result.topk, relevant, 10) for name, result in report.results.items()}
    return {
        "seed": seed,
        "champion": report.champion,
        "weighting": report.weighting.name,
        "seconds": round(seconds, 1),
        "fit_seconds": {name: round(result.fit_seconds, 2) for name, result in report.results.items()},
        "selection_ndcg": {name: round(result.selection_ndcg, 4) for name, result in report.results.items()},
        "params": {name: result.params for name, result in report.results.items()},
        "metrics": {
            name: {
                "ndcg": result.metrics["ndcg"],
                "coverage": result.metrics["coverage"],
                "long_tail": result.beyond["long_tail_share"],
            }
            for name, result in report.results.items()
        },
        "per_user": per_user,
    }


def _tagged(run: dict[str, Any], model: str) -> pl.DataFrame:
    """``model``'s per-user NDCG of this seed, users tagged with the seed (pooled tests pair user-seeds)."""
    return run["per_user"][model].with_columns(pl.col("user_id") + f"@{run['seed']}")


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean and std over seeds per model and metric; the paired tests against EASE."""
    names = list(runs[0]["metrics"])
    table: dict[str, dict[str, Any]] = {
        name: {
            f"{metric}_{stat}": round(float(fn([run["metrics"][name][metric] for run in runs])), 4)
            for metric in ("ndcg", "coverage", "long_tail")
            for stat, fn in (("mean", np.mean), ("std", np.std))
        }
        for name in names
    }
    if "ease" in names:  # every model against tuned EASE, over all seeds' users
        for name in names:
            if name != "ease":
                table[name]["vs_ease"] = paired(*(pl.concat([_tagged(run, model) for run in runs])
                                                  for model in (name, "ease")))
    tests: dict[str, Any] = {}
    for label, pick in (("champion_vs_ease", lambda run: run["champion"]), ("ensemble_vs_ease", lambda run: "ensemble")):
        if "ease" not in names or (label == "ensemble_vs_ease" and "ensemble" not in names):
            continue
        per_seed, pooled_a, pooled_b = [], [], []
        for run in runs:
            a, b = _tagged(run, pick(run)), _tagged(run, "ease")
            per_seed.append({"seed": run["seed"], "model": pick(run), **paired(a, b)})
            pooled_a.append(a)
            pooled_b.append(b)
        tests[label] = {"per_seed": per_seed, "pooled": paired(pl.concat(pooled_a), pl.concat(pooled_b))}
    return {"models": table, "paired": tests}


def stability(frame: pl.DataFrame, run: dict[str, Any], *, changed: float = 0.1, seed: int = 0) -> dict[str, float]:
    """Jaccard@10 between two consecutive "nights" for the members whose rows did not change.

    Night 1 lacks the two latest ratings of a seeded ``changed`` share of the members;
    night 2 has everything (those members added two titles, everyone else nothing). Each
    model, with the parameters ``run`` (a seed's evaluation) chose, is fitted on each night
    and ranks every unseen title; the mean Jaccard@10 of the unchanged members' two lists
    is what the night's ``served_top10`` stability measures on the site.
    """
    from models.base import topk_frame
    from models.beyond import rank_stability
    from models.candidates import default_candidates
    from models.interactions import InteractionMatrix
    from models.weighting import weighting_named

    users = frame.get_column("user_id").unique().sort()
    movers = users.sample(fraction=changed, seed=seed)
    latest = pl.col("updated_at").rank("ordinal", descending=True).over("user_id")
    night1 = frame.filter(~(pl.col("user_id").is_in(movers.implode()) & (latest <= 2)))
    weights = weighting_named(run["weighting"])
    staying = users.filter(~users.is_in(movers.implode()))
    lists: dict[str, list[pl.DataFrame]] = {}
    for night in (night1, frame):
        matrix = InteractionMatrix.from_frame(night.drop("updated_at"), weights, user_ids=users)
        rows = matrix.user_rows(staying)
        for name, params in run["params"].items():
            model = default_candidates(tried=True)[name].build(params, run["seed"]).fit(matrix.matrix)
            ids, scores = model.recommend(rows, 10, exclude=matrix.matrix[rows])
            lists.setdefault(name, []).append(topk_frame(staying, ids, scores))
    return {name: round(rank_stability(now, before, 10) or 0.0, 4) for name, (before, now) in lists.items()}


def main() -> None:
    """Every seed in turn, then the summary, as JSON on stdout."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--models", nargs="*", default=None,
                        help="candidates (default: the night's; tried ones such as gfcf may be named)")
    parser.add_argument("--verbose", action="store_true", help="log every stage")
    parser.add_argument("--split-dir", type=Path, default=None,
                        help="only write seed 0's train.parquet/test.parquet here (for `bodoge evaluate`)")
    parser.add_argument("--forward", action="store_true",
                        help="cut at global moments and test on what members rated next (benchmarks.quality_forward)")
    parser.add_argument("--cuts", type=float, nargs="+", default=None,
                        help="with --forward: quantiles of the ratings' times to cut at (default 0.7 0.8 0.9)")
    args = parser.parse_args()
    if args.cuts is not None and (not args.forward or not all(0.0 < cut < 1.0 for cut in args.cuts)):
        parser.error("--cuts needs --forward and quantiles in (0, 1)")
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    from models.interactions import normalise_interactions
    from models.movielens import ml100k

    raw = ml100k()
    frame = normalise_interactions(raw)  # keeps updated_at
    if args.split_dir is not None:
        from models.split import holdout_split

        args.split_dir.mkdir(parents=True, exist_ok=True)
        for part, rows in zip(("train", "test"), holdout_split(frame.drop("updated_at"), fraction=0.2, seed=0)):
            rows.write_parquet(args.split_dir / f"{part}.parquet")
        print(json.dumps({"train": str(args.split_dir / "train.parquet"), "test": str(args.split_dir / "test.parquet")}))
        return
    if args.forward:
        from benchmarks.quality_forward import DEFAULT_CUTS, run_forward

        forward = run_forward(frame, list(args.cuts or DEFAULT_CUTS), args.models)
        print(json.dumps({"dataset": "MovieLens-100k (recbole 1.2.1 wheel)", "split": "forward (global time cuts)",
                          "n_interactions": frame.height, **forward}, default=str))
        return
    runs = [one_seed(frame, seed, args.models) for seed in range(args.seeds)]
    summary = summarise(runs)
    summary["stability_jaccard10"] = stability(frame, runs[0])
    print(
        json.dumps(
            {
                "dataset": "MovieLens-100k (recbole 1.2.1 wheel)",
                "n_users": frame.get_column("user_id").n_unique(),
                "n_items": frame.get_column("game_id").n_unique(),
                "n_interactions": frame.height,
                "seeds": args.seeds,
                **summary,
                "runs": [{key: value for key, value in run.items() if key != "per_user"} for run in runs],
            },
            default=str,
        )
    )


if __name__ == "__main__":
    main()
