"""Game night: what a group should play together tonight.

Candidates (the same for every member of the group):

* in the catalogue, and nobody in the group has played it (経験あり);
* playable with the group's size (the macro ``marts.playable_with`` on marts.games' filter
  columns, applied by the caller; an unknown or implausible player count drops out);
* available at the table: someone in the group has it (持ってる), or the cafe offers it
  (``--cafe``); ``anywhere`` lifts this.

Each member's scores come from the shared scoring (``DiscoveryModel.score``, on the
member's own scale over these candidates, so a member with a steep champion score does
not outvote the others); ``aggregate`` combines them. ``AGGREGATIONS`` are compared
offline by ``models.discovery.group_eval``; ``DEFAULT_AGGREGATION`` is its winner (see
docs/recommenders.md's evaluation section).

Where BoardGameGeek's poll says a game is *best* with the group's size (``Table.best``:
the poll rule of docs/bgg.md, read through ``marts.bgg_poll_says``), the game gets
``BEST_BOOST`` on top of the group's combined score, and its reason says so
(「BGGでは4人がベスト」). A boost, not a tie-break: combined scores are continuous, so
a tie-break would almost never act; the boost lets a game that plays best at this table
pass games the group likes only a little more, and no further. Without BGG facts
(``best`` None or empty) nothing is added: the ranking is exactly the one without BGG.

Reasons name whose taste a game fits: the members (at most two) whose own score for the
game is at or above the group's and who have personal evidence for it, each with the
liked game behind it (``reasons.group_reason``). Naming members is fine here: they asked
together, and only their own games are named.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from models.threads import single_threaded_blas
from models.discovery.lists import Scores
from models.discovery.members import SITE, Members
from models.discovery.model import DiscoveryModel
from models.discovery.reasons import KIND_PERSONAL, KIND_POPULAR, group_reason

BLEND_MISERY = 0.5
"""The ``blend`` aggregation's weight on the least happy member (the rest on the mean)."""

AGGREGATIONS = ("average", "least_misery", "blend")
DEFAULT_AGGREGATION = "average"
MAX_FITS = 2
"""Members named per reason."""
BEST_BOOST = 0.25
"""Added to the combined score of a game BGG calls best with the group's size. A member's
blended score runs from about 1.3 (their best candidate) down to 0 at their 100th
(``models.discovery.blend``), so 0.25 is a quarter of that range, the weight content has
in the blend: enough to pass games the group likes about as much, never enough to lift a
game nobody at the table cares for over the ones they want."""

GROUP_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "rank": pl.Int32, "game_id": pl.String, "score": pl.Float64, "reason": pl.String,
    "brought_by": pl.List(pl.String),
}


class GroupError(ValueError):
    """A group that cannot be served (too small, unknown cafe): one line for the user."""


def aggregate(scores: np.ndarray, how: str) -> np.ndarray:
    """Combine members' scores (members × games; ``-inf`` outside candidates) per game."""
    if how == "average":
        return scores.mean(axis=0)
    if how == "least_misery":
        return scores.min(axis=0)
    if how == "blend":
        return (1.0 - BLEND_MISERY) * scores.mean(axis=0) + BLEND_MISERY * scores.min(axis=0)
    raise ValueError(f"unknown aggregation {how!r}; choose from {', '.join(AGGREGATIONS)}")


@dataclass(frozen=True)
class Table:
    """Who sits at the table and what is on it."""

    user_ids: list[str]
    collections: pl.DataFrame  # the members' normalised rows (BGG rows marked: ``members.SITE``)
    playable: pl.Series  # game ids playable with the group's size
    cafe: str | None = None
    cafe_games: pl.Series | None = None  # game ids the cafe offers
    anywhere: bool = False
    best: pl.Series | None = None  # game ids BGG's poll calls best with the group's size (None: no BGG facts)


def candidates(state: DiscoveryModel, table: Table) -> np.ndarray:
    """Dense bool over the catalogue: unplayed by all, playable, available."""
    rows = table.collections
    played = rows.filter(pl.col("played")).get_column("game_id")  # on the site or on BGG: not new to them
    allowed = ~state.game_ids.is_in(played.implode()) & state.game_ids.is_in(table.playable.implode())
    if not table.anywhere:
        owned = rows.filter(pl.col("have") & on_site(rows)).get_column("game_id")
        available = state.game_ids.is_in(owned.implode())
        if table.cafe_games is not None:
            available = available | state.game_ids.is_in(table.cafe_games.implode())
        allowed = allowed & available
    return allowed.to_numpy()


