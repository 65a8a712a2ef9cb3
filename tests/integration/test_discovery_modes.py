"""Game night (`recommend --group`) and play next (`recommend --owned-unplayed`) on a demo warehouse.

Invariants, over many groups and every member: nothing anyone at the table played, playable
with the group's size, available (someone has it or the cafe offers it, `brought_by` says
who); play next lists only games the member has and has not played. Bad input: one line.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from bodoge.cli import main
from tests.support.discovery_warehouse import shared_discovery_warehouse
from warehouse.db import connect


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return shared_discovery_warehouse(tmp_path_factory)  # read only; a test that writes copies it


def cli(demo: dict, capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = main(["recommend", *args, "--data-dir", str(demo["paths"].data_dir)])
    out, err = capsys.readouterr()
    return code, out, err


def _groups(demo: dict, n: int, size: int, seed: int) -> list[list[str]]:
    users = demo["collections"].get_column("user_id").unique().sort().to_list()
    rng = np.random.default_rng(seed)
    return [list(rng.choice(users, size=size, replace=False)) for _ in range(n)]


def _spec(demo: dict) -> dict[str, dict]:
    return {r["game_id"]: r for r in demo["games"].iter_rows(named=True)}


@pytest.mark.parametrize("size", [2, 3, 5])
def test_game_night_invariants(demo: dict, capsys: pytest.CaptureFixture, size: int) -> None:
    collections, spec = demo["collections"], _spec(demo)
    for group in _groups(demo, 6, size, seed=size):
        code, out, err = cli(demo, capsys, "--group", ",".join(group), "-n", "10", "--json")
        assert code == 0, err
        rows = json.loads(out)
        mine = collections.filter(pl.col("user_id").is_in(group))
        played = set(mine.filter(pl.col("played")).get_column("game_id"))
        owners = {g: set(u) for g, u in mine.filter(pl.col("have")).group_by("game_id")
                  .agg(pl.col("user_id")).iter_rows()}
        available = set(owners) - played
        playable = {g for g, r in spec.items() if r["min_players"] is not None
                    and r["min_players"] <= size <= (r["max_players"] or r["min_players"]) <= 100}
        assert len(rows) == min(10, len(available & playable))
        assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
        assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
        for row in rows:
            assert {"rank", "game_id", "min_players", "max_players", "min_minutes", "max_minutes", "score",
                    "reason", "brought_by"} <= set(row)
            assert row["game_id"] not in played
            assert row["min_players"] <= size <= (row["max_players"] or row["min_players"])
            assert row["brought_by"] and set(row["brought_by"]) == owners[row["game_id"]]
            assert row["reason"] and any(f"{u}さん" in row["reason"] for u in group) or row["reason"].startswith("みんなで")


def test_game_night_at_a_cafe_and_anywhere(demo: dict, capsys: pytest.CaptureFixture) -> None:
    cafes = demo["cafes"]
    slug = cafes.group_by("space_slug").len().sort("len", "space_slug").get_column("space_slug")[0]
    offered = set(cafes.filter(pl.col("space_slug") == slug).get_column("game_id"))
    group = _groups(demo, 1, 3, seed=42)[0]
    mine = demo["collections"].filter(pl.col("user_id").is_in(group))
    played = set(mine.filter(pl.col("played")).get_column("game_id"))
    owned = set(mine.filter(pl.col("have")).get_column("game_id"))
    code, out, err = cli(demo, capsys, "--group", ",".join(group), "-n", "40", "--cafe", slug, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert any(r["brought_by"] == [f"cafe:{slug}"] for r in rows)
    for row in rows:
        assert row["game_id"] not in played
        if row["brought_by"] == [f"cafe:{slug}"]:
            assert row["game_id"] in offered and row["game_id"] not in owned
        else:
            assert row["game_id"] in owned
    code, out, err = cli(demo, capsys, "--group", ",".join(group), "-n", "40", "--anywhere", "--json")
    assert code == 0, err
    anywhere = json.loads(out)
    assert any(r["brought_by"] == [] for r in anywhere)  # nobody has it, and that is allowed now
    assert not {r["game_id"] for r in anywhere} & played


def test_play_next_lists_only_owned_unplayed_games(demo: dict, capsys: pytest.CaptureFixture) -> None:
    collections = demo["collections"]
    # A game whose page never made it into the catalogue (quarantined) cannot be ranked.
    shelf = collections.filter(pl.col("have") & ~pl.col("played")).join(demo["games"].select("game_id"), on="game_id")
    with connect(demo["paths"].warehouse, read_only=True) as con:
        stored = con.sql("SELECT * FROM marts.next_to_play").pl()
    # The whole mart: every row is on its member's shelf, every shelf is there in full.
    keyed = stored.join(shelf, on=["user_id", "game_id"], how="anti")
    assert keyed.height == 0
    assert stored.height == shelf.height
    assert stored.group_by("user_id").agg((pl.col("rank").sort() == pl.int_range(1, pl.len() + 1)).all())[
        "rank"].all()
    users = shelf.group_by("user_id").len().sort("len", "user_id", descending=[True, False]).get_column("user_id")
    for user in users.head(5).to_list():
        code, out, err = cli(demo, capsys, user, "--owned-unplayed", "-n", "5", "--json")
        assert code == 0, err
        rows = json.loads(out)
        mine = set(shelf.filter(pl.col("user_id") == user).get_column("game_id"))
        assert len(rows) == min(5, len(mine))
        assert all(r["game_id"] in mine and r["reason"] for r in rows)
        assert [r["game_id"] for r in rows] == stored.filter(pl.col("user_id") == user).sort("rank")[
            "game_id"].head(5).to_list()


def test_play_next_reasons_never_name_the_shelf(demo: dict) -> None:
    """A game on the unplayed shelf is never the reason for another: reasons name games played or loved."""
    collections, games = demo["collections"], demo["games"]
    with connect(demo["paths"].warehouse, read_only=True) as con:
        stored = con.sql("SELECT * FROM marts.next_to_play").pl()
    names = games.select("game_id", pl.coalesce("name_ja", "name_en", "game_id").alias("name"))
    shelf_names = (collections.filter(pl.col("have") & ~pl.col("played")).join(names, on="game_id")
                   .select("user_id", pl.format("「{}」", "name").alias("quoted")))
    named = stored.join(shelf_names, on="user_id").filter(pl.col("reason").str.contains(pl.col("quoted"), literal=True))
    assert named.height == 0


def test_play_next_of_a_member_with_an_empty_shelf(demo: dict, capsys: pytest.CaptureFixture) -> None:
    collections = demo["collections"]
    empty = (collections.group_by("user_id").agg((pl.col("have") & ~pl.col("played")).sum().alias("n"))
             .filter(pl.col("n") == 0).sort("user_id").get_column("user_id"))
    code, out, err = cli(demo, capsys, empty[0], "--owned-unplayed", "--json")
    assert code == 0, err
    assert json.loads(out) == []


def _bad(demo: dict, capsys: pytest.CaptureFixture, *args: str) -> str:
    code, out, err = cli(demo, capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("bodoge: error: ") and len(err.strip().splitlines()) == 1, err
    return err


def test_bad_group_input_is_one_line(demo: dict, capsys: pytest.CaptureFixture) -> None:
    users = demo["collections"].get_column("user_id").unique().sort().to_list()
    private = demo["private"][0]
    assert "at least two" in _bad(demo, capsys, "--group", users[0])
    assert "at least two" in _bad(demo, capsys, "--group", f"{users[0]},{users[0]}")
    assert "unknown user 'nobody'" in _bad(demo, capsys, "--group", f"{users[0]},nobody")
    assert f"unknown user '{private}'" in _bad(demo, capsys, "--group", f"{users[0]},{private}")
    assert "unknown cafe" in _bad(demo, capsys, "--group", f"{users[0]},{users[1]}", "--cafe", "no-such-cafe")
    assert "only apply to --group" in _bad(demo, capsys, users[0], "--cafe", "x")
    assert "not both" in _bad(demo, capsys, users[0], "--group", f"{users[0]},{users[1]}")
    assert "do not apply" in _bad(demo, capsys, "--group", f"{users[0]},{users[1]}", "--players", "3")
    assert "give a USER_ID" in _bad(demo, capsys)
    assert "unknown user 'nobody'" in _bad(demo, capsys, "nobody", "--owned-unplayed")
    assert "-n must be at least 1" in _bad(demo, capsys, users[0], "--owned-unplayed", "-n", "0")


def test_play_next_ranks_again_when_the_shelf_changed_since_the_night(
    demo: dict, capsys: pytest.CaptureFixture, tmp_path
) -> None:
    """A game bought after the night is not in marts.next_to_play: the saved model ranks the shelf again."""
    import shutil

    data_dir = tmp_path / "data"
    shutil.copytree(demo["paths"].data_dir, data_dir)
    collections = demo["collections"]
    user = collections.filter(pl.col("have") & ~pl.col("played")).get_column("user_id").sort()[0]
    mine = set(collections.filter(pl.col("user_id") == user).get_column("game_id"))
    bought = next(g for g in demo["games"].get_column("game_id").sort() if g not in mine)
    with connect(data_dir / "warehouse.duckdb") as con:
        con.execute(
            "INSERT INTO marts.collections (user_id, game_id, have, played, favorite, watching) "
            "VALUES (?, ?, true, false, false, false)", [user, bought])
    code = main(["recommend", user, "--owned-unplayed", "-n", "100", "--json", "--data-dir", str(data_dir),
                 "--warehouse", str(data_dir / "warehouse.duckdb")])  # the collection as it is now
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    shelf = set(collections.filter((pl.col("user_id") == user) & pl.col("have") & ~pl.col("played"))
                .join(demo["games"].select("game_id"), on="game_id").get_column("game_id")) | {bought}
    assert {r["game_id"] for r in rows} == shelf
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1)) and all(r["reason"] for r in rows)
