"""Discovery's serving filter (players, minutes, n) on hand-made rows, and the blend's scale."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.discovery.serving import filter_recommendations
from warehouse.filter_columns import with_filter_columns

GAMES = with_filter_columns(pl.DataFrame(
    {
        "game_id": ["a", "b", "c", "d", "e", "f", "g"],
        "min_players": [2, 1, 3, None, 2, 3, 2],
        "max_players": [4, 1, 65536, 5, None, 6, 2],
        "min_minutes": [30, 10, 20, 15, None, 60, 45],
        "max_minutes": [60, None, 30, 15, None, 2000, 45],
    }
))
RECS = pl.DataFrame(
    {
        "user_id": ["u"] * 7 + ["v"] * 2,
        "rank": [1, 2, 3, 4, 5, 6, 7, 1, 2],
        "game_id": ["a", "b", "c", "d", "e", "f", "g", "g", "a"],
        "score": [7.0, 6, 5, 4, 3, 2, 1, 2, 1],
    }
)


def _filtered(**kwargs) -> dict[str, list[str]]:
    frame = filter_recommendations(RECS, GAMES, **kwargs)
    return {user: frame.filter(pl.col("user_id") == user).get_column("game_id").to_list() for user in ("u", "v")}


def test_filter_by_players() -> None:
    # c: 3–65536人 (implausible: unknown); d: no min (unknown); e: 2人 with no max is 2–2;
    # f 3–6, a 2–4, g 2–2.
    assert _filtered(players=2, max_minutes=None, n=10) == {"u": ["a", "e", "g"], "v": ["g", "a"]}
    assert _filtered(players=4, max_minutes=None, n=10) == {"u": ["a", "f"], "v": ["a"]}
    assert _filtered(players=3, max_minutes=None, n=10)["u"] == ["a", "f"]
    assert _filtered(players=1, max_minutes=None, n=10)["u"] == ["b"]


def test_filter_by_minutes() -> None:
    # b has only a minimum (10): it counts; e has none; f's 60–2000 minutes is implausible
    # (more than a day), so its play time is unknown.
    assert _filtered(players=None, max_minutes=30, n=10)["u"] == ["b", "c", "d"]
    assert _filtered(players=None, max_minutes=60, n=10)["u"] == ["a", "b", "c", "d", "g"]


def test_filter_combined_and_n() -> None:
    assert _filtered(players=2, max_minutes=45, n=10)["u"] == ["g"]  # e has no time
    assert _filtered(players=None, max_minutes=None, n=2) == {"u": ["a", "b"], "v": ["g", "a"]}
    frame = filter_recommendations(RECS, GAMES, players=None, max_minutes=None, n=3)
    assert frame.columns == RECS.columns
    assert frame.filter(pl.col("user_id") == "u").get_column("rank").to_list() == [1, 2, 3]


def test_filter_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        filter_recommendations(RECS, GAMES, players=0, max_minutes=None, n=3)


def test_reference_scale_maps_best_to_one_and_reference_to_zero() -> None:
    from models.discovery.blend import reference_scale

    values = np.array(
        [[5.0, 4.0, 3.0, 1.0], [2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [9.0, 1.0, 3.0, 2.0]],
        dtype=np.float32,
    )
    mask = np.ones_like(values, dtype=bool)
    mask[3, 0] = False  # an excluded game does not set the scale
    offset, slope = reference_scale(values, mask, 3)
    scaled = (values - offset[:, None]) * slope[:, None]
    np.testing.assert_allclose(scaled[0], [1.0, 0.5, 0.0, -1.0])
    np.testing.assert_allclose(scaled[1], [1.0, 1.0, 0.0, 0.0])  # best equals the 3rd best: divide by the best
    assert slope[2] == 0  # no signal
    np.testing.assert_allclose(scaled[3, 1:], [0.0, 1.0, 0.5])  # 3 is best, 1 the 3rd best