def on_site(rows: pl.DataFrame) -> pl.Expr:
    """The members' site rows (``members.SITE``; every row when unmarked): who brings a game
    is said from the site's 持ってる only, never from a BGG collection."""
    return pl.col(SITE).fill_null(True) if SITE in rows.columns else pl.lit(True)


def best_at_size(state: DiscoveryModel, table: Table) -> np.ndarray:
    """Dense bool over the catalogue: the games BGG's poll calls best with the group's size."""
    if table.best is None or table.best.is_empty():
        return np.zeros(state.n_games, dtype=bool)
    return state.game_ids.is_in(table.best.cast(pl.String).implode()).to_numpy()


def member_scores(state: DiscoveryModel, table: Table, allowed: np.ndarray) -> tuple[Members, Scores]:
    """Each member's blended scores over the group's candidates, and what is behind them."""
    members = state.members(table.collections, table.user_ids)
    mask = np.broadcast_to(allowed, (len(table.user_ids), state.n_games)).copy()
    with single_threaded_blas():
        scores = state.score(members, mask)
    return members, scores


def game_night(state: DiscoveryModel, table: Table, *, n: int, how: str = DEFAULT_AGGREGATION) -> pl.DataFrame:
    """The group's list: ``rank``, ``game_id``, ``score``, ``reason``, ``brought_by``."""
    if len(set(table.user_ids)) < 2:
        raise GroupError("a group needs at least two different members")
    if n < 1:
        raise GroupError(f"-n must be at least 1, not {n}")
    allowed = candidates(state, table)
    members, scores = member_scores(state, table, allowed)
    combined = aggregate(scores.blended, how)
    best = best_at_size(state, table)
    if best.any():  # no BGG facts: nothing added, today's ranking exactly
        combined = combined + np.float32(BEST_BOOST) * best
    ids, values = state.top_n(combined[None, :], n)
    picked = ids[0][ids[0] >= 0]
    if picked.size == 0:
        return pl.DataFrame(schema=GROUP_SCHEMA)
    per_member = scores.blended[:, picked]  # members × picked
    evidence = state.evidence(scores)[:, picked]
    grid = np.broadcast_to(picked, per_member.shape).copy()
    kinds = np.where(evidence, KIND_PERSONAL, KIND_POPULAR)
    anchors = state.anchors(members, scores, grid, kinds)
    reasons = []
    for slot in range(picked.size):
        fits_at = per_member[:, slot] >= values[0][slot] - 1e-6
        order = [m for m in np.argsort(-per_member[:, slot], kind="stable") if fits_at[m] and evidence[m, slot]]
        fits = [
            (table.user_ids[m], state.content.names[int(anchors[m, slot])] if anchors[m, slot] >= 0 else None)
            for m in order[:MAX_FITS]
        ]
        reasons.append(group_reason(fits, best_with=len(set(table.user_ids)) if best[picked[slot]] else None))
    return pl.DataFrame(
        {
            "rank": pl.Series(np.arange(1, picked.size + 1), dtype=pl.Int32),
            "game_id": state.game_ids.gather(picked),
            "score": pl.Series(values[0][: picked.size], dtype=pl.Float64),
            "reason": reasons,
        }
    ).pipe(with_brought_by, table)


def with_brought_by(frame: pl.DataFrame, table: Table) -> pl.DataFrame:
    """Who brings each game: the members who have it (in the group's order), else the cafe."""
    seats = pl.DataFrame({"user_id": table.user_ids, "_seat": list(range(len(table.user_ids)))},
                         schema={"user_id": pl.String, "_seat": pl.Int64})
    owners = (
        table.collections.filter(pl.col("have") & on_site(table.collections)).join(seats, on="user_id")
        .sort("_seat").group_by("game_id", maintain_order=True).agg(pl.col("user_id").alias("brought_by"))
    )
    cafe_games = table.cafe_games if table.cafe_games is not None else pl.Series([], dtype=pl.String)
    nobody = pl.lit(pl.Series([[]], dtype=pl.List(pl.String)))
    at_cafe = pl.lit(pl.Series([[f"cafe:{table.cafe}"]], dtype=pl.List(pl.String)))
    return frame.join(owners, on="game_id", how="left", maintain_order="left").with_columns(
        pl.when(pl.col("brought_by").is_not_null()).then(pl.col("brought_by"))
        .when(pl.col("game_id").is_in(cafe_games.implode())).then(at_cafe)
        .otherwise(nobody).alias("brought_by")
    )
