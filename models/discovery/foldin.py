"""Fold-in: a member's lists from the collection the site holds *now*, by the night's model and code.

Why: the night ranks every member from their collection at 03:00; a member who adds a game
at 21:00 would keep seeing it recommended until the next night. Our champions make a fresh
list cheap: the item-to-item ones score a member as a sum of weight rows, ALS (and BPR)
solve one member's factors against the saved item factors (``Recommender.with_rows``). So a
member's current collection is ranked by ``DiscoveryModel.folded`` and then by the very
``DiscoveryModel.rank`` the night runs: the same blend, candidates, re-ranking and reasons,
not a copy of them. A member's unchanged collection gives the night's list bit for bit
(``tests/integration/models/test_fold_in.py``, every champion kind), and a member the night
never saw (a new member) is ranked from their posted collection alike.

What a posted collection is: the member's site rows (``game_id`` with the flags 持ってる,
経験あり, お気に入り, 興味あり and an optional rating), as the site holds them. A linked
member's BoardGameGeek rows are not the site's to post: the night's rows of the member
that are not site rows (``members.SITE``) are added back, so they weigh in as at night and
a reason still names only a posted game.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from models.discovery.lists import RANKED_SCHEMA, Candidates, discover_candidates
from models.discovery.members import SITE, Members
from models.discovery.model import DiscoveryModel
from models.discovery.shelves import PLAY_NEXT, SHELF_DEPTH, WATCH_NEXT, shelf_not_liked
from models.discovery.store import load_state
from models.discovery.welcome import (
    Counts,
    counts,
    unscored,
    welcome_lists,
    with_member_replaced,
)
from models.interactions import normalise_interactions
from models.weighting import FLAGS, ConfidenceWeights, weighting_named


@dataclass(frozen=True)
class Mode:
    """A list fold-in can give: its candidate games, how a batch's members are adjusted
    (the shelves take their own games out of the liked games) and the night's depth."""

    candidates: Candidates
    members_of: Callable[[Members, np.ndarray], Members] | None
    depth: int | None


MODES = ("discovery", "watch_list", "play_next")
"""The lists fold-in gives, as the API names them."""
SHELF_MODES = {"watch_list": WATCH_NEXT, "play_next": PLAY_NEXT}
"""The shelves among ``MODES`` (each ``Shelf`` names its mart)."""


