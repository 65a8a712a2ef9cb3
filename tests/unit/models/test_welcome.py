"""Welcome lists (models.discovery.welcome): a list for members the model has nothing personal for.

Hand-made collections with known answers: who is "like" a member, what they hold, what is
never listed, and the scores' order."""

from __future__ import annotations

import polars as pl
import pytest

from models.discovery.reasons import REASON_POPULAR
from models.discovery.welcome import (
    MIN_NEIGHBOURS,
    REASON_WELCOME,
    REASON_WELCOME_NEAR,
    counts,
    unscored,
    welcome_lists,
    with_member_replaced,
    with_welcome,
)

GAMES = pl.Series("game_id", ["a", "b", "c", "d", "e", "f"], dtype=pl.String)


def _rows(entries: list[tuple[str, str, bool]]) -> pl.DataFrame:
    return pl.DataFrame(
        {"user_id": [u for u, _, _ in entries], "game_id": [g for _, g, _ in entries],
         "have": [h for _, _, h in entries], "played": [False] * len(entries), "favorite": [False] * len(entries),
         "watching": [not h for _, _, h in entries], "rating": [None] * len(entries)},
        schema_overrides={"rating": pl.Float64},
    )


# Six "e" fans who all have "f" (and two of them "c"); "a" is held by nearly everyone else.
FANS = [(f"fan{i}", "e", True) for i in range(6)] + [(f"fan{i}", "f", True) for i in range(6)] + [
    ("fan0", "c", True), ("fan1", "c", True)]
CROWD = [(f"p{i}", "a", True) for i in range(9)] + [(f"p{i}", "b", True) for i in range(4)] + [
    ("p0", "b", False), ("w0", "d", False)]
ROWS = _rows(FANS + CROWD)


def test_nothing_known_gives_the_games_most_held_overall() -> None:
    out = welcome_lists(ROWS, GAMES, ["new"], depth=None)
    assert out.get_column("game_id").to_list() == ["a", "e", "f", "b", "c", "d"]
    assert set(out.get_column("reason")) == {REASON_WELCOME}
    assert out.get_column("rank").to_list() == [1, 2, 3, 4, 5, 6]
    people = ROWS.get_column("user_id").n_unique()
    assert out.get_column("score").to_list()[:2] == [9 / people, 6 / people]
    assert out.select(pl.col("score").diff().drop_nulls().le(0).all()).item()  # never rises down the list


def test_members_like_them_come_first_and_known_games_never() -> None:
    """A member who wrote a post about "e" (a hint) is like the six "e" fans: what they hold
    comes first (at least two of them), then the rest; "e" itself is never listed."""
    hints = pl.DataFrame({"user_id": ["new"], "game_id": ["e"]})
    out = welcome_lists(ROWS, GAMES, ["new"], hints=hints, depth=None)
    assert out.get_column("game_id").to_list() == ["f", "c", "a", "b", "d"]
    assert out.get_column("reason").to_list() == [REASON_WELCOME_NEAR] * 2 + [REASON_WELCOME] * 3
    assert out.get_column("score").to_list()[:2] == [1 + 6 / 6, 1 + 2 / 6]
    assert out.select(pl.col("score").diff().drop_nulls().le(0).all()).item()
    # their own collection works the same way, and its games are never listed
    # (holding "e" or "a": the six fans and nine others; "b" is held by four of them, "c" by two)
    mine = welcome_lists(pl.concat([ROWS, _rows([("new", "e", True), ("new", "a", False)])]), GAMES, ["new"], depth=3)
    assert mine.get_column("game_id").to_list() == ["f", "b", "c"]
    assert mine.get_column("score").to_list() == [1 + 6 / 15, 1 + 4 / 15, 1 + 2 / 15]


@pytest.mark.parametrize(("member", "posted"), [
    ("fan0", [("fan0", "a", True), ("fan0", "d", False)]),  # a fan changes taste: "e" and "f" lose a holder
    ("p3", []),  # a member empties their collection: one member fewer with a collection
    ("new", [("new", "e", True), ("new", "b", True)]),  # a new member: one more
    ("w0", [("w0", "d", True)]),  # 興味あり becomes 持ってる
])
def test_one_member_replaced_counts_as_counting_everyone_again(member: str, posted: list) -> None:
    """The API's welcome list for a posted collection: everyone's rows with the member's in
    place of theirs, counted from the night's counts (``with_member_replaced``) rather than
    from all rows again; the lists and the totals are the same."""
    old = ROWS.filter(pl.col("user_id") == member)
    new = _rows(posted) if posted else ROWS.head(0)
    everyone = pl.concat([ROWS.filter(pl.col("user_id") != member), new])
    again, replaced = counts(everyone, GAMES), with_member_replaced(counts(ROWS, GAMES), old, new)
    assert replaced.people == again.people and (replaced.overall == again.overall).all()
    assert (replaced.overall_score == again.overall_score).all()
    for hints in (None, pl.DataFrame({"user_id": [member], "game_id": ["e"]})):
        expected = welcome_lists(everyone, GAMES, [member], hints=hints, depth=None)
        got = welcome_lists(ROWS, GAMES, [member], hints=hints, depth=None, counted=replaced, theirs=new)
        assert got.equals(expected), (member, hints)


def test_too_few_members_like_them_read_as_nothing_known() -> None:
    hints = pl.DataFrame({"user_id": ["new"], "game_id": ["d"]})  # one member holds "d"
    assert MIN_NEIGHBOURS > 1
    out = welcome_lists(ROWS, GAMES, ["new"], hints=hints, depth=None)
    assert set(out.get_column("reason")) == {REASON_WELCOME} and "d" not in out.get_column("game_id").to_list()


def test_every_public_member_gets_a_line_and_personal_lists_stay_as_they_were() -> None:
    ranked = pl.DataFrame({
        "user_id": ["fan0", "fan0", "p1", "p1"], "rank": [1, 2, 1, 2], "game_id": ["a", "b", "c", "d"],
        "score": [0.9, 0.5, 0.3, 0.2], "reason": ["「E」が好きなあなたに", "あなたへのおすすめ", REASON_POPULAR, REASON_POPULAR],
    }, schema_overrides={"rank": pl.Int32})
    assert unscored(ranked) == ["p1"]
    merged, welcomed = with_welcome(ranked, ROWS, GAMES, public=["fan0", "new", "p1"], hints=None, depth=4)
    assert welcomed == ["new", "p1"]
    assert merged.filter(pl.col("user_id") == "fan0").equals(ranked.head(2))
    assert merged.group_by("user_id").len().sort("user_id").get_column("len").to_list() == [2, 4, 4]
    assert set(merged.filter(pl.col("user_id") == "p1").get_column("game_id")).isdisjoint({"a", "b"})  # p1 has a, b
    assert merged.schema == ranked.schema
    # nobody to welcome: the frame comes back untouched
    same, none = with_welcome(ranked.head(2), ROWS, GAMES, public=["fan0"], hints=None, depth=4)
    assert none == [] and same.equals(ranked.head(2))
