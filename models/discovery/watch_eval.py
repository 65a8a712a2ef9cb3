"""Each list scored for what it is for: discovery on new games, the watch-list shelf on the watch list.

Discovery never lists a game the member marked 興味あり (their watch list: neither 持ってる
nor 経験あり); those games have their own shelf (``watch_next``). This measures both lists,
and discovery under the rule it replaces ("before": the watch list allowed in, a 興味あり
row without 持ってる/経験あり/お気に入り as a candidate), on a time split
(``fit_on_earlier``: each member's latest 20 % of entries are "later"):

* **Discovery on new games.** Relevant: the later games the member had, played or loved —
  later rows that are not on their watch list (a later 興味あり-only row would sit on the
  shelf, not in discovery). Ranked over the games without an earlier entry (after), or
  those plus the earlier watch list (before). NDCG@k, the watch list's share of the top-k
  slots, catalogue coverage@k.
* **The shelf on the watch list.** What it is for: which 興味あり games the member goes on
  to have or play. A warehouse of current states cannot show that directly: a game marked
  持ってる or 経験あり is no longer 興味あり, so the split sees it only as a later have/played
  row. Those later games are therefore put back on the member's watch list (as 興味あり
  only, which is what the night would have fitted the champion on while they waited
  there), beside their earlier watch list, the champion is fitted on that, and the shelf
  ranks the whole list; relevant: the put-back games. Members without an earlier watch
  list are left out (a list of only relevant games scores 1 whatever the order). Against
  the same shelf ordered by popularity (members per game in those entries) and in a
  random order (``random_order_ndcg``, its expectation).

``nightly_lists`` gives the figures of the night's own lists (all collections, top k):
the watch list's share of discovery slots and catalogue coverage, before and after.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import polars as pl

from models.threads import single_threaded_blas
from models.discovery.lists import Candidates, discover_candidates
from models.discovery.members import Members
from models.discovery.model import DiscoveryModel
from models.discovery.run import ChampionFit, catalog_frame, fit_on_earlier, fit_state
from models.discovery.shelves import shelf_not_liked, watch_list
from models.interactions import normalise_interactions
from models.metrics import catalog_coverage_at_k, ndcg_at_k

PAIR = ["user_id", "game_id"]


def watch_pairs(rows: pl.DataFrame) -> pl.DataFrame:
    """(member, game) on the watch list: 興味あり, neither 持ってる nor 経験あり."""
    return rows.filter(pl.col("watching") & ~pl.col("have") & ~pl.col("played")).select(PAIR)


def before_candidates(state: DiscoveryModel, rows: pl.DataFrame) -> Candidates:
    """Discovery's candidates under the replaced rule: also the 興味あり rows without 持ってる,
    経験あり or お気に入り (they come back, flagged)."""
    back = rows.filter(pl.col("watching") & ~pl.col("have") & ~pl.col("played") & ~pl.col("favorite")).select(PAIR)
    columns = state.game_ids.to_frame().with_row_index("col")

    def candidates(members: Members) -> np.ndarray:
        allowed = discover_candidates(members)
        users = pl.DataFrame({"user_id": members.user_ids}, schema={"user_id": pl.String}).with_row_index("row")
        hit = back.join(users, on="user_id").join(columns, on="game_id")
        allowed[hit.get_column("row").to_numpy(), hit.get_column("col").to_numpy()] = True
        return allowed

    return candidates


def list_figures(ranked: pl.DataFrame, watched: pl.DataFrame, n_games: int, k: int,
                 relevant: pl.DataFrame | None = None) -> dict[str, float]:
    """The watch list's share of the top-``k`` slots, coverage@k and (given ``relevant``) NDCG@k."""
    top = ranked.filter(pl.col("rank") <= k)
    figures = {
        "watch_share": top.join(watched, on=PAIR, how="semi").height / top.height if top.height else 0.0,
        "coverage": catalog_coverage_at_k(top, n_games, k),
    }
    if relevant is not None:
        figures["ndcg"] = ndcg_at_k(top, relevant, k)
    return figures


def nightly_lists(collections: pl.DataFrame, games: pl.DataFrame, fit: ChampionFit, *, k: int = 10
                  ) -> dict[str, Any]:
    """The night's discovery lists (every member, champion fitted on every row): before and after."""
    rows = normalise_interactions(collections, source="collections")
    users = rows.get_column("user_id").unique().sort().to_list()
    with single_threaded_blas():
        state = fit_state(rows, catalog_frame(games), None, fit)
        after, _ = state.rank(rows, users, k)
        before, _ = state.rank(rows, users, k, candidates=before_candidates(state, rows))
    watched = watch_pairs(rows)
    return {"members": len(users), "k": k,
            "before": list_figures(before, watched, state.n_games, k),
            "after": list_figures(after, watched, state.n_games, k)}


