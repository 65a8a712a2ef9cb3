"""How much one collection row says "this member likes this game": the confidence weighting.

A weighting turns each normalised interaction row into one positive number. It is a frozen
dataclass so a run can store exactly which scheme it used (by name: ``weighting_name``), and a
Polars expression so it runs vectorised over millions of rows. Apart from
``models.interactions`` (files, normalising, the matrix) because recency made it a subject of
its own: a weighting may count each row's age back from a moment the matrix keeps.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Literal

import polars as pl

FLAGS: tuple[str, ...] = ("have", "played", "favorite", "watching")
"""The status flags, in the order of the site's collection card."""

@dataclass(frozen=True)
class ConfidenceWeights:
    """How much one row says "this member likes this game".

    ``signal`` is ``sum`` (or ``max``, with ``combine="max"``) of the weights of the
    flags a row carries, or ``interaction`` when it carries none. A star rating then
    scales it: ``factor = 1 + rating * (stars - 3) / 2``, so 5★ multiplies by
    ``1 + rating``, 3★ leaves it alone, 1★ multiplies by ``1 - rating``; no rating
    means a factor of 1. ``confidence = max(signal * factor, floor)``: every row stays
    a positive signal (a member who bothered to rate a game interacted with it), only a
    weaker one.

    Why these defaults: お気に入り is the strongest statement a member makes, 持ってる and
    経験あり each say "I chose this game", and 興味あり alone is a weaker positive (the
    member has not committed yet), hence ``watching=0.5``.
    """

    have: float = 1.0
    played: float = 1.0
    favorite: float = 2.0
    watching: float = 0.5
    interaction: float = 1.0
    rating: float = 0.5
    combine: Literal["sum", "max"] = "sum"
    floor: float = 0.05
    half_life_days: float | None = None
    """Recency: each row's confidence times ``0.5 ** (age / half_life_days)``, its age in days
    before the matrix's ``as_of`` (``InteractionMatrix``; a row without a time, or later than
    ``as_of``, is new: age 0). None: every row weighs alike, whenever it was marked. Why: a
    member's recent entries say more about what they add next than ones from years ago
    (MovieLens forward, docs/recommenders.md); chosen per night by ``models.recency``."""

    def expr(self, as_of: datetime | None = None, *, timed: bool = True) -> pl.Expr:
        """The confidence of each row of a normalised interaction frame, as ``confidence``.
        With a half-life, ``timed`` says the frame has ``updated_at`` (else every row is new)."""
        parts = [pl.col(flag).cast(pl.Float64) * getattr(self, flag) for flag in FLAGS]
        combined = pl.sum_horizontal(parts) if self.combine == "sum" else pl.max_horizontal(parts)
        any_flag = pl.any_horizontal([pl.col(flag) for flag in FLAGS])
        signal = pl.when(any_flag).then(combined).otherwise(pl.lit(self.interaction))
        factor = (1.0 + self.rating * (pl.col("rating") - 3.0) / 2.0).fill_null(1.0)
        confidence = pl.max_horizontal(signal * factor, pl.lit(self.floor))
        if self.half_life_days is not None and timed and as_of is not None:
            age = (pl.lit(as_of, dtype=TIME) - pl.col("updated_at")).dt.total_microseconds() / 86_400e6
            halvings = (age.clip(lower_bound=0.0) / self.half_life_days).fill_null(0.0)
            confidence = confidence * pl.lit(0.5).pow(halvings)
        return confidence.alias("confidence")

    def to_dict(self) -> dict[str, float | str | None]:
        """Plain values, for ``marts.model_runs.params``."""
        return asdict(self)


WEIGHTINGS: dict[str, ConfidenceWeights] = {
    "binary": ConfidenceWeights(
        have=1.0, played=1.0, favorite=1.0, watching=1.0, rating=0.0, combine="max"
    ),
    "graded": ConfidenceWeights(),
    "flags_only": ConfidenceWeights(rating=0.0),
    "rating_strong": ConfidenceWeights(rating=1.0),
}
"""The weightings ``models.tuning.choose_weighting`` chooses among, simplest first
(ties go to the earlier one): every row alike; the documented default; the default
without the rating effect; the default with a strong rating effect (1★ rows fade to
the floor). A night may add recency to the chosen one (``weighting_named``)."""

TIME = pl.Datetime("us", "UTC")
"""How ``updated_at`` is held once normalised."""

_RECENT = re.compile(r"^(?P<base>[a-z_]+)(?:\+recency(?P<days>\d+(?:\.\d+)?)d)?$")


def weighting_name(base: str, half_life_days: float | None) -> str:
    """The name a weighting travels by (model runs, the champion choice, a saved model):
    ``graded``, or ``graded+recency180d`` with recency (``weighting_named`` reads it back)."""
    return base if half_life_days is None else f"{base}+recency{half_life_days:g}d"


def weighting_named(name: str) -> ConfidenceWeights:
    """The weights ``weighting_name`` named (``KeyError`` for a name it could not have written)."""
    match = _RECENT.match(name)
    if match is None or match["base"] not in WEIGHTINGS:
        raise KeyError(name)
    days = match["days"]
    return WEIGHTINGS[match["base"]] if days is None else replace(WEIGHTINGS[match["base"]], half_life_days=float(days))


def time_expr(dtype: pl.DataType) -> pl.Expr:
    """``updated_at`` (of type ``dtype``) as UTC microseconds, the one reading of a time every
    module shares (normalising, the time and forward splits, a file's times): ISO text is parsed,
    unreadable text is no time; a time without a zone is taken as UTC (what the cast does)."""
    when = pl.col("updated_at")
    if dtype == pl.String:
        when = when.str.to_datetime(time_zone="UTC", strict=False)
    return when.cast(TIME).alias("updated_at")


def latest_time(frame: pl.DataFrame) -> datetime | None:
    """The latest ``updated_at`` of a normalised frame (None without times): the moment recency
    counts ages back from, when nothing else sets it (``InteractionMatrix.as_of``)."""
    if "updated_at" not in frame.columns:
        return None
    return frame.get_column("updated_at").max()  # type: ignore[return-value]


def with_confidence(frame: pl.DataFrame, weights: ConfidenceWeights, *,
                    as_of: datetime | None = None) -> pl.DataFrame:
    """``user_id``, ``game_id`` and ``confidence`` of a normalised frame (recency ages counted
    back from ``as_of``, or from the frame's latest time)."""
    if weights.half_life_days is None:
        return frame.select("user_id", "game_id", weights.expr())
    as_of = as_of if as_of is not None else latest_time(frame)
    return frame.select("user_id", "game_id", weights.expr(as_of, timed="updated_at" in frame.columns))




def known_weighting(name: str) -> ConfidenceWeights | None:
    """``weighting_named``, or None for a name no run could have written (an old or edited file)."""
    try:
        return weighting_named(name)
    except KeyError:
        return None
