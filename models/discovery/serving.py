"""Serving ``bodoge recommend``: ranking one member again from the saved model.

``marts.recommendations`` holds the top ``depth`` (100) rows per member, which the
command filters in SQL (``warehouse.views.recommendations_for``). When fewer than ``n``
rows survive the filters, it ranks the member's whole catalogue again with
``score_user_on_the_fly`` (same scores, same order, same reasons as the stored rows, for
every game rather than the first ``depth``) and reads that through the same SQL: the
filters are never written here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl

from models.threads import single_threaded_blas
from models.discovery.lists import (
    RECOMMENDATION_COLUMNS,
    Candidates,
    discover_candidates,
)
from models.discovery.members import Members, normalise_marked
from models.discovery.model import DiscoveryModel
from models.discovery.store import load_state


def score_user_on_the_fly(
    model_dir: str | Path,
    user_id: str,
    *,
    collection: pl.DataFrame | None = None,
    n: int | None = None,
    candidates: Candidates = discover_candidates,
    members_of: Callable[[Members, np.ndarray], Members] | None = None,
) -> pl.DataFrame:
    """Rank the whole catalogue for one member from a saved ``model_dir``.

    Same columns as ``marts.recommendations`` (``model``, ``run_id`` and
    ``generated_at`` of the run that saved the model), best first, every game the member
    may get (``n`` limits it). With the run's own collections the first ``depth`` rows
    equal the stored ones. ``collection`` (the member's current rows of
    ``marts.collections``) replaces the saved rows for exclusions, liked games and
    興味あり; the champion's part still comes from the member's row at fitting time, and a
    member the champion never saw is ranked by content and popularity.

    ``candidates``/``members_of`` choose the mode (``DiscoveryModel.rank``; default:
    discovery). Raises ``LookupError`` for a member neither saved nor given a ``collection``.
    """
    state, meta = load_state(model_dir)
    rows = member_collection(state, user_id, collection, source=str(model_dir))
    with single_threaded_blas():
        ranked, _ = state.rank(rows, [str(user_id)], n, candidates=candidates, members_of=members_of)
    return ranked.with_columns(
        pl.lit(meta["champion"]).alias("model"),
        pl.lit(meta.get("run_id")).cast(pl.String).alias("run_id"),
        pl.lit(datetime.fromisoformat(meta["generated_at"])).alias("generated_at"),
    ).select(RECOMMENDATION_COLUMNS)


def member_collection(
    state: DiscoveryModel, user_id: str, collection: pl.DataFrame | None, *, source: str
) -> pl.DataFrame:
    """The member's normalised rows: ``collection`` (fresher, from the warehouse) when
    given, else the rows the model was saved with; ``LookupError`` when there are none."""
    user_id = str(user_id)
    if collection is None:
        rows = state.collections.filter(pl.col("user_id") == user_id)
        if rows.height == 0:
            raise LookupError(f"unknown user {user_id!r}: no collection in {source}")
        return rows
    # which rows are the member's site rows, if it says (a reason names only those)
    return normalise_marked(collection, source="collection").filter(pl.col("user_id") == user_id)
