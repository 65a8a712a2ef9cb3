"""A member's own shelves, ranked by the same scores as discovery (``DiscoveryModel.score``)
over the games on the shelf instead of the catalogue:

* **play next** (積みゲー, ``marts.next_to_play``): the games a member has (持ってる) and
  has not played (経験あり);
* **from the watch list** (興味ありの中からおすすめ, ``marts.watch_next``): the games a member
  marked 興味あり and has neither had nor played. They leave discovery
  (``models.discovery.members``) and come here instead.

A shelf's games are taken out of the member's liked games first: a game cannot be the
reason for itself or for its shelf neighbours ("you own X, so play Y", "you are interested
in X, so Y" say nothing about Y when both wait on the same shelf). Reasons therefore name
games the member played, has or loves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from models.threads import single_threaded_blas
from models.discovery.members import Members
from models.discovery.model import DiscoveryModel
from models.discovery.serving import score_user_on_the_fly

SHELF_COLUMNS = ("user_id", "rank", "game_id", "score", "reason", "run_id")
SHELF_DEPTH = 100
"""Games kept per member on a stored shelf (a shelf is rarely longer)."""


def owned_unplayed(members: Members) -> np.ndarray:
    """Play next's games: had and not played."""
    return members.owned_unplayed.toarray() > 0


def watch_list(members: Members) -> np.ndarray:
    """The watch list's games: 興味あり, neither had nor played."""
    return members.watch.toarray() > 0


def shelf_not_liked(members: Members, allowed: np.ndarray) -> Members:
    """The members with the shelf's games taken out of their liked games."""
    return members.without_liked(allowed)


@dataclass(frozen=True, slots=True)
class Shelf:
    """A shelf: its mart (``marts.<table>``), which of a member's games are on it, and how
    the night's log names it."""

    table: str
    games: Callable[[Members], np.ndarray]
    label: str


PLAY_NEXT = Shelf("next_to_play", owned_unplayed, "play-next")
WATCH_NEXT = Shelf("watch_next", watch_list, "watch-list")
SHELVES = {shelf.table: shelf for shelf in (PLAY_NEXT, WATCH_NEXT)}


def shelf_rows(
    state: DiscoveryModel, collections: pl.DataFrame, user_ids: list[str], shelf: Shelf, *, run_id: str,
    depth: int = SHELF_DEPTH,
) -> pl.DataFrame:
    """Rows of ``marts.<shelf.table>`` for these members (normalised ``collections``)."""
    with single_threaded_blas():
        ranked, _ = state.rank(collections, user_ids, depth, candidates=shelf.games, members_of=shelf_not_liked)
    return ranked.with_columns(pl.lit(run_id).cast(pl.String).alias("run_id")).select(SHELF_COLUMNS)


def shelf_for(model_dir: str | Path, user_id: str, shelf: Shelf, *, collection: pl.DataFrame, n: int) -> pl.DataFrame:
    """One member's shelf from a saved model and their current collection."""
    return score_user_on_the_fly(
        model_dir, user_id, collection=collection, n=n, candidates=shelf.games, members_of=shelf_not_liked
    )
