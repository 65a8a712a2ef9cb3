"""Seeded per-user holdout splits.

Splitting is two independent choices (as in LensKit): *which users* get a test part, and
*which of their rows* go to it. Both are keyed by a seeded hash of the ids, never by draws in
row order (``stable_sample`` for the users, ``row_key`` for the rows). So changing the share
of users does not reshuffle the rows chosen for a user, the same seed always gives the same
split whatever the input row order, and a member whose rows did not change keeps their split
from one night to the next. implicit's ``leave_k_out_split`` is never used: it ignores
``random_state`` and shuffles with numpy's global state.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from models.weighting import time_expr


def holdout_split(
    frame: pl.DataFrame,
    *,
    fraction: float = 0.2,
    seed: int = 0,
    users: float | int | None = None,
    min_rows: int = 2,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split a normalised interaction frame into (train, test).

    For each chosen user with ``n >= min_rows`` rows, ``round(fraction * n)`` rows (at
    least 1, at most ``n - 1``, so the user keeps a history to recommend from) go to test.
    Users with fewer than ``min_rows`` rows keep all rows in train.

    ``users`` limits which eligible users get a test part: ``None`` means all, a float in
    (0, 1] a share of them, an int a count (users are drawn at random, seeded).
    Both frames keep the input columns.
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fraction must be in (0, 1), got {fraction}")
    ordered = frame.sort("user_id", "game_id")
    counts = ordered.group_by("user_id", maintain_order=True).len()
    eligible = counts.filter(pl.col("len") >= min_rows).get_column("user_id")
    chosen = _choose_users(eligible, users, seed)

    keyed = ordered.with_columns(
        _key=row_key(seed),
    ).with_columns(
        _n=pl.len().over("user_id"),
        _pos=pl.struct(pl.col("_key"), pl.col("game_id")).rank("ordinal").over("user_id"),
    )
    n_test = ((pl.col("_n") * fraction + 0.5).floor()).clip(1, pl.col("_n") - 1)
    is_test = pl.col("user_id").is_in(chosen.implode()) & (pl.col("_n") >= min_rows) & (
        pl.col("_pos") <= n_test
    )
    marked = keyed.with_columns(_test=is_test).drop("_key", "_n", "_pos")
    train = marked.filter(~pl.col("_test")).drop("_test")
    test = marked.filter(pl.col("_test")).drop("_test")
    return train, test


def row_key(seed: int) -> pl.Expr:
    """A seeded pseudo-random key of each (``user_id``, ``game_id``) pair, from the pair alone.

    Why not a draw per row: with draws in row order, one member adding a game shifts every
    later row's draw, so every member's split, and with it the night's tuning, ensemble
    shares and champion, moved between two nights although almost nobody's collection did
    (Jaccard@10 of the served lists about 0.55 for unchanged members on the demo's site,
    ``benchmarks.stability_nights``). Keyed by the pair, a member's rows split the same way
    whatever the other members' rows are. Polars' hash is stable within its (locked) version.
    """
    return pl.struct(pl.col("user_id"), pl.col("game_id")).hash(seed=seed)


def stable_sample(ids: pl.Series, count: int, seed: int) -> np.ndarray:
    """Sorted positions in ``ids`` of the ``count`` ids with the lowest seeded hash.

    Why not ``rng.choice`` over positions: one id more or less shifts every position and so
    the whole sample; here an id stays sampled unless an id that joins hashes lower (a
    large night's sampled users mostly stay the same from one night to the next)."""
    keys = ids.hash(seed=seed).to_numpy()
    order = np.lexsort((np.arange(keys.size), keys))  # ties (practically none): earlier position
    return np.sort(order[: max(0, min(count, keys.size))])


def _choose_users(eligible: pl.Series, users: float | int | None, seed: int) -> pl.Series:
    """Which eligible users get a test part (``stable_sample``)."""
    n = eligible.len()
    if users is None:
        return eligible
    if isinstance(users, float):
        if not 0.0 < users <= 1.0:
            raise ValueError(f"a share of users must be in (0, 1], got {users}")
        count = int(round(users * n))
    else:
        count = int(users)
    count = max(0, min(count, n))
    if count == n:
        return eligible
    return eligible.gather(stable_sample(eligible, count, seed))


def time_split(
    frame: pl.DataFrame, *, fraction: float = 0.2, min_rows: int = 2, users: float | int | None = None,
    seed: int = 0,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split by time: each user's most recently updated rows are the test ("what they mark next").

    ``frame`` needs ``updated_at`` (a timestamp, or ISO text with an offset). For each user
    with ``n >= min_rows`` rows, ``round(fraction * n)`` rows (at least 1, at most
    ``n - 1``) go to test: the latest ones, ties broken by ``game_id`` (so the split is
    the same whatever the input order); a row without a time counts as the oldest. Both
    frames keep the input columns. ``users`` limits which eligible users get a test part,
    as in ``holdout_split`` (a seeded ``stable_sample``; the others keep every row).
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fraction must be in (0, 1), got {fraction}")
    if "updated_at" not in frame.columns:
        raise ValueError("a time split needs an updated_at column")
    keyed = frame.sort("user_id", "game_id").with_columns(
        _when=time_expr(frame.schema["updated_at"]).dt.epoch("us").fill_null(np.iinfo(np.int64).min)
    ).with_columns(
        _n=pl.len().over("user_id"),
        _pos=pl.struct(pl.col("_when"), pl.col("game_id")).rank("ordinal", descending=True).over("user_id"),
    )
    n_test = ((pl.col("_n") * fraction + 0.5).floor()).clip(1, pl.col("_n") - 1)
    is_test = (pl.col("_n") >= min_rows) & (pl.col("_pos") <= n_test)
    if users is not None:
        counts = keyed.group_by("user_id", maintain_order=True).len()
        chosen = _choose_users(counts.filter(pl.col("len") >= min_rows).get_column("user_id"), users, seed)
        is_test &= pl.col("user_id").is_in(chosen.implode())
    marked = keyed.with_columns(_test=is_test).drop("_when", "_n", "_pos")
    return marked.filter(~pl.col("_test")).drop("_test"), marked.filter(pl.col("_test")).drop("_test")


def forward_split(
    frame: pl.DataFrame, *, at: object | None = None, quantile: float = 0.8,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split at one moment for everybody: TRAIN is what was held by then, TEST what members added after.

    Why beside ``time_split``: a per-member "latest 20 %" still trains on one member's 2026 rows
    while testing another's 2024 rows (the future leaks across members, Ji, Sun et al., TOIS
    2023); a single cut is what a night actually faces: everything up to it is known, nothing
    after. ``at`` is the cut (a datetime, or ISO text); without it, the ``quantile`` of all
    rows' times. A row stamped at or before the cut, or without a time (counted as the
    oldest, as in ``time_split``), is TRAIN; a later row is TEST only for a member who held
    something by the cut (a member who joined after it is a cold start, the same popularity
    list for every candidate: noise to the comparison, so left out). Both frames keep the input
    columns; no TRAIN row is later than the cut and no TEST row is at or before it.
    """
    if "updated_at" not in frame.columns:
        raise ValueError("a forward split needs an updated_at column")
    stamped = frame.with_columns(_when=time_expr(frame.schema["updated_at"]).dt.epoch("us"))
    if at is None:
        if not 0.0 < quantile < 1.0:
            raise ValueError(f"quantile must be in (0, 1), got {quantile}")
        cut = stamped.get_column("_when").quantile(quantile, interpolation="lower")
        if cut is None:
            raise ValueError("a forward split needs rows with a time")
    else:
        moment = pl.Series([at])
        if moment.dtype == pl.String:
            moment = moment.str.to_datetime(time_zone="UTC")
        cut = moment.cast(pl.Datetime("us", "UTC")).dt.epoch("us").item()
    after = pl.col("_when").is_not_null() & (pl.col("_when") > cut)
    train = stamped.filter(~after)
    held = train.get_column("user_id").unique().implode()
    test = stamped.filter(after & pl.col("user_id").is_in(held))
    return train.drop("_when").sort("user_id", "game_id"), test.drop("_when").sort("user_id", "game_id")
