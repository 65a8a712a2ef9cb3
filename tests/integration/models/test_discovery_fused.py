"""The champion's part made in one pass per member (``models.discovery.fused``), and the
whole block ranked in one pass per member (``models.discovery.onepass``), give the
ranked rows, scores and reasons of the separate steps, bit for bit, and keep the
ensemble's statistics as they keep them.

On the demo's site (``bodoge demo``: 1,000 games, 2,000 members) for each item-to-item
champion (EASE and EDLAE capped so some games are not modelled, cosine, BM25, RP3beta) and an
ensemble of EASE and cosine; a champion it cannot make (ALS, popularity) keeps the separate
steps for its own part, and the one pass takes its scores from them.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.threads import single_threaded_blas
from models.discovery.fused import FusedCF
from models.discovery.lists import discover_candidates
from models.discovery.model import DiscoveryModel
from models.discovery.onepass import ranked_block
from models.discovery.run import ChampionFit, fit_state
from models.discovery.shelves import SHELVES, shelf_rows
from models.ensemble import Ensemble

CHAMPIONS = {
    "ease": {"max_items": 400},  # 1,000 games: some not modelled (-inf before clipping)
    "edlae": {"max_items": 400},
    "cosine": {},
    "bm25": {},
    "rp3beta": {},
    # shares summing to 3, so that dividing by the sum rounds (a sum of 4 would not show an order changed)
    "ensemble": {"members": {"ease": {"max_items": 400}, "cosine": {}}, "shares": {"cosine": 2, "ease": 1}},
}


@pytest.fixture(scope="module")
def site(demo_site):
    return demo_site


def _state(site, champion: str) -> DiscoveryModel:
    rows, catalog, _ = site
    with single_threaded_blas():
        return fit_state(rows, catalog, None, ChampionFit(champion=champion, params=CHAMPIONS.get(champion, {})))


def _ranked(state: DiscoveryModel, rows: pl.DataFrame, users: list[str], fusing: bool) -> tuple[pl.DataFrame, dict]:
    """The lists by the compiled engine (``fusing``) or by the reference's separate steps."""
    state = state if fusing else state.with_engine("reference")
    if isinstance(state.model, Ensemble):
        state.model.keep_statistics()  # a fresh night's serving, as DiscoveryModel starts it
    with single_threaded_blas():
        ranked, counts = state.rank(rows, users, 100)
        shelves = [shelf_rows(state, rows, users, kind, run_id="r") for kind in SHELVES.values()]
    return pl.concat([ranked.with_columns(pl.lit("discovery").alias("list"))]
                     + [s.select(ranked.columns).with_columns(pl.lit(n).alias("list")) for n, s in zip(SHELVES, shelves)]
                     ), counts


@pytest.mark.parametrize("champion", sorted(CHAMPIONS))
def test_fused_rows_equal_the_separate_steps(site, champion: str) -> None:
    rows, _, users = site
    state = _state(site, champion)
    assert state.fused is not None, f"{champion} is an item-to-item champion"
    fused, fused_counts = _ranked(state, rows, users, True)
    kept = state.model.statistics_ if isinstance(state.model, Ensemble) else None
    kept_fused = None if kept is None else (kept.mean.copy(), kept.spread.copy(), kept.lowest.copy(), kept.known.copy())
    separate, separate_counts = _ranked(state, rows, users, False)
    assert fused.height > 0 and fused_counts == separate_counts
    assert fused.equals(separate)  # every list, rank, score (float64 of the float32) and reason
    if kept is not None:  # the statistics the reasons and shelves read are the separate steps' own
        after = state.model.statistics_
        for got, want in zip(kept_fused, (after.mean, after.spread, after.lowest, after.known), strict=True):
            assert np.array_equal(got, want)


@pytest.mark.parametrize("champion", ["als", "popularity"])
def test_a_champion_it_cannot_make_keeps_the_separate_steps(site, champion: str) -> None:
    rows, _, users = site
    state = _state(site, champion)
    assert FusedCF.for_model(state.model) is None and state.fused is None
    # The block's one pass still ranks it, from the champion's scores made the separate way.
    members = state.members(rows, users[:50])
    assert ranked_block(state.block_inputs(), members, discover_candidates(members), 100) is not None
    fused, fused_counts = _ranked(state, rows, users, True)
    separate, separate_counts = _ranked(state, rows, users, False)
    assert fused.height > 0 and fused_counts == separate_counts and fused.equals(separate)


def test_the_one_pass_ranks_every_item_to_item_champion(site) -> None:
    """The equality above is not vacuous: the one pass, not a fallback, ranked the blocks."""
    rows, _, users = site
    for champion in CHAMPIONS:
        state = _state(site, champion)
        members = state.members(rows, users[:50])
        assert ranked_block(state.block_inputs(), members, discover_candidates(members), 100) is not None, champion


def test_a_row_holding_nan_is_left_to_the_separate_steps(site) -> None:
    """A blended row with NaN (here from a neighbour graph holding one) is ranked by
    ``top_n``'s own way for such rows: the one pass gives the block up, with the same rows."""
    rows, _, users = site
    state = _state(site, "ease")
    members = state.members(rows, users[:50])
    liked_game = int(members.liked.indices[0])
    graph = state.graph.copy()
    graph.data[graph.indptr[liked_game]] = np.nan
    state.graph = graph
    assert ranked_block(state.block_inputs(), members, discover_candidates(members), 100) is None
    fused, _ = _ranked(state, rows, users[:50], True)
    separate, _ = _ranked(state, rows, users[:50], False)
    assert fused.height > 0 and fused.equals(separate)


def test_an_ensemble_of_more_members_than_its_slots_keeps_the_separate_steps(site) -> None:
    """The pass has three slots: a fourth member would be left out of the total, so such an
    ensemble is not fused."""
    from models.discovery.fused import PARTS

    rows, catalog, _ = site
    members = {"ease": {"max_items": 400}, "cosine": {}, "bm25": {}, "rp3beta": {}}
    assert len(members) > PARTS
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion="ensemble", params={
            "members": members, "shares": {name: 1 for name in members}}))
    assert state.fused is None
