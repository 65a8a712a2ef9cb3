"""A member ranked over their pool (``models.discovery.pooled``) gets the whole
catalogue's list, bit for bit: ids, scores, evidence and both scales; where the pool
cannot prove that, the whole-catalogue pass ranks the member.

On the demo's site (1,000 games, 2,000 members), for every champion with a sparse part
(cosine, BM25, RP3beta, and ensembles of them with EASE); with popularity weighted so
heavily that games outside the pools reach the lists (the certificate must then refuse,
or the lists would differ); for members without a CF row (content alone); and the
scales' heap against ``scale_row`` on rows of ties, zeros and negative values.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from models.base import single_threaded_blas
from models.discovery.model import DiscoveryModel, discover_candidates
from models.discovery.onepass import Ranked, ranked_block
from models.discovery import pooled
from models.discovery.pooled import _scale_of_pool
from models.discovery.run import ChampionFit, fit_state
from models.kernels import scale_row

CHAMPIONS = {
    "cosine": {},
    "bm25": {},
    "rp3beta": {},
    "ensemble": {"members": {"ease": {"max_items": 400}, "cosine": {}}, "shares": {"cosine": 2, "ease": 1}},
    "ensemble3": {"members": {"ease": {"max_items": 400}, "rp3beta": {}, "bm25": {}},
                  "shares": {"ease": 1, "rp3beta": 2, "bm25": 1}},
}
FIELDS = ("ids", "values", "evidence", "cf_scale", "content_scale")


@pytest.fixture(scope="module")
def site(demo_site):  # type: ignore[no-untyped-def]
    return demo_site


@pytest.fixture(autouse=True)
def any_pool(monkeypatch):  # type: ignore[no-untyped-def]
    """Pools of any width: the demo's 1,000 games are reached by most pools."""
    monkeypatch.setattr(pooled, "POOL_SHARE", 1.0)


def _state(site, champion: str) -> DiscoveryModel:  # type: ignore[no-untyped-def]
    rows, catalog, _ = site
    name = "ensemble" if champion.startswith("ensemble") else champion
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion=name, params=CHAMPIONS.get(champion, {})))
    if state.model is not None and hasattr(state.model, "keep_statistics"):
        state.model.keep_statistics()
    return state


def _both(state: DiscoveryModel, rows: pl.DataFrame, users: list[str]) -> tuple[Ranked, Ranked]:
    """The block ranked over the whole catalogue, then over the pools."""
    members = state.members(rows, users)
    candidates = discover_candidates(members)
    blocks = []
    for pooling in (False, True):
        state.pooling = pooling
        try:
            block = ranked_block(state, members, candidates, 100)
        finally:
            state.pooling = True
        assert block is not None
        blocks.append(block)
    return blocks[0], blocks[1]


def _assert_same(whole: Ranked, pooled: Ranked) -> None:
    for field in FIELDS:
        assert np.array_equal(getattr(whole, field), getattr(pooled, field)), field


@pytest.mark.parametrize("champion", sorted(CHAMPIONS))
def test_the_pool_gives_the_whole_catalogue_s_lists(site, champion: str) -> None:
    rows, _, users = site
    state = _state(site, champion)
    pooled = 0
    for start in range(0, len(users), 500):
        whole, by_pool = _both(state, rows, users[start:start + 500])
        assert whole.pooled == 0
        _assert_same(whole, by_pool)
        pooled += by_pool.pooled
    assert pooled > len(users) // 2, f"{champion}: only {pooled} of {len(users)} members ranked over their pool"


def test_games_outside_the_pools_reaching_the_lists_are_left_to_the_whole_pass(site) -> None:
    """Popularity weighted 2.0: popular games no liked game reaches climb into the lists.
    The certificate refuses those members (the pool's own answer would miss them), and
    the lists stay the whole catalogue's."""
    rows, _, users = site
    state = _state(site, "ensemble")
    state.blend = replace(state.blend, popularity=2.0)
    whole, by_pool = _both(state, rows, users[:500])
    _assert_same(whole, by_pool)
    assert by_pool.pooled < 500


def test_members_without_a_cf_row_are_pooled_on_content(site) -> None:
    """Members the champion does not know (new ids with another member's games): their
    list is content and popularity alone, over the content graph's reach."""
    rows, _, users = site
    state = _state(site, "ensemble")
    copies = rows.filter(pl.col("user_id").is_in(users[:200])).with_columns(
        ("new-" + pl.col("user_id")).alias("user_id"))
    new_users = sorted(copies.get_column("user_id").unique().to_list())
    whole, by_pool = _both(state, copies, new_users)
    assert (whole.cf_rows == -1).all()
    _assert_same(whole, by_pool)
    assert by_pool.pooled > 0


def test_a_champion_without_a_sparse_part_is_not_pooled(site) -> None:
    """EASE alone reaches every column: no column is provably 0, so no pool."""
    rows, catalog, users = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion="ease", params={"max_items": 400}))
    whole, by_pool = _both(state, rows, users[:100])
    _assert_same(whole, by_pool)
    assert by_pool.pooled == 0


def test_a_pool_wider_than_its_share_is_left_to_the_whole_pass(site, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rows, _, users = site
    state = _state(site, "cosine")
    monkeypatch.setattr(pooled, "POOL_SHARE", 0.05)
    whole, narrow = _both(state, rows, users[:300])
    monkeypatch.setattr(pooled, "POOL_SHARE", 1.0)
    _, wide = _both(state, rows, users[:300])
    _assert_same(whole, narrow)
    assert narrow.pooled < wide.pooled


@pytest.mark.parametrize("seed", range(40))
def test_the_pool_s_scale_is_scale_row_s(seed: int) -> None:
    """A row of few distinct values (ties, zeros, negatives), masked, scaled whole by
    ``scale_row`` and from its pool plus the others: as exact zeros, or bounded."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 400)), int(rng.integers(1, 60))
    row = rng.choice(np.array([-1.5, -0.25, 0.0, 0.5, 0.75, 2.0, 3.0], dtype=np.float32), n)
    mask = rng.random(n) < 0.8
    inside = rng.random(n) < 0.5
    row[~inside] = 0.0
    heap, masked = np.empty(min(k, n), dtype=np.float32), np.empty(n, dtype=np.float32)
    want = scale_row(row, mask, min(k, n), heap, masked)
    pool = row[inside & mask]
    zeros = int((~inside & mask).sum())
    ok, offset, slope = _scale_of_pool(pool, pool.size, min(k, n), np.empty(min(k, n), dtype=np.float32),
                                       np.float32(0.0), zeros)
    assert ok and (offset, slope) == want
    # The others known only as "at most 0": the same scale where the pool holds the reference.
    ok, offset, slope = _scale_of_pool(pool, pool.size, min(k, n), np.empty(min(k, n), dtype=np.float32),
                                       np.float32(0.0), -1)
    top = np.sort(pool)[::-1]
    holds = top.size >= min(k, n) and top[min(k, n) - 1] >= 0.0
    assert ok == holds
    if ok:
        assert (offset, slope) == want
