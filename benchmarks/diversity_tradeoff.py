"""The price of less popularity bias and more variety in the discovery lists.

Run: ``uv run python benchmarks/diversity_tradeoff.py [--games 1000] [--users 2000]``.

Generates the sample site (seeded) and prints ``tradeoff_curve`` (below)
as JSON: the champion alone, then the discovery blend under a grid of long-tail boosts
and MMR diversity weights, each with NDCG@10, long-tail share, intra-list diversity and
mean popularity rank on a time split.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import logging  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402
from typing import Any  # noqa: E402

import polars as pl  # noqa: E402

from benchmarks.options import options  # noqa: E402
from models.base import topk_frame
from models.threads import single_threaded_blas
from models.beyond import intra_list_diversity, long_tail_share, mean_popularity_rank, popularity_ranks  # noqa: E402
from models.discovery.run import ChampionFit, fit_on_earlier  # noqa: E402
from models.metrics import ndcg_at_k  # noqa: E402

log = logging.getLogger("bodoge.benchmarks")

GRID = [(0.0, 0.0), (0.1, 0.0), (0.2, 0.0), (0.3, 0.0), (0.5, 0.0), (0.0, 0.1), (0.0, 0.2), (0.0, 0.4),
        (0.2, 0.2)]


def tradeoff_curve(
    collections: pl.DataFrame,
    games: pl.DataFrame,
    *,
    settings: list[tuple[float, float]],
    posts: pl.DataFrame | None = None,
    champion: str = "ease",
    params: dict[str, Any] | None = None,
    weighting: str = "graded",
    k: int = 10,
    max_users: int = 1500,
    seed: int = 0,
) -> list[dict[str, float]]:
    """For each ``(tail, diversity)``: NDCG@k, long-tail share, intra-list diversity and mean
    popularity rank of the discovery lists on a time split (latest 20 % of each member);
    the first point is the champion's own lists (``"tail": None``), the reference.

    Every list ranks the games a member had not marked at all before, as ``bodoge
    evaluate`` and the nightly's discovery do (``discover_candidates``)."""
    fit = ChampionFit(champion=champion, params=params or {}, weighting=weighting, seed=seed)
    state, train, test = fit_on_earlier(collections, games, posts, fit)
    relevant = test.join(train, on=["user_id", "game_id"], how="anti").select("user_id", "game_id")
    users = relevant.get_column("user_id").unique().sort()
    if users.len() > max_users:
        users = users.sample(max_users, seed=seed).sort()
    popularity = popularity_ranks(train)
    curve = [_champion_point(state, train, users, relevant, popularity, k)]
    base = state.blend
    for tail, diversity in settings:
        state.blend = replace(base, tail=tail, diversity=diversity)
        with single_threaded_blas():
            ranked, _ = state.rank(train, users.to_list(), k)
        point = {"tail": tail, "diversity": diversity, **_figures(state, ranked, relevant, popularity, k)}
        log.info("trade-off: %s", point)
        curve.append(point)
    state.blend = base
    return curve


def _champion_point(state, train: pl.DataFrame, users: pl.Series, relevant: pl.DataFrame,
                    popularity: pl.DataFrame, k: int) -> dict[str, Any]:
    """The champion alone on the same members: what the blend and re-rankings are measured against."""
    rows = state.interactions.user_rows(users)
    with single_threaded_blas():
        ids, values = state.model.recommend(rows, k, exclude=state.interactions.matrix[rows])
    lists = topk_frame(users, ids, values, state.interactions.game_ids)
    return {"tail": None, "diversity": None, **_figures(state, lists, relevant, popularity, k)}


def _figures(state, lists: pl.DataFrame, relevant: pl.DataFrame, popularity: pl.DataFrame, k: int) -> dict[str, Any]:
    """The four figures of one point of the curve, the champion's alone and each blend's alike."""
    return {
        "ndcg": ndcg_at_k(lists, relevant, k),
        "long_tail_share": long_tail_share(lists, popularity, k),
        "intra_list_diversity": intra_list_diversity(lists, state.game_ids, state.content.features, k),
        "mean_popularity_rank": mean_popularity_rank(lists, popularity, k),
    }


def main() -> None:
    args = options(None, __doc__.splitlines()[0], games=1000, users=2000, seed=7, champion="ease")

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