def evaluate_watch_split(
    collections: pl.DataFrame, games: pl.DataFrame, fit: ChampionFit, *, posts: pl.DataFrame | None = None,
    k: int = 10,
) -> dict[str, Any]:
    """Discovery on new games (before and after) and the shelf on the watch list, on a time split."""
    state, earlier, later = fit_on_earlier(collections, games, posts, fit)
    watched = watch_pairs(earlier)
    new_games = later.join(watch_pairs(later), on=PAIR, how="anti").select(PAIR)
    users = new_games.get_column("user_id").unique().sort().to_list()
    with single_threaded_blas():
        after, _ = state.rank(earlier, users, k)
        before, _ = state.rank(earlier, users, k, candidates=before_candidates(state, earlier))
    discovery = {
        "members": len(users),
        "before": list_figures(before, watched, state.n_games, k, new_games),
        "after": list_figures(after, watched, state.n_games, k, new_games),
    }
    shelf = _shelf(earlier, later, catalog_frame(games), posts, fit, k)
    return {"k": k, "discovery": discovery, "shelf": shelf}


def _shelf(earlier: pl.DataFrame, later: pl.DataFrame, catalog: pl.DataFrame, posts: pl.DataFrame | None,
           fit: ChampionFit, k: int) -> dict[str, Any]:
    """The shelf scored on the later had/played games put back on the watch list (module docstring)."""
    catalogue = catalog.select("game_id")
    converted = later.filter(pl.col("have") | pl.col("played")).select(PAIR).join(catalogue, on="game_id")
    kept = watch_pairs(earlier).join(catalogue, on="game_id")
    users = sorted(set(converted.get_column("user_id")) & set(kept.get_column("user_id")))
    put_back = converted.with_columns(
        pl.lit(False).alias("have"), pl.lit(False).alias("played"), pl.lit(False).alias("favorite"),
        pl.lit(True).alias("watching"), pl.lit(None, dtype=earlier.schema["rating"]).alias("rating"),
    ).select(*(c for c in earlier.columns if c != "updated_at"))  # no time of their own: new
    rows = pl.concat([earlier, put_back], how="diagonal")
    with single_threaded_blas():
        state = fit_state(rows, catalog, posts, fit)
        ranked, _ = state.rank(rows, users, None, candidates=watch_list, members_of=shelf_not_liked)
    converted = converted.filter(pl.col("user_id").is_in(users))
    members = rows.group_by("game_id").len("members")
    by_popularity = (
        pl.concat([kept.filter(pl.col("user_id").is_in(users)), converted])
        .join(members, on="game_id", how="left").with_columns(pl.col("members").fill_null(0))
        .sort(["user_id", "members", "game_id"], descending=[False, True, False])
        .with_columns(pl.int_range(1, pl.len() + 1).over("user_id").alias("rank"))
    )
    # In member order: group_by's order varies from run to run, and a float mean over it would too.
    sizes = (ranked.group_by("user_id").len("shelf").join(converted.group_by("user_id").len("relevant"), on="user_id")
             .sort("user_id"))
    return {
        "members": len(users),
        "mean_shelf": float(cast(float, sizes.get_column("shelf").mean())) if sizes.height else 0.0,
        "mean_relevant": float(cast(float, sizes.get_column("relevant").mean())) if sizes.height else 0.0,
        "ndcg": ndcg_at_k(ranked, converted, k),
        "popularity_ndcg": ndcg_at_k(by_popularity, converted, k),
        "random_ndcg": float(np.mean([random_order_ndcg(n, r, k) for n, r in
                                      zip(sizes.get_column("shelf"), sizes.get_column("relevant"))]))
        if sizes.height else 0.0,
    }


def random_order_ndcg(n: int, relevant: int, k: int) -> float:
    """Expected NDCG@k of a list of ``n`` games, ``relevant`` of them relevant, in a random order.

    Each slot holds a relevant game with probability ``relevant / n``, so
    ``E[DCG] = relevant / n · Σ_{r=1}^{min(k, n)} 1 / log2(r + 1)``, over the ideal
    ``Σ_{i=1}^{min(k, relevant)} 1 / log2(i + 1)``; 0 without relevant games.
    """
    if n <= 0 or relevant <= 0:
        return 0.0
    gains = 1.0 / np.log2(np.arange(2, min(k, n) + 2))
    return float(relevant / n * gains.sum() / gains[: min(k, relevant)].sum())

