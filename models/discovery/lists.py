"""What a discovery list is made of: its rows' columns, a mode's candidate games, a batch's scores.

Shared by the model (``models.discovery.model``), its modes (shelves, game night) and the
night's run; no scoring here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from models.discovery.members import Members

RECOMMENDATION_COLUMNS = (
    "user_id", "rank", "game_id", "score", "model", "run_id", "reason", "generated_at",
)


SIMILAR_COLUMNS = ("game_id", "rank", "similar_game_id", "score", "run_id")
"""The rows of ``marts.recommendations`` and ``marts.similar_games``."""


RANKED_SCHEMA = {
    "user_id": pl.String, "rank": pl.Int32, "game_id": pl.String, "score": pl.Float64,
    "reason": pl.String,
}


Candidates = Callable[[Members], np.ndarray]
"""A mode's choice of games: dense ``(members, games)`` bool, True where a game may be listed."""


def discover_candidates(members: Members) -> np.ndarray:
    """Discovery: every game not in the member's collection (see ``models.discovery.members``)."""
    allowed = np.ones(members.known.shape, dtype=bool)
    known = members.known
    marked = np.repeat(np.arange(known.shape[0]), np.diff(known.indptr))[known.data > 0]
    allowed[marked, known.indices[known.data > 0]] = False  # no dense float copy of the rows
    return allowed


def deepest(allowed: np.ndarray, take: int) -> int:
    """``min(take, most candidates of any row)``: rows counted one at a time, stopping at
    the first with ``take`` (discovery's first row; a shelf's rows are all counted)."""
    most = 0
    for row in allowed:
        most = max(most, int(np.count_nonzero(row)))
        if most >= take:
            return take
    return most


@dataclass
class Scores:
    """A batch's blended scores (``-inf`` outside the candidates) and the parts behind them.

    ``cols``: the catalogue columns the arrays hold, ascending (None: the whole catalogue).
    """

    blended: np.ndarray
    cf: np.ndarray
    with_cf: np.ndarray
    cf_scale: np.ndarray
    content: np.ndarray
    content_scale: np.ndarray
    cf_rows: np.ndarray
    cols: np.ndarray | None = None
