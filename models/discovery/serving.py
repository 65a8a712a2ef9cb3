"""Serving ``bodoge recommend``: the stored rows filtered, and ranking one member again.

``marts.recommendations`` holds the top ``depth`` (100) rows per member. The command
filters them with ``filter_recommendations``; when fewer than ``n`` rows survive the
filters, it ranks the member's whole catalogue again with ``score_user_on_the_fly``
(same scores, same order, same reasons as the stored rows, for every game rather than
the first ``depth``) and filters that. ``recommend_filtered`` does both steps.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl

from models.base import single_threaded_blas
from models.specs import FILTER_COLUMNS, eligible
from models.discovery.members import Members
from models.discovery.model import RECOMMENDATION_COLUMNS, Candidates, DiscoveryModel, discover_candidates
from models.discovery.store import is_saved, load_state
from models.interactions import normalise_interactions

def filter_recommendations(
    recs: pl.DataFrame,
    games: pl.DataFrame,
    *,
    players: int | None,
    max_minutes: int | None,
    n: int,
) -> pl.DataFrame:
    """The first ``n`` rows per member (by ``rank``) that pass the filters, columns kept.

    ``players=N`` and ``max_minutes=M`` apply the one rule of ``marts.games``' filter
    columns (``models.specs.eligible``): ``players_from <= N <= players_to`` and
    ``minutes_to <= M``; a game whose value is unknown (unpublished, or implausible such
    as 1人～65536人) is excluded.

    ``rank`` keeps the member's overall position (a filtered list may read 1, 4, 9).
    """
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    if players is not None and players < 1:
        raise ValueError(f"players must be at least 1, got {players}")
    if max_minutes is not None and max_minutes < 0:
        raise ValueError(f"max_minutes must not be negative, got {max_minutes}")
    spec_frame = games.select(pl.col("game_id").cast(pl.String), *FILTER_COLUMNS).unique(
        "game_id", keep="first", maintain_order=True
    )
    joined = recs.join(spec_frame, on="game_id", how="left", maintain_order="left")
    return (
        joined.filter(eligible(players=players, max_minutes=max_minutes))
        .sort("user_id", "rank")
        .group_by("user_id", maintain_order=True)
        .head(n)
        .select(recs.columns)
    )


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
    return normalise_interactions(collection, source="collection").filter(pl.col("user_id") == user_id)


def recommend_filtered(
    stored: pl.DataFrame,
    games: pl.DataFrame,
    *,
    user_id: str,
    n: int,
    players: int | None = None,
    max_minutes: int | None = None,
    model_dir: str | Path | None = None,
    collection: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """What ``bodoge recommend`` shows: the stored rows, filtered; re-ranked when too few.

    ``stored`` is the member's rows of ``marts.recommendations``. When the filters leave
    fewer than ``n`` and ``model_dir`` exists, the whole catalogue is ranked again
    (``score_user_on_the_fly``) and filtered instead.
    """
    mine = stored.filter(pl.col("user_id") == str(user_id))
    chosen = filter_recommendations(mine, games, players=players, max_minutes=max_minutes, n=n)
    if chosen.height >= n or not is_saved(model_dir):
        return chosen
    try:
        everything = score_user_on_the_fly(model_dir, user_id, collection=collection)
    except LookupError:
        return chosen
    wider = filter_recommendations(everything, games, players=players, max_minutes=max_minutes, n=n)
    return wider if wider.height > chosen.height else chosen
