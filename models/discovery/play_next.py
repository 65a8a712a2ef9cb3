"""Play next (積みゲー): the games a member has (持ってる) and has not played (経験あり), ranked.

The same scores as discovery (``DiscoveryModel.score``), over the member's own shelf
instead of the catalogue. The shelf's games are taken out of the member's liked games
first: owning a game says little about liking it, and a game cannot be the reason for
itself or for its shelf neighbours ("you own X, so play Y" is no reason to play Y).
Reasons therefore name games the member played or loves.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from models.base import single_threaded_blas
from models.discovery.members import Members
from models.discovery.model import DiscoveryModel
from models.discovery.serving import score_user_on_the_fly

NEXT_TO_PLAY_COLUMNS = ("user_id", "rank", "game_id", "score", "reason", "run_id")
NEXT_TO_PLAY_DEPTH = 100
"""Games kept per member in ``marts.next_to_play`` (a shelf is rarely longer)."""


def owned_unplayed(members: Members) -> np.ndarray:
    """Play next's candidates: had and not played."""
    return members.owned_unplayed.toarray() > 0


def shelf_not_liked(members: Members, allowed: np.ndarray) -> Members:
    """The members with their unplayed shelf taken out of their liked games."""
    return members.without_liked(allowed)


def next_to_play(
    state: DiscoveryModel, collections: pl.DataFrame, user_ids: list[str], *, run_id: str,
    depth: int = NEXT_TO_PLAY_DEPTH,
) -> pl.DataFrame:
    """Rows of ``marts.next_to_play`` for these members (normalised ``collections``)."""
    with single_threaded_blas():
        ranked, _ = state.rank(collections, user_ids, depth, candidates=owned_unplayed, members_of=shelf_not_liked)
    return ranked.with_columns(pl.lit(run_id).cast(pl.String).alias("run_id")).select(NEXT_TO_PLAY_COLUMNS)


def play_next_for(model_dir: str | Path, user_id: str, *, collection: pl.DataFrame, n: int) -> pl.DataFrame:
    """One member's play-next list from a saved model and their current collection."""
    return score_user_on_the_fly(
        model_dir, user_id, collection=collection, n=n, candidates=owned_unplayed, members_of=shelf_not_liked
    )
