"""The faster ranking paths of discovery give exactly what the straightforward ones give:
threaded batches, the candidate mask built from sparse rows, CF scores without copies,
evidence read only at the listed games."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import models.discovery.model as discovery_model
from models.threads import single_threaded_blas
from models.discovery.lists import discover_candidates
from models.discovery.model import DiscoveryModel
from models.discovery.run import ChampionFit, catalog_frame, fit_state
from models.interactions import normalise_interactions
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns


@pytest.fixture(scope="module")
def site() -> dict[str, pl.DataFrame]:
    frames = truth_frames(generate_site(n_games=150, n_users=220, seed=3))
    return {"games": with_filter_columns(frames["games"]), "rows": normalise_interactions(frames["collections"], source="test")}


def _state(site: dict[str, pl.DataFrame], *, only_collected: bool = False) -> DiscoveryModel:
    games, rows = site["games"], site["rows"]
    if only_collected:  # catalogue = the champion's columns: the copy-free CF path
        rows = rows.filter(pl.col("game_id").is_in(games.get_column("game_id").implode()))
        games = games.filter(pl.col("game_id").is_in(rows.get_column("game_id").implode()))
    with single_threaded_blas():
        return fit_state(rows, catalog_frame(games), None,
                         fit=ChampionFit(champion="ease", params={"l2": 30.0}, weighting="graded"))


def _users(site: dict[str, pl.DataFrame]) -> list[str]:
    return site["rows"].get_column("user_id").unique().sort().to_list()


def test_threaded_batches_give_the_same_rows(site: dict[str, pl.DataFrame], monkeypatch: pytest.MonkeyPatch) -> None:
    state, users = _state(site), _users(site)
    monkeypatch.setattr(discovery_model, "USER_BATCH", 16)  # many batches
    monkeypatch.setattr(discovery_model, "RANK_THREADS", 1)
    alone, alone_counts = state.rank(site["rows"], users, 20)
    monkeypatch.setattr(discovery_model, "RANK_THREADS", 2)
    threaded, threaded_counts = state.rank(site["rows"], users, 20)
    catalogue = catalog_frame(site["games"]).select("game_id")
    known = dict(site["rows"].join(catalogue, on="game_id").group_by("user_id").len().iter_rows())
    new_to_them = sum(min(20, state.n_games - known.get(user, 0)) for user in users)
    assert alone.height == new_to_them > 19 * len(users)  # a few members know most of the 150 games
    assert threaded.equals(alone) and threaded_counts == alone_counts


def test_candidate_mask_equals_the_dense_reference(site: dict[str, pl.DataFrame]) -> None:
    state, users = _state(site), _users(site)
    members = state.members(site["rows"], users[:60])
    reference = ~(members.known.toarray() > 0)
    allowed = discover_candidates(members)
    assert allowed.dtype == bool and allowed.shape == reference.shape
    np.testing.assert_array_equal(allowed, reference)
    assert (~allowed).sum() > 0  # members do have known games


@pytest.mark.parametrize("only_collected", [False, True])
def testcf_scores_and_evidence_equal_the_general_path(site: dict[str, pl.DataFrame], only_collected: bool) -> None:
    state, users = _state(site, only_collected=only_collected), _users(site)
    assert state._cf_identity is only_collected
    members = state.members(site["rows"], users[:50])
    cf_rows = state.interactions.user_rows(members.user_ids)
    fast = state.cf_scores(cf_rows)
    state._cf_identity = False
    general = state.cf_scores(cf_rows)
    np.testing.assert_array_equal(fast, general)
    assert (fast > 0).any() and np.isfinite(fast).all()

    scores = state.score(members, discover_candidates(members))
    ids = np.argsort(-scores.blended, axis=1, kind="stable")[:, :25]
    np.testing.assert_array_equal(
        state.evidence_at(scores, ids), np.take_along_axis(state.evidence(scores), ids, axis=1)
    )
