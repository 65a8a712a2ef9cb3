"""From your watch list (興味ありの中からおすすめ): the member's 興味あり games, ranked.

The games a member marked 興味あり and has neither had (持ってる) nor played (経験あり)
leave discovery (``models.discovery.members``) and come here instead: the same scores
(``DiscoveryModel.score``) over the member's own watch list rather than the catalogue,
as play next does over the unplayed shelf. The watch list is taken out of the member's
liked games first, so a game on it is never the reason for itself or for another on it
("you are interested in X, so Y" says nothing about Y when both wait on the same list):
reasons name games the member played, has or loves.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from models.base import single_threaded_blas
from models.discovery.members import Members
from models.discovery.model import DiscoveryModel
from models.discovery.serving import score_user_on_the_fly

WATCH_NEXT_COLUMNS = ("user_id", "rank", "game_id", "score", "reason", "run_id")
WATCH_NEXT_DEPTH = 100
"""Games kept per member in ``marts.watch_next`` (as for play next)."""


def watch_list(members: Members) -> np.ndarray:
    """The shelf's candidates: 興味あり, neither had nor played."""
    return members.watch.toarray() > 0


def list_not_liked(members: Members, allowed: np.ndarray) -> Members:
    """The members with their watch list taken out of their liked games."""
    return members.without_liked(allowed)


def watch_next(
    state: DiscoveryModel, collections: pl.DataFrame, user_ids: list[str], *, run_id: str,
    depth: int = WATCH_NEXT_DEPTH,
) -> pl.DataFrame:
    """Rows of ``marts.watch_next`` for these members (normalised ``collections``)."""
    with single_threaded_blas():
        ranked, _ = state.rank(collections, user_ids, depth, candidates=watch_list, members_of=list_not_liked)
    return ranked.with_columns(pl.lit(run_id).cast(pl.String).alias("run_id")).select(WATCH_NEXT_COLUMNS)


def watch_next_for(model_dir: str | Path, user_id: str, *, collection: pl.DataFrame, n: int) -> pl.DataFrame:
    """One member's watch-list shelf from a saved model and their current collection."""
    return score_user_on_the_fly(
        model_dir, user_id, collection=collection, n=n, candidates=watch_list, members_of=list_not_liked
    )
