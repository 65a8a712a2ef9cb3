"""``reasons.anchor_concentration``: who has one game named on most of their top 10."""

from __future__ import annotations

import polars as pl

from models.discovery.reasons import REASON_LIKED, REASON_POPULAR, REASON_WATCHED_ONLY, anchor_concentration


def test_a_list_naming_one_game_on_8_of_its_first_10_slots_counts_and_others_do_not() -> None:
    rows = {
        "a": [REASON_LIKED.format("竜")] * 8 + [REASON_POPULAR] * 2,  # counts
        "b": [REASON_WATCHED_ONLY.format("竜")] * 3 + [REASON_LIKED.format("x")] * 7,  # 7 at most
        "c": [REASON_POPULAR] * 10 + [REASON_LIKED.format("y")] * 8,  # past the first 10 only
    }
    frame = pl.DataFrame({
        "user_id": [u for u, reasons in rows.items() for _ in reasons],
        "rank": [r for reasons in rows.values() for r in range(1, len(reasons) + 1)],
        "reason": [reason for reasons in rows.values() for reason in reasons],
    })
    assert anchor_concentration(frame) == (1, 3)
    assert anchor_concentration(frame, slots=7) == (2, 3)
    assert anchor_concentration(frame, top=18) == (2, 3)
    assert anchor_concentration(frame.head(0)) == (0, 0)
