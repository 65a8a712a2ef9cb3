"""Do the served lists churn between two nights for members whose collection did not change?

Run: ``nice -n 10 uv run python -m benchmarks.stability_nights [--games 1000] [--users 2000]
[--nights 1 2]``. Prints one JSON object.

Why: the top of a member's list should not move from one night to the next when their
collection did not (issue 22, item 4). This is ``marts.recommendation_runs.stability``
computed in-process on the sample site's nights (``samplesite.nights``, the demo's site by
default): each night runs what the nightly runs on the demo's data (``evaluate`` on a seeded
random split, then on the time split reusing its tuning; the time split names the champion,
on its own selection split or a forward one as ``models.forward`` decides, and night 2 keeps night 1's champion unless it is clearly beaten, `models.champion`),
then the discovery run (``discover``: the champion fitted on every row, blended with content
similarity, re-ranked) with that night's champion, and with the best **single** candidate
of that night's time-split selection (what the champion was before ensembles joined).
Jaccard@10 of each unchanged member's served top 10 (same collection rows on both nights,
as ``marts.served_top10.fingerprint`` decides) against the night before, averaged.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from typing import Any  # noqa: E402

import polars as pl  # noqa: E402

COLUMNS = ["user_id", "game_id", "have", "played", "favorite", "watching", "rating"]
SEED = 0
K = 10


def night_report(collections: pl.DataFrame, incumbent: str | None = None) -> Any:
    """The night's time-split evaluation, as ``recsys/model_evaluation`` runs it on small data
    (``incumbent``: the night before's champion, which stays unless clearly beaten)."""
    from models.evaluate import evaluate
    from models.interactions import normalise_interactions
    from models.split import holdout_split, time_split

    times = collections.select("user_id", "game_id", "updated_at")
    rows = normalise_interactions(collections.select(COLUMNS), source="collections")
    rows = rows.join(times.unique(["user_id", "game_id"]), on=["user_id", "game_id"], how="left")
    frame = rows.drop("updated_at")
    train, test = holdout_split(frame, fraction=0.2, seed=SEED)
    first = evaluate(train, test, k=K, seed=SEED, split="random", incumbent=incumbent)
    train, test = time_split(rows, fraction=0.2)
    return evaluate(train.drop("updated_at"), test.drop("updated_at"), k=K, seed=SEED,
                    times=rows.select("user_id", "game_id", "updated_at"), reuse=first, split="time",
                    incumbent=incumbent, forward=rows.select("user_id", "game_id", "updated_at"))


def served(collections: pl.DataFrame, games: pl.DataFrame, posts: pl.DataFrame, report: Any, model: str) -> pl.DataFrame:
    """Every member's served top 10 when ``model`` (with the night's parameters) ranks them."""
    from models.discovery.run import discover

    found = discover(
        collections=collections.select(COLUMNS), games=games, posts=posts, champion=model,
        params=report.results[model].params, weighting=report.weighting.name, run_id=model,
        generated_at=datetime.now(timezone.utc), depth=K, n_similar=1, seed=SEED,
    )
    return found.recommendations.filter(pl.col("rank") <= K).select("user_id", "game_id", "rank")


def unchanged_members(before: pl.DataFrame, after: pl.DataFrame) -> pl.Series:
    """Members whose collection rows are the same on both nights (``served_top10.fingerprint``)."""
    def keyed(frame: pl.DataFrame) -> pl.DataFrame:
        row = pl.concat_str([pl.col(c).cast(pl.String).fill_null("") for c in COLUMNS[1:]], separator="|")
        return frame.select("user_id", row.alias("row")).group_by("user_id").agg(pl.col("row").sort().str.join(";"))

    same = keyed(before).join(keyed(after), on="user_id", suffix="_after").filter(pl.col("row") == pl.col("row_after"))
    return same.get_column("user_id").sort()


def main() -> None:
    """Two nights of the sample site; Jaccard@10 of the served lists per model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="the sample site's seed")
    parser.add_argument("--nights", type=int, nargs=2, default=[1, 2])
    args = parser.parse_args()

    from models.beyond import rank_stability
    from samplesite.generator import generate_site
    from samplesite.nights import site_on_night
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    started = time.perf_counter()
    site = generate_site(n_games=args.games, n_users=args.users, seed=args.seed)
    nights = [truth_frames(site_on_night(site, night)) for night in args.nights]
    reports = [night_report(nights[0]["collections"])]
    reports.append(night_report(nights[1]["collections"], incumbent=reports[0].champion))
    first = reports[0]
    singles = [{name: r.selection_ndcg for name, r in report.results.items() if name != "ensemble"} for report in reports]
    best = [max(choice, key=lambda name: choice[name]) for choice in singles]
    # Each night's own choice (a full-tuning night: what the demo does every night) and night 1's
    # choice on both nights (a reuse night: the same model and parameters, only the data moved).
    plans = {
        "champion": [(report.champion, report) for report in reports],
        "ensemble": [("ensemble", report) for report in reports],
        "best_single": [(name, report) for name, report in zip(best, reports)],
        "ensemble_fixed": [("ensemble", first)] * 2,
        "best_single_fixed": [(best[0], first)] * 2,
    }
    same = unchanged_members(nights[0]["collections"], nights[1]["collections"])
    stability = {}
    for label, plan in plans.items():
        lists = [served(frames["collections"], with_filter_columns(frames["games"]), frames["posts"], report, model)
                 .filter(pl.col("user_id").is_in(same.implode()))
                 for frames, (model, report) in zip(nights, plan)]
        stability[label] = round(rank_stability(lists[1], lists[0], K) or 0.0, 4)
    choices = [{"champion": report.champion, "best_single": name, "ensemble": report.results["ensemble"].params["shares"],
                "selection_ndcg": {n: round(r.selection_ndcg, 4) for n, r in report.results.items()}}
               for report, name in zip(reports, best)]
    print(json.dumps({"games": args.games, "users": args.users, "nights": args.nights, "choices": choices,
                      "unchanged_members": same.len(), "stability_jaccard10": stability,
                      "seconds": round(time.perf_counter() - started, 1)}, default=str))


if __name__ == "__main__":
    main()
