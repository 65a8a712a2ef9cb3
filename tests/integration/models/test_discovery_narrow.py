"""Shelves scored on their own columns give exactly the lists of the whole catalogue.

Play next and the watch-list shelf rank a few games per member; a batch is scored on the
columns holding its members' shelves (``DiscoveryModel.narrow``) instead of every game.
On the demo's site (``bodoge demo``: 1,000 games, 2,000 members) every member's shelf,
scores and reasons included, equals the exhaustive one, and so do hand-made edge cases.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import models.discovery.model as discovery_model
from bodoge.demo import DEMO_SITE
from models.threads import single_threaded_blas
from models.discovery.lists import discover_candidates
from models.discovery.model import DiscoveryModel
from models.discovery.run import ChampionFit, catalog_frame, fit_state
from models.discovery.shelves import SHELVES, shelf_rows
from models.interactions import normalise_interactions
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns


@pytest.fixture(scope="module")
def demo() -> tuple[DiscoveryModel, pl.DataFrame, list[str]]:
    site = generate_site(n_games=DEMO_SITE["games"], n_users=DEMO_SITE["users"], seed=DEMO_SITE["seed"])
    frames = truth_frames(site)
    rows = normalise_interactions(frames["collections"], source="test")
    with single_threaded_blas():
        state = fit_state(rows, catalog_frame(with_filter_columns(frames["games"])), None, ChampionFit())
    return state, rows, rows.get_column("user_id").unique().sort().to_list()


def _both(state: DiscoveryModel, rows: pl.DataFrame, users: list[str], table: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    narrow = shelf_rows(state, rows, users, SHELVES[table], run_id="r")
    exhaustive = shelf_rows(state.with_engine("reference"), rows, users, SHELVES[table], run_id="r")
    return narrow, exhaustive


@pytest.mark.parametrize("batch", [discovery_model.USER_BATCH, 40])
@pytest.mark.parametrize("table", sorted(SHELVES))
def test_every_demo_members_shelf_equals_the_exhaustive_one(demo, table: str, batch: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """At the night's batch size, and at 40 members a batch: on 1,000 games a batch of
    512 members' shelves may span half the catalogue (then it is scored whole), while
    at 25,000 games it never does; 40 members a batch put every batch on the narrow path."""
    state, rows, users = demo
    monkeypatch.setattr(discovery_model, "USER_BATCH", batch)
    narrowed: list[bool] = []
    narrow_of = DiscoveryModel.narrow

    def spy(self: DiscoveryModel, allowed: np.ndarray) -> np.ndarray | None:
        cols = narrow_of(self, allowed)
        narrowed.append(cols is not None)
        return cols

    monkeypatch.setattr(DiscoveryModel, "narrow", spy)
    narrow, exhaustive = _both(state, rows, users, table)
    assert exhaustive.height > len(users) // 4  # many members have a shelf
    assert narrow.equals(exhaustive)  # same games, ranks, scores (bit for bit) and reasons
    if batch < 100:  # every batch of the narrowing pass took the narrow path
        assert sum(narrowed) == -(-len(users) // batch)


def test_discovery_keeps_the_whole_catalogue(demo) -> None:
    state, rows, users = demo
    members = state.members(rows, users[:50])
    assert state.narrow(discover_candidates(members)) is None


def test_evidence_at_reads_the_narrowed_columns(demo) -> None:
    state, rows, users = demo
    members = state.members(rows, users[:40])
    allowed = SHELVES["watch_next"].games(members)
    cols = state.narrow(allowed)
    assert cols is not None
    narrow = state.score(members, allowed[:, cols], cols)
    whole = state.score(members, allowed)
    np.testing.assert_array_equal(narrow.blended, whole.blended[:, cols])
    ids = np.broadcast_to(cols[:5], (len(members.user_ids), 5))
    np.testing.assert_array_equal(state.evidence_at(narrow, ids), state.evidence_at(whole, ids))
