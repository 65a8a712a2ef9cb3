"""The reasons' anchors made in one compiled pass per member (``models.discovery.anchors``)
are the pairs' pass's, game for game, for every item-to-item champion and ensembles of
them; the others (ALS) keep the pairs' pass.

On the demo's site (1,000 games, 2,000 members), the whole catalogue listed 100 deep for
every member, the evidence as the ranking takes it.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.base import top_n
from models.threads import single_threaded_blas
from models.discovery.anchors import _parts, anchors
from models.discovery.lists import discover_candidates
from models.discovery.model import DiscoveryModel
from models.discovery.reasons import KIND_NONE, KIND_PERSONAL, KIND_POPULAR
from models.discovery.run import ChampionFit, fit_state
from models.ensemble import Ensemble

CHAMPIONS = {
    "ease": {"max_items": 400},  # some games not modelled: their weights are 0
    "edlae": {"max_items": 400},
    "cosine": {},
    "bm25": {},
    "rp3beta": {},
    "ensemble": {"members": {"ease": {"max_items": 400}, "cosine": {}}, "shares": {"cosine": 2, "ease": 1}},
    "ensemble3": {"members": {"ease": {"max_items": 400}, "bm25": {}, "rp3beta": {}},
                  "shares": {"ease": 1, "bm25": 1, "rp3beta": 3}},
}


@pytest.fixture(scope="module")
def site(demo_site):
    return demo_site


def _state(site, champion: str) -> DiscoveryModel:
    rows, catalog, _ = site
    name = "ensemble" if champion.startswith("ensemble") else champion
    with single_threaded_blas():
        return fit_state(rows, catalog, None, ChampionFit(champion=name, params=CHAMPIONS.get(champion, {})))


def _listed(state: DiscoveryModel, members):
    """The members' scores, their 100 best games and each one's kind, as the ranking takes them."""
    scores = state.score(members, discover_candidates(members))
    ids, _ = top_n(scores.blended, 100)
    kinds = np.where(state.evidence_at(scores, np.maximum(ids, 0)), KIND_PERSONAL, KIND_POPULAR)
    kinds[ids < 0] = KIND_NONE
    return scores, ids, kinds


def _both_ways(state: DiscoveryModel, rows: pl.DataFrame, users: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    if isinstance(state.model, Ensemble):
        state.model.keep_statistics()
    members = state.members(rows, users)
    scores, ids, kinds = _listed(state, members)
    compiled = anchors(state.anchor_inputs(), members, scores, ids, kinds)
    by_pairs = anchors(state.with_engine("reference").anchor_inputs(), members, scores, ids, kinds)
    return compiled, by_pairs, int((kinds == KIND_PERSONAL).sum())


@pytest.mark.parametrize("champion", sorted(CHAMPIONS))
def test_compiled_anchors_equal_the_pairs_pass(site, champion: str) -> None:
    rows, _, users = site
    state = _state(site, champion)
    assert _parts(state.anchor_inputs()) is not None, f"{champion}: the compiled pass takes it"
    compiled, by_pairs, personal = _both_ways(state, rows, users)
    assert personal > 0 and (compiled >= 0).sum() > personal // 2  # most personal rows anchored
    np.testing.assert_array_equal(compiled, by_pairs)


def test_als_keeps_the_pairs_pass(site) -> None:
    rows, _, users = site
    state = _state(site, "als")
    assert _parts(state.anchor_inputs()) is None
    compiled, by_pairs, _ = _both_ways(state, rows, users[:200])
    np.testing.assert_array_equal(compiled, by_pairs)


def test_liked_games_in_any_order_give_the_same_anchors(site) -> None:
    """The compiled pass keeps the first largest contribution, which is the lowest game on a
    tie only when each member's liked games come in ascending order; in any other order it
    breaks ties on the game itself, as the pairs' pass does."""
    rows, _, users = site
    state = _state(site, "ensemble")
    state.model.keep_statistics()
    members = state.members(rows, users[:400])
    scrambled = _reversed_rows(members.nameable)
    scores, ids, kinds = _listed(state, members)
    sorted_anchors = anchors(state.anchor_inputs(), members, scores, ids, kinds)
    members.nameable = scrambled
    np.testing.assert_array_equal(anchors(state.anchor_inputs(), members, scores, ids, kinds), sorted_anchors)
    np.testing.assert_array_equal(anchors(state.with_engine("reference").anchor_inputs(), members, scores, ids, kinds), sorted_anchors)


def test_ties_between_liked_games_go_to_the_lowest_game(site) -> None:
    """Two liked games contributing exactly the same: the reason names the lower one."""
    rows, _, users = site
    state = _state(site, "cosine")
    members = state.members(rows, users[:50])
    scores, ids, _ = _listed(state, members)
    kinds = np.full(ids.shape, KIND_PERSONAL)
    kinds[ids < 0] = KIND_NONE
    scores.cf_scale = np.zeros_like(scores.cf_scale)  # content alone: ties come from the graph
    assert _parts(state.anchor_inputs()) is not None
    graph = state.graph.copy()
    graph.data[:] = 0.5  # every neighbour as near as every other
    state.graph = graph
    members.nameable.data[:] = 1.0  # every liked game weighs the same
    compiled = anchors(state.anchor_inputs(), members, scores, ids, kinds)
    np.testing.assert_array_equal(compiled, anchors(state.with_engine("reference").anchor_inputs(), members, scores, ids, kinds))
    assert (compiled >= 0).sum() > 100
    members.nameable = _reversed_rows(members.nameable)  # the same ties met highest game first
    np.testing.assert_array_equal(anchors(state.anchor_inputs(), members, scores, ids, kinds), compiled)


def _reversed_rows(matrix):
    """``matrix`` with each row's entries in reverse order (no longer sorted)."""
    out = matrix.copy()
    for row in range(out.shape[0]):
        start, stop = out.indptr[row], out.indptr[row + 1]
        out.indices[start:stop] = out.indices[start:stop][::-1].copy()
        out.data[start:stop] = out.data[start:stop][::-1].copy()
    out.has_sorted_indices = False
    return out
