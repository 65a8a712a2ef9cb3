"""Collection views and cafes for a member: filters, sorts, missing values, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.db import connect
from warehouse.views import UnknownUserError, cafes_for, collection, parse_count


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return build_small_warehouse(tmp_path_factory.mktemp("wh") / "warehouse.duckdb")


@pytest.fixture()
def con(warehouse):
    c = connect(warehouse, read_only=True)
    yield c
    c.close()


def ids(rows) -> list[str]:
    return [r["game_id"] for r in rows]


def test_sort_by_players_is_min_then_max_with_missing_last(con) -> None:
    # propolis 1–4 before party-kingo 1–65536 (same min, smaller max); sky-team 2 is 2–2
    assert ids(collection(con, "17406", sort="players")) == ["propolis", "party-kingo", "sky-team", "khora", "yes-man"]


def test_reverse_keeps_missing_last(con) -> None:
    assert ids(collection(con, "17406", sort="players", reverse=True))[-1] == "yes-man"


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("time", ["sky-team", "propolis", "party-kingo", "khora", "yes-man"]),
        ("age", ["party-kingo", "propolis", "sky-team", "khora", "yes-man"]),
        ("year", ["party-kingo", "khora", "sky-team", "propolis", "yes-man"]),
        ("updated", ["propolis", "khora", "yes-man", "sky-team", "party-kingo"]),
    ],
)
def test_sorts(con, sort, expected) -> None:
    assert ids(collection(con, "17406", sort=sort)) == expected


def test_playable_with_n_players(con) -> None:
    # a single value 2人 is 2–2; a missing count and the placeholder 1–65536人 are unknown
    two = set(ids(collection(con, "17406", players=2)))
    assert two == {"propolis", "sky-team", "khora"}
    assert set(ids(collection(con, "17406", players=1))) == {"propolis"}
    assert set(ids(collection(con, "17406", players=5))) == set()


def test_status_filter(con) -> None:
    assert set(ids(collection(con, "17406", status="favorite"))) == {"propolis", "khora"}
    assert set(ids(collection(con, "17406", status="watching", players=3))) == {"khora"}


@pytest.mark.parametrize(("text", "value"), [("4", 4), ("４", 4), ("4人", 4), ("４人", 4), (3, 3)])
def test_player_count_input(text, value) -> None:
    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["", "two", "0", "-1", "2-4"])
def test_bad_player_count(text) -> None:
    with pytest.raises(ValueError):
        parse_count(text)


def test_unknown_user(con) -> None:
    with pytest.raises(UnknownUserError):
        collection(con, "999")


def test_empty_member_is_known_and_empty(con) -> None:
    assert collection(con, "500") == []
    assert cafes_for(con, "500") == []


def test_cafes_best_first(con) -> None:
    cafes = cafes_for(con, "17406")
    assert [c["space_slug"] for c in cafes] == ["lab", "cafe2"]  # sky-team is neither watched nor a favourite
    assert cafes[0]["n_games"] == 3 and cafes[0]["n_favorite"] == 2
    assert {g["game_id"] for g in cafes[0]["games"]} == {"khora", "party-kingo", "propolis"}