@dataclass(frozen=True)
class FoldIn:
    """The night's saved model, ready to rank posted collections (``load``)."""

    state: DiscoveryModel
    weights: ConfidenceWeights
    meta: dict[str, Any]
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @classmethod
    def load(cls, model_dir: str | Path, *, engine: str | None = None) -> FoldIn:
        """The model a night saved (``models.discovery.store``), with its weighting, computing
        by ``engine`` (None: ``BODOGE_DISCOVERY_ENGINE``'s)."""
        state, meta = load_state(model_dir, engine=engine)
        return cls(state=state, weights=weighting_named(meta.get("weighting", "graded")), meta=meta)

    def mode(self, name: str) -> Mode:
        """One of ``MODES`` with the depth the night stores it at."""
        if name == "discovery":
            return Mode(discover_candidates, None, int(self.meta.get("depth", 100)))
        shelf = SHELF_MODES[name]
        return Mode(shelf.games, shelf_not_liked, SHELF_DEPTH)

    def rows(self, user_id: str, collection: pl.DataFrame) -> pl.DataFrame:
        """The member's rows as the night would hold them: ``collection`` (the posted site
        rows: ``game_id``, the flags, ``rating``, optionally ``updated_at``) normalised as the night's are, plus the
        night's non-site rows of the member (BoardGameGeek) when the night kept any."""
        frame = collection.select(pl.lit(str(user_id), dtype=pl.String).alias("user_id"), "game_id",
                                  *[c for c in (*FLAGS, "rating", "updated_at") if c in collection.columns])
        posted = normalise_interactions(frame, source="the posted collection")
        saved = self.night_rows(user_id)
        if "updated_at" not in posted.columns and "updated_at" in saved.columns:
            posted = _night_times(posted, saved)
        if SITE not in saved.columns:
            return posted
        elsewhere = saved.filter(~pl.col(SITE))
        if elsewhere.height == 0:  # most members: no rows but the site's (posted rows come sorted)
            return posted.with_columns(pl.lit(True).alias(SITE))
        elsewhere = elsewhere.join(posted.select("game_id"), on="game_id", how="anti")
        rows = pl.concat([posted.with_columns(pl.lit(True).alias(SITE)), elsewhere.select(*posted.columns, SITE)],
                         how="vertical_relaxed")
        return rows.sort("user_id", "game_id")

    def rank(self, user_id: str, collection: pl.DataFrame, mode: str = "discovery",
             depth: int | None = -1) -> pl.DataFrame:
        """The member's list of ``mode`` for ``collection``: ``user_id``, ``rank``,
        ``game_id``, ``score``, ``reason``, best first; the night's depth (-1), ``depth``
        games, or every candidate (None)."""
        return self.rank_rows(user_id, self.rows(user_id, collection), mode, depth)

    def top_lists(self, held: pl.DataFrame, *, k: int = 10) -> dict[str, list[str]]:
        """Each member's discovery top ``k`` game ids from what they held (``held``: ``user_id``,
        ``game_id``, the flags, ``rating``; one member after another): how this model would have
        ranked them, the counterfactual ``warehouse.outcomes.rates`` scores an older champion by."""
        return {str(user): self.rank(str(user), rows, "discovery", depth=k).get_column("game_id").to_list()
                for (user,), rows in held.group_by("user_id", maintain_order=True)}

    def night_rows(self, user_id: str) -> pl.DataFrame:
        """The member's rows the night ranked (site and other rows), empty for a stranger:
        a slice of the night's rows sorted by member (a filter over all of them cost more
        than the ranking at the real size)."""
        rows, keys = self._by_member()
        lo = int(keys.search_sorted(str(user_id), side="left"))
        hi = int(keys.search_sorted(str(user_id), side="right"))
        return rows.slice(lo, hi - lo)

    def _by_member(self) -> tuple[pl.DataFrame, pl.Series]:
        with self._lock:
            if "by_member" not in self._cache:
                rows = self.state.collections
                if not rows.get_column("user_id").is_sorted():
                    rows = rows.sort("user_id", maintain_order=True)
                self._cache["by_member"] = (rows, rows.get_column("user_id"))
            return self._cache["by_member"]

    def rank_rows(self, user_id: str, rows: pl.DataFrame, mode: str = "discovery",
                  depth: int | None = -1, *,
                  hints: pl.DataFrame | Callable[[], pl.DataFrame] | None = None) -> pl.DataFrame:
        """``rank`` from rows already normalised and marked (``rows``, ``night_rows``).

        A discovery list the model has nothing personal for (no rows, or every row
        人気のゲーム) is the member's welcome list, as at night (``models.discovery.welcome``:
        everyone's rows as the night saved them with the member's own in place of theirs,
        ``hints`` the games of their posts); its rows carry ``welcome`` True."""
        ranked = self._ranked(user_id, rows, mode, depth)
        if mode != "discovery":
            return ranked
        if ranked.height and not unscored(ranked):
            return ranked.with_columns(pl.lit(False).alias("welcome"))
        chosen = self.mode(mode)
        saved = self.state.collections
        # Everyone's rows as the night saved them with the member's own in place of theirs.
        counted = with_member_replaced(self._night_counts(), self.night_rows(user_id), rows)
        welcome = welcome_lists(saved, self.state.game_ids, [str(user_id)],
                                hints=hints() if callable(hints) else hints,
                                depth=chosen.depth if depth == -1 else depth, counted=counted, theirs=rows)
        return welcome.with_columns(pl.lit(True).alias("welcome"))

    def _night_counts(self) -> Counts:
        """The welcome lists' counts of the night's rows, made once (a second at the real size)."""
        with self._lock:
            if "counts" not in self._cache:
                self._cache["counts"] = counts(self.state.collections, self.state.game_ids)
            return self._cache["counts"]

    def _ranked(self, user_id: str, rows: pl.DataFrame, mode: str, depth: int | None) -> pl.DataFrame:
        chosen = self.mode(mode)
        state = self.state.folded(rows, self.weights)
        # No `single_threaded_blas` here: it costs ~2 ms a call (threadpoolctl looks the
        # libraries up each time), more than the ranking; the numbers do not depend on BLAS
        # threads, and the processes that serve (`bodoge`) start with OPENBLAS_NUM_THREADS=1.
        ranked, _ = state.rank(rows, [str(user_id)], chosen.depth if depth == -1 else depth,
                               candidates=chosen.candidates, members_of=chosen.members_of)
        return ranked if ranked.height else pl.DataFrame(schema=RANKED_SCHEMA)


def _night_times(posted: pl.DataFrame, saved: pl.DataFrame) -> pl.DataFrame:
    """``posted`` with ``updated_at``: a card the night held as it is now keeps the night's time
    (a recency weighting ages it as the night did); a new or changed card has none, so it counts
    as new (age 0 from the night's moment, ``models.weighting``)."""
    night = saved.select("game_id", *FLAGS, "rating", "updated_at")
    joined = posted.join(night, on="game_id", how="left", suffix="_night", maintain_order="left")
    unchanged = pl.all_horizontal([pl.col(flag) == pl.col(f"{flag}_night") for flag in FLAGS]
                                  + [pl.col("rating").eq_missing(pl.col("rating_night"))])
    return joined.select(*posted.columns, pl.when(unchanged).then(pl.col("updated_at")).alias("updated_at"))
