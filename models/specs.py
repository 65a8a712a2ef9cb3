"""Game specs as features: players, play time, age and year.

Why a module of its own: the content model's ``specs`` block (``specs_block``) must
follow the warehouse's one rule for implausible and missing values, the rule every filter
uses. For players and minutes that rule lives in ``marts.games``
(``warehouse/sql/marts/games.sql``): its filter columns (``FILTER_COLUMNS``) are NULL where
a value is unpublished or implausible (1人～65536人), so nothing here restates a limit. The
filters themselves are SQL only (the macros of ``warehouse/sql/macros.sql``); the minimum
age's bounds are the macro ``marts.age_plausible``'s (``core.ages.MIN_AGE_RANGE``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl
import scipy.sparse as sp

from core.ages import MIN_AGE_RANGE
from models.sklearn_lazy import normalize

FILTER_COLUMNS = ("players_from", "players_to", "minutes_to")
"""``marts.games``' filter-ready columns: the published ranges with implausible or missing
values already NULL. The rule and its limits live in ``warehouse/sql/marts/games.sql``;
the features here read these columns and restate nothing."""

PLAYER_TOKENS = 10
"""Player counts 1…10 get a token each; 10 stands for "10 or more"."""

MINUTE_CENTRES = (10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 240.0)
"""Bucket centres of play time (on a log scale: 10 vs 20 minutes differ as 60 vs 120)."""

AGE_CENTRES = (3.0, 6.0, 8.0, 10.0, 12.0, 14.0, 18.0)
YEAR_CENTRES = (1980.0, 1995.0, 2005.0, 2012.0, 2016.0, 2019.0, 2022.0, 2025.0)


def _column(games: pl.DataFrame, name: str) -> np.ndarray:
    """A numeric column as float64 with NaN for missing (or absent) values."""
    if name not in games.columns:
        return np.full(games.height, np.nan)
    return games.get_column(name).cast(pl.Float64, strict=False).fill_null(np.nan).to_numpy().copy()


def _flag(games: pl.DataFrame, name: str) -> np.ndarray:
    if name not in games.columns:
        return np.zeros(games.height, dtype=bool)
    return games.get_column(name).cast(pl.Boolean, strict=False).fill_null(False).to_numpy()


def clean_specs(games: pl.DataFrame) -> dict[str, np.ndarray]:
    """Player, minute, age and year values with unknown ones set to NaN.

    Players and minutes come from ``marts.games``' filter columns (``FILTER_COLUMNS``), so
    a placeholder such as 1人～65536人 is unknown here exactly as it is for every filter;
    ``min_minutes`` is kept as published where the time is known (features use the
    range). A year flagged ``year_implausible`` is unknown, and so is a minimum age the
    macro ``marts.age_plausible`` rejects (outside ``core.ages.MIN_AGE_RANGE``).
    """
    missing = [name for name in FILTER_COLUMNS if name not in games.columns]
    if missing:
        raise ValueError(f"games need marts.games' filter columns, missing {', '.join(missing)}")
    min_players = _column(games, "players_from")
    max_players = _column(games, "players_to")
    max_minutes = _column(games, "minutes_to")
    min_minutes = _column(games, "min_minutes")
    min_minutes[np.isnan(max_minutes)] = np.nan
    year = _column(games, "year")
    year[_flag(games, "year_implausible")] = np.nan
    min_age = _column(games, "min_age")
    youngest, oldest = MIN_AGE_RANGE  # marts.age_plausible's bounds
    min_age[(min_age < youngest) | (min_age > oldest)] = np.nan
    return {
        "min_players": min_players,
        "max_players": max_players,
        "min_minutes": min_minutes,
        "max_minutes": max_minutes,
        "min_age": min_age,
        "year": year,
    }


def soft_buckets(values: np.ndarray, centres: Sequence[float]) -> np.ndarray:
    """Triangular bucket memberships: a value between two centres is shared by both.

    Returns ``(len(values), len(centres))``; each known value's row sums to 1 (values
    beyond the ends belong to the end bucket), NaN gives a row of zeros.
    """
    centres_arr = np.asarray(centres, dtype=np.float64)
    out = np.zeros((values.size, centres_arr.size), dtype=np.float64)
    known = np.flatnonzero(~np.isnan(values))
    if known.size == 0:
        return out
    clipped = np.clip(values[known], centres_arr[0], centres_arr[-1])
    upper = np.clip(np.searchsorted(centres_arr, clipped, side="right"), 1, centres_arr.size - 1)
    lower = upper - 1
    span = centres_arr[upper] - centres_arr[lower]
    share = (clipped - centres_arr[lower]) / span
    out[known, lower] = 1.0 - share
    np.add.at(out, (known, upper), share)
    return out


def _player_tokens(min_players: np.ndarray, max_players: np.ndarray) -> np.ndarray:
    """"Playable with N" indicators for N = 1…10 (10 = ten or more); unknown max → min only."""
    lo = np.where(np.isnan(min_players), max_players, min_players)
    hi = np.where(np.isnan(max_players), lo, max_players)
    tokens = np.arange(1, PLAYER_TOKENS + 1, dtype=np.float64)
    known = ~np.isnan(lo)
    lo_c = np.clip(np.nan_to_num(lo), 1, PLAYER_TOKENS)
    hi_c = np.clip(np.nan_to_num(hi), 1, PLAYER_TOKENS)
    inside = (tokens[None, :] >= lo_c[:, None]) & (tokens[None, :] <= hi_c[:, None]) & known[:, None]
    return inside.astype(np.float64)


def specs_block(games: pl.DataFrame) -> sp.csr_matrix:
    """Player tokens and bucketed minutes/age/year, each field L2-normalised, then the block."""
    specs = clean_specs(games)
    lo, hi = specs["min_minutes"], specs["max_minutes"]
    both = ~np.isnan(lo) & ~np.isnan(hi)
    minutes = np.where(np.isnan(lo), hi, lo)
    minutes[both] = np.sqrt(lo[both] * hi[both])  # geometric middle of the range
    log_centres = [math.log2(centre) for centre in MINUTE_CENTRES]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_minutes = np.log2(minutes)
    fields = [
        _player_tokens(specs["min_players"], specs["max_players"]),
        soft_buckets(log_minutes, log_centres),
        soft_buckets(specs["min_age"], AGE_CENTRES),
        soft_buckets(specs["year"], YEAR_CENTRES),
    ]
    block = np.hstack([normalize(part) for part in fields])
    return sp.csr_matrix(normalize(block), dtype=np.float32)
