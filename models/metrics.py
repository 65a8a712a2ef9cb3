"""Top-K ranking metrics on long-format frames, one small function each.

Every metric takes the same two frames:

* ``recommendations``: ``user_id``, ``game_id``, ``rank`` (1 = best; ranks above ``k``
  are ignored; a game listed twice for a user counts once, at its best rank);
* ``relevant``: ``user_id``, ``game_id`` (the held-out games; duplicates count once).

Averages run over the users with at least one relevant game: a user without relevant
games says nothing about ranking quality, and a user with relevant games but no
recommendations scores 0. With no such user at all the result is 0.0 (not NaN, so a
report stays valid JSON). Ids may be of any type, the same in both frames.

Binary relevance throughout: a recommended game is a hit when it is in the user's
relevant set. Precision divides by ``k`` (not by ``min(k, |relevant|)`` as implicit's
``precision_at_k`` does), so it is the share of the list that was right.
"""

from __future__ import annotations

import polars as pl


def _hits(recommendations: pl.DataFrame, relevant: pl.DataFrame, k: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(per-user relevant counts, hit rows with their rank) for users with relevant games."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    truth = relevant.select("user_id", "game_id").unique()
    n_relevant = truth.group_by("user_id").agg(pl.len().alias("n_relevant"))
    top = (
        recommendations.select("user_id", "game_id", "rank")
        .filter(pl.col("rank") <= k)
        .group_by("user_id", "game_id")
        .agg(pl.col("rank").min())
    )
    hits = top.join(truth, on=["user_id", "game_id"], how="semi").select(
        "user_id", pl.col("rank").cast(pl.Float64)
    )
    return n_relevant, hits


def _average(n_relevant: pl.DataFrame, per_user: pl.DataFrame, value: str) -> float:
    """Mean of ``value`` over all users with relevant games, 0 for users absent from ``per_user``."""
    if n_relevant.height == 0:
        return 0.0
    # Sorted, then summed in numpy: the same inputs give the same bits (parallel
    # group-bys and joins return rows in varying order, and float sums depend on order).
    joined = n_relevant.join(per_user, on="user_id", how="left").sort("user_id")
    return float(joined.get_column(value).fill_null(0.0).to_numpy().sum()) / n_relevant.height


def ndcg_at_k(recommendations: pl.DataFrame, relevant: pl.DataFrame, k: int = 10) -> float:
    """Normalised discounted cumulative gain at ``k``, binary relevance.

    ``DCG_u = Σ_{hits at rank r ≤ k} 1 / log2(r + 1)``,
    ``IDCG_u = Σ_{i=1}^{min(k, |R_u|)} 1 / log2(i + 1)``, ``NDCG_u = DCG_u / IDCG_u``;
    the mean over users with ``|R_u| ≥ 1``. A perfect list is 1.0 even when the user has
    fewer than ``k`` relevant games (the ideal list is only that long).
    """
    n_relevant, per_user = _ndcg_parts(recommendations, relevant, k)
    return _average(n_relevant, per_user, "ndcg")


def ndcg_per_user(recommendations: pl.DataFrame, relevant: pl.DataFrame, k: int = 10) -> pl.DataFrame:
    """``user_id``, ``ndcg``: each user with ``|R_u| ≥ 1`` (0 without a hit), sorted by user.

    The numbers ``ndcg_at_k`` averages; for paired tests between two models' lists.
    """
    n_relevant, per_user = _ndcg_parts(recommendations, relevant, k)
    return (
        n_relevant.join(per_user, on="user_id", how="left")
        .select("user_id", pl.col("ndcg").fill_null(0.0))
        .sort("user_id")
    )


def _ndcg_parts(recommendations: pl.DataFrame, relevant: pl.DataFrame, k: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(per-user relevant counts, NDCG of the users with a hit)."""
    n_relevant, hits = _hits(recommendations, relevant, k)
    dcg = (
        hits.sort("user_id", "rank")
        .group_by("user_id", maintain_order=True)
        .agg((1.0 / (pl.col("rank") + 1.0).log(2)).sum().alias("dcg"))
    )
    ideal_len = pl.min_horizontal(pl.col("n_relevant"), pl.lit(k))
    idcg = pl.int_ranges(1, ideal_len + 1).list.eval((1.0 / (pl.element() + 1.0).log(2))).list.sum()
    per_user = (
        n_relevant.with_columns(idcg=idcg)
        .join(dcg, on="user_id", how="inner")
        .select("user_id", (pl.col("dcg") / pl.col("idcg")).alias("ndcg"))
    )
    return n_relevant, per_user


def precision_at_k(recommendations: pl.DataFrame, relevant: pl.DataFrame, k: int = 10) -> float:
    """Precision at ``k``: ``|hits in top k| / k``, mean over users with ``|R_u| ≥ 1``.

    The denominator is always ``k``: a list shorter than ``k`` is not rewarded for being
    short, and a user with 3 relevant games tops out at 0.3 for ``k = 10``.
    """
    n_relevant, hits = _hits(recommendations, relevant, k)
    per_user = hits.group_by("user_id").agg((pl.len() / k).alias("precision"))
    return _average(n_relevant, per_user, "precision")


def recall_at_k(recommendations: pl.DataFrame, relevant: pl.DataFrame, k: int = 10) -> float:
    """Recall at ``k``: ``|hits in top k| / |R_u|``, mean over users with ``|R_u| ≥ 1``.

    A user with more than ``k`` relevant games cannot reach 1.0.
    """
    n_relevant, hits = _hits(recommendations, relevant, k)
    per_user = (
        hits.group_by("user_id")
        .agg(pl.len().alias("n_hits"))
        .join(n_relevant, on="user_id")
        .select("user_id", (pl.col("n_hits") / pl.col("n_relevant")).alias("recall"))
    )
    return _average(n_relevant, per_user, "recall")


def map_at_k(recommendations: pl.DataFrame, relevant: pl.DataFrame, k: int = 10) -> float:
    """Mean average precision at ``k``.

    ``AP_u = (1 / min(k, |R_u|)) Σ_{hits at rank r ≤ k} P_u@r`` where ``P_u@r`` is the
    number of hits at ranks ``≤ r`` divided by ``r``; the mean over users with
    ``|R_u| ≥ 1``. Normalising by ``min(k, |R_u|)`` makes a perfect list 1.0.
    """
    n_relevant, hits = _hits(recommendations, relevant, k)
    per_user = (
        hits.sort("user_id", "rank")
        .with_columns(precision=pl.int_range(1, pl.len() + 1).over("user_id") / pl.col("rank"))
        .group_by("user_id", maintain_order=True)
        .agg(pl.col("precision").sum().alias("sum_precision"))
        .join(n_relevant, on="user_id")
        .select(
            "user_id",
            (pl.col("sum_precision") / pl.min_horizontal(pl.col("n_relevant"), pl.lit(k))).alias("ap"),
        )
    )
    return _average(n_relevant, per_user, "ap")


def catalog_coverage_at_k(
    recommendations: pl.DataFrame, catalog: pl.DataFrame | int, k: int = 10
) -> float:
    """Catalogue coverage at ``k``: distinct games in any top-``k`` list / games in the catalogue.

    ``catalog`` is a frame with ``game_id`` (its distinct ids count) or the catalogue size.
    Unlike the other metrics this looks at every recommended list, whether or not its
    user has relevant games; an empty catalogue gives 0.0.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    size = catalog if isinstance(catalog, int) else catalog.get_column("game_id").n_unique()
    if size <= 0:
        return 0.0
    shown = recommendations.filter(pl.col("rank") <= k).get_column("game_id").n_unique()
    return shown / size
