"""How much evaluation may cost: the shortcuts that make it fit the night at real-site size.

Why: at 25,000 games and 100,000 members the full protocol (``models.evaluate``) took
33 minutes of a 15-minute night, mostly tuning (ALS alone 7 minutes, one fit ~45 s) and
the weighting choice (twelve 5,000-game EASE inverses). Above ``LARGE_USERS`` members or
``LARGE_INTERACTIONS`` interactions (well above MovieLens-1M's 6,040 users and 1M rows,
so ML-1M and the demo site are untouched) evaluation takes three shortcuts, each said in
the log and in ``marts.model_runs.notes``:

* sampled grids try at most ``MAX_SETTINGS`` settings (the defaults and seeded draws);
* the weighting is chosen with EASE on the ``WEIGHTING_MAX_ITEMS`` most collected games
  (the choice compares weightings with one another; the catalogue tail adds cost, little
  signal);
* TEST is scored on a seeded sample of ``MAX_TEST_USERS`` test users (the final fits
  still see all of TRAIN, so ``fit_seconds`` and the champion's model are unchanged);
* the night's default candidates leave out ``LEFT_OUT`` (BPR): the costliest to fit and
  the weakest at this size, it never wins there (a candidate named on the command line
  is still evaluated).

The champion is still chosen the same way: every candidate refitted on a fresh split of
TRAIN, best NDCG@k wins, ties to the simpler one.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from models.split import stable_sample

LARGE_USERS = 12_000
"""Members above which the shortcuts engage (twice MovieLens-1M's 6,040)."""
LARGE_INTERACTIONS = 1_500_000
"""Interactions above which the shortcuts engage (MovieLens-1M has 1,000,209)."""
MAX_SETTINGS = 4
"""Settings tried per sampled grid on large data (defaults first), instead of ``n_iter + 1``."""
WEIGHTING_MAX_ITEMS = 2_000
"""Games of the EASE reference that chooses the weighting on large data."""
MAX_TEST_USERS = 10_000
"""Test users scored on large data (a seeded sample; the averages' standard error at NDCG
~0.04 stays under 0.002)."""
LEFT_OUT = ("bpr",)
"""Candidates a large night does not evaluate. BPR at 25,000 games and 90,000 members
(BENCHMARKS.md): the slowest fit (56 s, against EASE's 23 s) on top of four tuning fits, and
the weakest model on the selection split (NDCG@10 0.003 against the champion's 0.030; 0.017
against EASE's 0.038 two days earlier); on MovieLens-100k it is also the last of the
candidates and its lists churn most between nights (``models.candidates``), so it never
joins an ensemble either."""


@dataclass(frozen=True)
class EvaluationBudget:
    """The shortcuts for one evaluation; every limit ``None`` means the full protocol."""

    max_settings: int | None = None
    weighting_max_items: int | None = None
    max_test_users: int | None = None
    left_out: tuple[str, ...] = ()
    reason: str = ""

    @classmethod
    def for_data(cls, n_users: int, n_interactions: int) -> EvaluationBudget:
        """The full protocol up to the thresholds, the shortcuts above them."""
        if n_users <= LARGE_USERS and n_interactions <= LARGE_INTERACTIONS:
            return cls()
        reason = (
            f"large data ({n_users:,} members, {n_interactions:,} interactions; shortcuts above "
            f"{LARGE_USERS:,} members or {LARGE_INTERACTIONS:,} interactions)"
        )
        return cls(MAX_SETTINGS, WEIGHTING_MAX_ITEMS, MAX_TEST_USERS, LEFT_OUT, reason)

    @property
    def engaged(self) -> bool:
        """Whether any shortcut applies."""
        return bool(self.left_out) or any(
            limit is not None for limit in (self.max_settings, self.weighting_max_items, self.max_test_users)
        )


def sample_test_users(test: pl.DataFrame, limit: int | None, seed: int) -> tuple[pl.DataFrame, str | None]:
    """TEST restricted to a seeded sample of at most ``limit`` users, and a note when it was cut.

    The sample depends on the seed and the users' ids only (``models.split.stable_sample``),
    never on row order, and a user stays in it from one night to the next unless a newcomer
    hashes lower.
    """
    users = test.get_column("user_id").unique().sort()
    if limit is None or users.len() <= limit:
        return test, None
    chosen = users.gather(stable_sample(users, limit, seed))
    note = f"TEST scored on a seeded sample of {limit:,} of {users.len():,} test users"
    return test.filter(pl.col("user_id").is_in(chosen.implode())), note
