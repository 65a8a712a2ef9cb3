"""An ensemble champion serves from its members' kept statistics the same lists, bit for bit.

Discovery keeps each member's per-user statistics (mean, spread, lowest z) from the
ranking (``Ensemble.keep_statistics``) and reuses them for the reasons and both shelves,
which then z-score only their own columns. On a generated site every member's
recommendations, play next and watch list (games, ranks, scores and reasons) equal the
plain path's, which z-scores every member's whole row each time; so do the ensemble's
scores themselves and the statistics routines on hand-made edge cases.
"""

from __future__ import annotations

import pickle

import numpy as np
import polars as pl
import pytest

import models.discovery.model as discovery_model
import models.ensemble as ensemble_module
from models.threads import single_threaded_blas
from models.discovery.model import DiscoveryModel
from models.discovery.run import ChampionFit, catalog_frame, fit_state
from models.discovery.shelves import PLAY_NEXT, WATCH_NEXT, shelf_rows
from models.ensemble import Ensemble
from models.interactions import normalise_interactions
from models.member_statistics import add_zscores
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns

CAPPED = {"members": {"ease": {"max_items": 300}}, "shares": {"ease": 3, "bm25": 1}}
"""EASE over 300 of the games: its other columns are ``-inf``, z-scored to the row's lowest z."""


@pytest.fixture(scope="module", params=[{}, CAPPED], ids=["default", "capped"])
def site(request: pytest.FixtureRequest) -> tuple[DiscoveryModel, pl.DataFrame, list[str]]:
    frames = truth_frames(generate_site(n_games=600, n_users=900, seed=4))
    rows = normalise_interactions(frames["collections"], source="test")
    fit = ChampionFit(champion="ensemble", params=request.param)
    with single_threaded_blas():
        state = fit_state(rows, catalog_frame(with_filter_columns(frames["games"])), None, fit)
    assert isinstance(state.model, Ensemble) and state.model.statistics_ is not None
    return state, rows, rows.get_column("user_id").unique().sort().to_list()


def _night(state: DiscoveryModel, rows: pl.DataFrame, users: list[str]) -> dict[str, pl.DataFrame]:
    """The night's order: the ranking first (it keeps the statistics), then the shelves."""
    with single_threaded_blas():
        return {
            "discovery": state.rank(rows, users, 100)[0],
            "play_next": shelf_rows(state, rows, users, PLAY_NEXT, run_id="r"),
            "watch_list": shelf_rows(state, rows, users, WATCH_NEXT, run_id="r"),
        }


def test_every_members_lists_equal_the_plain_paths(site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 64 members (so the shelves take the narrow path) ranked on two threads."""
    state, rows, users = site
    ensemble = state.model
    monkeypatch.setattr(discovery_model, "USER_BATCH", 64)
    ensemble.keep_statistics(False)
    try:
        plain = _night(state, rows, users)
    finally:
        ensemble.keep_statistics()
    from_kept: list[int] = []  # columns z-scored from kept statistics, per call

    def spy(total: np.ndarray, weight: float, scores: np.ndarray, statistics, cols=None) -> None:
        from_kept.append(total.shape[1])
        add_zscores(total, weight, scores, statistics, cols)

    monkeypatch.setattr(ensemble_module, "add_zscores", spy)
    kept = _night(state, rows, users)
    assert ensemble.statistics_.known.any(axis=0).sum() > len(users) // 2  # the ranking kept them
    assert sum(1 for width in from_kept if width < ensemble.n_items // 2) > 10  # shelves on their columns
    for mode, frame in plain.items():
        assert frame.height > len(users) // 4, mode
        assert kept[mode].equals(frame), mode  # same games, ranks, scores (bit for bit), reasons


def test_the_ensembles_scores_from_kept_statistics_equal_its_plain_scores(site) -> None:
    state, _, _ = site
    ensemble = state.model
    rows = np.arange(ensemble.matrix_.shape[0])
    cols = np.flatnonzero(np.arange(ensemble.n_items) % 7 == 3)
    ensemble.keep_statistics(False)
    plain = ensemble.score(rows)
    spreads = {name: ensemble.member_spread(name, rows) for name in ensemble.models_}
    ensemble.keep_statistics()
    assert np.array_equal(ensemble.score_columns(rows, cols), plain[:, cols])  # kept from a few columns
    assert np.array_equal(ensemble.score(rows), plain)  # from kept statistics
    assert np.array_equal(ensemble.score_columns(rows[::3], cols), plain[::3, cols])
    for name, spread in spreads.items():
        assert np.array_equal(ensemble.member_spread(name, rows), spread)
    ensemble.keep_statistics()
    assert np.array_equal(ensemble.score(rows), plain)  # keeping them on the whole row
    assert pickle.loads(pickle.dumps(ensemble)).statistics_ is None  # a saved model starts without
