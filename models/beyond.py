"""Beyond accuracy: how popular, how varied and how stable the lists are. One function each.

Every function takes top-K lists in the long format of ``models.metrics``
(``user_id``, ``game_id``, ``rank``; ranks above ``k`` ignored) and averages over lists
(or over list items, where said), so the numbers sit beside NDCG in ``marts.model_runs``.

* ``long_tail_share``: share of recommended items outside the ``head`` (the 10 % most
  popular games by number of members): the popularity bias the lists carry.
* ``mean_popularity_rank``: mean popularity rank (1 = most popular) of recommended items.
* ``intra_list_diversity``: mean pairwise dissimilarity ``1 − cos`` within a list
  (Ziegler et al. 2005), over item vectors (content features on the site; the games'
  member vectors where there is no content, as for MovieLens). Lists of one item say
  nothing and are skipped.
* ``rank_stability``: mean Jaccard@k of each user's list against their previous list
  (users in both only): 1 means nothing churned overnight.

Edge cases: no lists → 0.0 (never NaN, so reports stay valid JSON); ``rank_stability``
with no user in common → ``None`` (nothing to compare, e.g. the first night).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.sklearn_lazy import normalize

HEAD_SHARE = 0.10
"""The head: this share of the catalogue's games, the most popular ones."""


def popularity_ranks(interactions: pl.DataFrame) -> pl.DataFrame:
    """``game_id``, ``members``, ``popularity_rank`` (1 = most members; ties by id), ``head`` (top 10 %)."""
    counts = (
        interactions.group_by("game_id").agg(pl.col("user_id").n_unique().alias("members"))
        .sort(["members", "game_id"], descending=[True, False])
        .with_row_index("popularity_rank", offset=1)
    )
    n_head = max(1, int(np.ceil(HEAD_SHARE * counts.height))) if counts.height else 0
    return counts.with_columns((pl.col("popularity_rank") <= n_head).alias("head"))


def _top(lists: pl.DataFrame, k: int) -> pl.DataFrame:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return lists.filter(pl.col("rank") <= k).unique(["user_id", "game_id"])


def long_tail_share(lists: pl.DataFrame, popularity: pl.DataFrame, k: int = 10) -> float:
    """Share of recommended items (all lists pooled) that are not in the head; a game
    unknown to ``popularity`` (nobody had it) counts as tail."""
    top = _top(lists, k)
    if top.height == 0:
        return 0.0
    head = popularity.filter(pl.col("head")).select("game_id")
    return float(top.join(head, on="game_id", how="anti").height / top.height)


def mean_popularity_rank(lists: pl.DataFrame, popularity: pl.DataFrame, k: int = 10) -> float:
    """Mean popularity rank of recommended items; an unknown game ranks last + 1."""
    top = _top(lists, k)
    if top.height == 0:
        return 0.0
    last = popularity.height + 1
    ranked = top.join(popularity.select("game_id", "popularity_rank"), on="game_id", how="left")
    return float(cast(float, ranked.get_column("popularity_rank").fill_null(last).cast(pl.Float64).mean()))


def intra_list_diversity(lists: pl.DataFrame, game_ids: pl.Series, vectors: sp.csr_matrix, k: int = 10) -> float:
    """Mean over lists of the mean pairwise ``1 − cos`` of the list's items.

    ``vectors`` row ``i`` describes ``game_ids[i]``; a game without a row (or a zero row)
    is dissimilar to everything (cos 0).
    """
    top = _top(lists, k)
    if top.height == 0:
        return 0.0
    unit = normalize(sp.csr_matrix(vectors, dtype=np.float64))  # a zero row stays zero
    index = game_ids.to_frame().with_row_index("row")
    # Per list, the pairs' cosines sum to (‖Σ u_i‖² − Σ ‖u_i‖²) / 2 over its known unit
    # rows: one sparse product for every list at once instead of a Gram matrix per list
    # (the night scores 10,000 lists per candidate and split). Lists in user order: the
    # mean's rounding would otherwise follow the group_by's order, which varies run to run.
    sizes = top.group_by("user_id").len().filter(pl.col("len") >= 2).sort("user_id").with_row_index("list")
    if sizes.height == 0:
        return 0.0
    known = top.join(sizes, on="user_id", how="inner").join(index, on="game_id", how="inner")
    members = sp.csr_matrix(
        (np.ones(known.height), (known.get_column("list").to_numpy(), known.get_column("row").to_numpy())),
        shape=(sizes.height, unit.shape[0]),
    )
    summed = members @ unit
    squared = np.asarray(summed.multiply(summed).sum(axis=1)).ravel()
    own = members @ np.asarray(unit.multiply(unit).sum(axis=1)).ravel()
    n = sizes.get_column("len").to_numpy().astype(np.float64)
    similar = (squared - own) / 2.0  # pairs among known items; unknown ones add 0
    return float(np.mean(1.0 - similar / (n * (n - 1) / 2.0)))


def rank_stability(lists: pl.DataFrame, previous: pl.DataFrame, k: int = 10) -> float | None:
    """Mean Jaccard@k of each user's list and their previous list (users in both)."""
    now, before = _top(lists, k), _top(previous, k)
    users = now.select("user_id").unique().join(before.select("user_id").unique(), on="user_id")
    if users.height == 0:
        return None
    both = now.join(before, on=["user_id", "game_id"]).group_by("user_id").len(name="both")
    sizes = (
        now.group_by("user_id").len(name="a")
        .join(before.group_by("user_id").len(name="b"), on="user_id")
        .join(both, on="user_id", how="left")
        .with_columns(pl.col("both").fill_null(0))
    )
    jaccard = sizes.select(pl.col("both") / (pl.col("a") + pl.col("b") - pl.col("both")))
    return float(cast(float, jaccard.to_series().mean()))
