"""Discovery ranked over a pool per member gives exactly the exhaustive lists.

``models.discovery.pool`` blends each member's list over a few hundred games and proves
with a bound that no game outside could enter it; members without the proof are ranked
exhaustively. On the demo's site (``bodoge demo``: 1,000 games, 2,000 members) every
member's rows, scores (bit for bit) and reasons equal the exhaustive path's, at the
night's batch size and at 40 members a batch; with a pool too small for most members the
fallback keeps the lists the same; members the champion does not know (content and
popularity alone) are covered too.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

import models.discovery.model as discovery_model
import models.discovery.pool as discovery_pool
from models.discovery.model import DiscoveryModel
from tests.models.discovery_data import demo_discovery


@pytest.fixture(scope="module")
def demo() -> tuple[DiscoveryModel, pl.DataFrame, list[str]]:
    return demo_discovery()


def _both(state: DiscoveryModel, rows: pl.DataFrame, users: list[str]) -> tuple[pl.DataFrame, dict[str, int],
                                                                                 pl.DataFrame, dict[str, int]]:
    state.pooling = True
    pooled, pooled_counts = state.rank(rows, users, 100)
    state.pooling = False
    try:
        exhaustive, exhaustive_counts = state.rank(rows, users, 100)
    finally:
        state.pooling = True
    return pooled, pooled_counts, exhaustive, exhaustive_counts


def _same_counts(pooled: dict[str, int], exhaustive: dict[str, int]) -> None:
    assert exhaustive["users_pool_fallback"] == 0
    assert {k: v for k, v in pooled.items() if k != "users_pool_fallback"} == {
        k: v for k, v in exhaustive.items() if k != "users_pool_fallback"
    }


@pytest.mark.parametrize("batch", [discovery_model.USER_BATCH, 40])
def test_every_demo_members_list_equals_the_exhaustive_one(demo, batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    state, rows, users = demo
    monkeypatch.setattr(discovery_model, "USER_BATCH", batch)
    pooled, pooled_counts, exhaustive, exhaustive_counts = _both(state, rows, users)
    assert exhaustive.height == 100 * len(users)
    assert pooled.equals(exhaustive)  # same games, ranks, scores (bit for bit) and reasons, in the same order
    _same_counts(pooled_counts, exhaustive_counts)
    # The pool decided for most members (measured: 22 of 1,802 fall back).
    assert pooled_counts["users_pool_fallback"] < len(users) // 20


def test_a_pool_too_small_falls_back_to_the_same_lists(demo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A margin of 5 games: the certificate fails for most members (ranked exhaustively)
    and holds for a few (ranked from the pool); both kinds end in one batch's rows."""
    state, rows, users = demo
    monkeypatch.setattr(discovery_model, "USER_BATCH", 128)
    monkeypatch.setattr(discovery_pool, "POOL_MARGIN", 5)
    pooled, pooled_counts, exhaustive, exhaustive_counts = _both(state, rows, users[:600])
    assert 0 < pooled_counts["users_pool_fallback"] < 600
    assert pooled.equals(exhaustive)
    _same_counts(pooled_counts, exhaustive_counts)


def test_members_the_champion_does_not_know(demo) -> None:
    """New members (not in the champion's matrix): one with liked games (content alone),
    one with only 興味あり games (the watch-list fallback), one whose every row is a low
    rating (popularity alone); and a member with a single game."""
    state, rows, users = demo
    games = rows.get_column("game_id").unique().sort().to_list()

    def member(user: str, picks: list[str], **flags: object) -> pl.DataFrame:
        base = {"have": False, "played": False, "favorite": False, "watching": False, "rating": None}
        base.update(flags)
        return pl.DataFrame([{"user_id": user, "game_id": game, **base} for game in picks], schema=rows.schema)

    extra = pl.concat([
        member("zz-content", games[10:40], played=True, rating=5.0),
        member("zz-watching", games[100:104], watching=True),
        member("zz-popularity", games[200:205], played=True, rating=1.0),
        member("zz-single", games[300:301], have=True),
    ])
    everyone = pl.concat([rows, extra])
    chosen = users[:100] + sorted(extra.get_column("user_id").unique().to_list())
    pooled, pooled_counts, exhaustive, exhaustive_counts = _both(state, everyone, chosen)
    assert pooled.equals(exhaustive)
    _same_counts(pooled_counts, exhaustive_counts)
    assert pooled_counts["users_content_fallback"] >= 2 and pooled_counts["users_popularity_only"] >= 1
    listed = pooled.filter(pl.col("user_id").str.starts_with("zz-")).group_by("user_id").len()
    assert listed.height == 4 and (listed.get_column("len") == 100).all()


def test_a_popularity_penalty_set_between_runs(demo) -> None:
    """A long-tail boost larger than popularity's weight turns its term negative (the most
    collected games score lowest); set on a model that has already ranked, the pool's
    popularity bound follows it."""
    state, rows, users = demo
    state.rank(rows, users[:50], 100)
    plain = state.blend
    state.blend = replace(plain, tail=0.5)
    try:
        pooled, pooled_counts, exhaustive, exhaustive_counts = _both(state, rows, users[:300])
    finally:
        state.blend = plain
    assert pooled.equals(exhaustive)
    _same_counts(pooled_counts, exhaustive_counts)
    assert not pooled.equals(_both(state, rows, users[:300])[0])  # the penalty changed the lists
