"""Seeded synthetic interaction data, shaped like a real community site.

Why it exists: tests, benchmarks and the quality targets need interaction data with
known structure (taste clusters, a Zipf-shaped popularity curve, heavy-tailed user
activity, mixed statuses) that anyone can regenerate from a seed, without fetching a
dataset. Nothing here runs at import time.
"""

from __future__ import annotations

import numpy as np
import polars as pl


def synthetic_interactions(
    n_users: int = 3_000,
    n_items: int = 1_500,
    *,
    n_interactions: int | None = None,
    mean_items_per_user: float = 30.0,
    n_clusters: int = 15,
    cluster_share: float = 0.75,
    zipf_exponent: float = 0.9,
    statuses: bool = True,
    ratings: bool = True,
    seed: int = 0,
) -> pl.DataFrame:
    """Draw a clustered interaction table.

    Each item belongs to one taste cluster and has a Zipf popularity weight
    (``1 / rank ** zipf_exponent`` over a random permutation). Each user has a main and
    a second cluster; a user's items are drawn without replacement from a mixture: with
    weight ``cluster_share`` from the user's clusters (main 70 %, second 30 %), otherwise
    from the global popularity curve. User activity is log-normal (at least 3 items).

    With ``statuses`` the rows carry 持ってる/経験あり/お気に入り/興味あり flags (about 5 % of
    rows carry none, which ``interactions`` counts as one plain interaction); otherwise
    only ``rating`` (MovieLens-like). Ratings are higher inside a user's main cluster, so
    the rating effect of the confidence weighting carries real signal.

    ``n_interactions``, when given, rescales activity so the total lands near it
    (ML-1M-like shapes: 6,040 users, 3,700 items, 1,000,000 rows).

    Returns ``user_id``, ``game_id`` (strings like ``u00042`` and ``g0007``) and the
    status/rating columns.
    """
    rng = np.random.default_rng(seed)
    item_cluster = rng.integers(n_clusters, size=n_items)
    ranks = rng.permutation(n_items) + 1
    popularity = 1.0 / ranks.astype(np.float64) ** zipf_exponent
    popularity /= popularity.sum()

    in_cluster = np.zeros((n_clusters, n_items))
    in_cluster[item_cluster, np.arange(n_items)] = popularity
    in_cluster /= np.maximum(in_cluster.sum(axis=1, keepdims=True), 1e-300)

    main = rng.integers(n_clusters, size=n_users)
    second = (main + rng.integers(1, n_clusters, size=n_users)) % n_clusters

    if n_interactions is not None:
        mean_items_per_user = n_interactions / n_users
    activity = rng.lognormal(mean=0.0, sigma=0.9, size=n_users)
    activity = activity / activity.mean() * mean_items_per_user
    counts = np.clip(np.rint(activity), 3, n_items // 2).astype(np.int64)
    if n_interactions is not None:
        counts = np.clip(np.rint(counts * n_interactions / counts.sum()), 3, n_items // 2)
        counts = counts.astype(np.int64)

    user_parts: list[np.ndarray] = []
    item_parts: list[np.ndarray] = []
    block = max(1, 4_000_000 // n_items)
    for start in range(0, n_users, block):
        stop = min(start + block, n_users)
        probs = (
            cluster_share * (0.7 * in_cluster[main[start:stop]] + 0.3 * in_cluster[second[start:stop]])
            + (1.0 - cluster_share) * popularity[None, :]
        )
        # Gumbel top-k: sampling without replacement, vectorised over users.
        keys = np.log(probs + 1e-300) + rng.gumbel(size=probs.shape)
        order = np.argsort(-keys, axis=1)
        for offset, user in enumerate(range(start, stop)):
            chosen = order[offset, : counts[user]].copy()  # a view would pin the whole block
            item_parts.append(chosen)
            user_parts.append(np.full(chosen.size, user))
    users = np.concatenate(user_parts)
    items = np.concatenate(item_parts)
    n_rows = users.size
    own = item_cluster[items] == main[users]

    columns: dict[str, object] = {
        "user_id": np.char.add("u", np.char.zfill(users.astype(str), 5)),
        "game_id": np.char.add("g", np.char.zfill(items.astype(str), 4)),
    }
    if statuses:
        played = rng.random(n_rows) < 0.65
        have = rng.random(n_rows) < np.where(own, 0.5, 0.3)
        favorite = (played | have) & (rng.random(n_rows) < np.where(own, 0.3, 0.08))
        plain = rng.random(n_rows) < 0.05
        watching = ~(played | have) & ~plain
        columns |= {
            "have": have.astype(np.int8),
            "played": played.astype(np.int8),
            "favorite": favorite.astype(np.int8),
            "watching": watching.astype(np.int8),
        }
    if ratings:
        base = np.where(own, 4.0, 3.0) + rng.normal(0.0, 0.9, n_rows)
        rating = np.clip(np.rint(base), 1, 5)
        rated = rng.random(n_rows) < (0.4 if statuses else 1.0)
        columns["rating"] = pl.Series("rating", np.where(rated, rating, np.nan)).fill_nan(None)
    return pl.DataFrame(columns)
