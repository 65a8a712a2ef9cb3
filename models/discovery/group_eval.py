"""Which way of combining a group's tastes finds what the group plays next, measured offline.

Protocol (seeded, so anyone can reproduce it):

1. Time split of the collections (``models.split.time_split``): each member's latest
   20 % of entries are what they "marked next"; the rest is what the model knows.
2. The champion and content are fitted on the earlier entries (``run.fit_state``).
3. Synthetic groups of ``size`` members: two members who both marked the same game
   later (picked at random among such games), plus random members with later entries.
   A group's *relevant* games are the later games at least two of its members marked,
   and that no member had before: what several of them went on to play.
4. Candidates: every game no member of the group had before (availability and player
   counts are lifted: they would filter the truth the same way for every aggregation).
   Each aggregation ranks them from the same member scores (``group.member_scores``);
   NDCG@k and recall@k are averaged over groups.

The winner is ``group.DEFAULT_AGGREGATION``; docs/recommenders.md shows the numbers
(``benchmarks/group_aggregation.py`` prints them).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import polars as pl

from models.base import top_n
from models.threads import single_threaded_blas
from models.discovery.group import AGGREGATIONS, Table, aggregate, member_scores
from models.discovery.run import ChampionFit, fit_on_earlier
from models.metrics import ndcg_at_k, recall_at_k

log = logging.getLogger("bodoge.models")


def synthetic_groups(test: pl.DataFrame, *, size: int, n_groups: int, seed: int) -> list[list[str]]:
    """Groups of ``size`` members, each with two members who later marked the same game."""
    if size < 2:
        raise ValueError(f"a group has at least two members, not {size}")
    shared = (test.group_by("game_id").agg(pl.col("user_id").unique().sort()).filter(pl.col("user_id").list.len() >= 2)
              .sort("game_id"))
    users = test.get_column("user_id").unique().sort().to_list()
    if shared.height == 0 or len(users) < size:
        return []
    rng = np.random.default_rng(seed)
    holders = shared.get_column("user_id").to_list()
    groups = []
    for _ in range(n_groups):
        pair = list(rng.choice(holders[int(rng.integers(len(holders)))], size=2, replace=False))
        others = [u for u in rng.permutation(users) if u not in pair][: size - 2]
        groups.append([str(u) for u in pair + others])
    return groups


def evaluate_group_aggregations(
    collections: pl.DataFrame,
    games: pl.DataFrame,
    *,
    posts: pl.DataFrame | None = None,
    fit: ChampionFit | None = None,
    size: int = 3,
    n_groups: int = 300,
    k: int = 10,
    seed: int = 0,
) -> dict[str, Any]:
    """``{"n_groups", "size", "k", "champion", "aggregations": {name: {"ndcg", "recall"}}, "winner"}``.

    ``fit`` is how the champion is fitted (``run.ChampionFit``; by default EASE with its
    default parameters on graded weights); ``seed`` picks the synthetic groups, and the champion's too when
    ``fit`` is not given, so one number reproduces a whole measurement."""
    fit = fit or ChampionFit(seed=seed)
    state, train, test = fit_on_earlier(collections, games, posts, fit)
    catalogue = set(state.game_ids.to_list())
    lists: dict[str, list[dict[str, Any]]] = {how: [] for how in AGGREGATIONS}
    relevant_rows = []
    n_used = 0
    for index, group in enumerate(synthetic_groups(test, size=size, n_groups=n_groups, seed=seed)):
        known = train.filter(pl.col("user_id").is_in(group))
        later = test.filter(pl.col("user_id").is_in(group)).join(known, on="game_id", how="anti")
        relevant = (later.group_by("game_id").len().filter(pl.col("len") >= 2).get_column("game_id").to_list())
        relevant = [g for g in relevant if g in catalogue]
        if not relevant:
            continue
        n_used += 1
        relevant_rows += [(index, game) for game in relevant]
        allowed = ~state.game_ids.is_in(known.get_column("game_id").implode()).to_numpy()
        table = Table(user_ids=group, collections=known, playable=state.game_ids, anywhere=True)
        with single_threaded_blas():
            _, scores = member_scores(state, table, allowed)
        for how in AGGREGATIONS:
            ids, _ = top_n(aggregate(scores.blended, how)[None, :], k)
            picked = ids[0][ids[0] >= 0]
            lists[how] += [{"user_id": index, "rank": r + 1, "game_id": state.game_ids[int(g)]}
                           for r, g in enumerate(picked)]
    truth = pl.DataFrame(relevant_rows, schema={"user_id": pl.Int64, "game_id": pl.String}, orient="row")
    results = {}
    for how, rows in lists.items():
        frame = pl.DataFrame(rows, schema={"user_id": pl.Int64, "rank": pl.Int64, "game_id": pl.String})
        results[how] = {"ndcg": ndcg_at_k(frame, truth, k), "recall": recall_at_k(frame, truth, k)}
    winner = max(AGGREGATIONS, key=lambda how: (results[how]["ndcg"], -AGGREGATIONS.index(how)))
    log.info("group aggregation: %d groups of %d; %s", n_used, size,
             ", ".join(f"{how} ndcg@{k} {r['ndcg']:.4f}" for how, r in results.items()))
    return {"n_groups": n_used, "size": size, "k": k, "champion": fit.champion, "aggregations": results,
            "winner": winner}
