"""`bodoge similar`, `collection --max-minutes`, trimmed ids, the summary's counts and the
sample site that continues the demo's, on a demo warehouse (`tests/support/discovery_warehouse.py`).

Issue 23, item 6: numbers and examples that tell the truth.
"""

from __future__ import annotations

import json

import polars as pl
import pytest

from bodoge.cli import main
from bodoge.jobs import JobSummary
from bodoge.summary import example_member, print_summary
from tests.support.discovery_warehouse import shared_discovery_warehouse
from warehouse.db import connect


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return shared_discovery_warehouse(tmp_path_factory)  # read only; a test that writes copies it


def cli(demo: dict, capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """`bodoge ARGS --data-dir DIR` in this process: (exit code, stdout, stderr)."""
    try:
        code = main([*args, "--data-dir", str(demo["paths"].data_dir)])
    except SystemExit as exc:  # argparse refuses a flag: one line, exit 2
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def published(demo: dict, query: str, params: list | None = None) -> pl.DataFrame:
    with connect(demo["paths"].data_dir / "published.duckdb", read_only=True) as con:
        return con.sql(query, params=params or []).pl()


def a_member(demo: dict) -> str:
    return demo["collections"].group_by("user_id").len().sort(["len", "user_id"], descending=True)["user_id"][0]


# -- bodoge similar -------------------------------------------------------------------------


def test_similar_answers_the_nights_stored_list_with_names(demo: dict, capsys: pytest.CaptureFixture) -> None:
    stored = published(demo, "SELECT game_id, rank, similar_game_id, score FROM marts.similar_games ORDER BY game_id, rank")
    game = stored["game_id"][0]
    expected = stored.filter(pl.col("game_id") == game)
    code, out, err = cli(demo, capsys, "similar", game, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["game_id"] for r in rows] == expected["similar_game_id"].to_list()
    assert [r["rank"] for r in rows] == list(range(1, expected.height + 1))
    assert [r["score"] for r in rows] == pytest.approx(expected["score"].to_list())
    names = dict(published(demo, "SELECT game_id, name_ja FROM marts.games").iter_rows())
    assert [r["name_ja"] for r in rows] == [names[g] for g in expected["similar_game_id"]]

    code, out, err = cli(demo, capsys, "similar", f"  {game} ", "-n", "3")
    assert code == 0, err
    assert f"{names[game]}" in out and "に似たゲーム (3 games)" in out
    assert names[expected["similar_game_id"][0]] in out and names[expected["similar_game_id"][3]] not in out


# -- collection --max-minutes: the one rule -------------------------------------------------


def test_collection_max_minutes_is_the_one_rule(demo: dict, capsys: pytest.CaptureFixture) -> None:
    user = a_member(demo)
    truth = published(demo, "SELECT c.game_id, g.minutes_to, g.players_from, g.players_to FROM marts.collections c "
                            "JOIN marts.games g USING (game_id) WHERE c.user_id = ?", [user])
    for minutes in (15, 30, 60):
        code, out, err = cli(demo, capsys, "collection", user, "--max-minutes", str(minutes), "--json")
        assert code == 0, err
        fits = truth.filter(pl.col("minutes_to") <= minutes)["game_id"].to_list()
        assert sorted(r["game_id"] for r in json.loads(out)) == sorted(fits)
    code, out, _ = cli(demo, capsys, "collection", user, "--max-minutes", "45", "--players", "4", "--json")
    both = truth.filter((pl.col("minutes_to") <= 45) & (pl.col("players_from") <= 4) & (pl.col("players_to") >= 4))
    assert code == 0 and sorted(r["game_id"] for r in json.loads(out)) == sorted(both["game_id"])
    code, out, err = cli(demo, capsys, "collection", user, "--max-minutes", "0")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--max-minutes" in err


# -- ids are trimmed where the arguments are parsed ------------------------------------------


def test_ids_are_trimmed(demo: dict, capsys: pytest.CaptureFixture) -> None:
    users = sorted(demo["collections"]["user_id"].unique())
    user, other = users[0], users[1]
    cafe = demo["cafes"]["space_slug"][0]
    for command in (["recommend", "-n", "5"], ["collection"], ["cafes"], ["recommend", "--owned-unplayed"]):
        plain = cli(demo, capsys, command[0], user, *command[1:], "--json")
        padded = cli(demo, capsys, command[0], f" {user}\u3000", *command[1:], "--json")
        assert plain[0] == padded[0] == 0, padded[2]
        assert plain[1] == padded[1]
    plain = cli(demo, capsys, "recommend", "--group", f"{user},{other}", "--cafe", cafe, "--json")
    padded = cli(demo, capsys, "recommend", "--group", f" {user}, {other} ,", "--cafe", f" {cafe}", "--json")
    assert plain[0] == padded[0] == 0, padded[2]
    assert plain[1] == padded[1]
    code, out, err = cli(demo, capsys, "collection", "   ")
    assert code == 2 and out == "" and err.startswith("bodoge: error:") and "empty" in err and err.count("\n") == 1


# -- the summary counts what the member has, not what it shows -------------------------------


def test_summary_says_the_members_count_and_how_many_are_shown(demo: dict, capsys: pytest.CaptureFixture) -> None:
    paths = demo["paths"]
    with connect(paths.data_dir / "published.duckdb", read_only=True) as con:
        user = example_member(con)
    assert user is not None
    n_games = demo["collections"].filter(pl.col("user_id") == user).height
    assert n_games > 8
    print_summary(paths, JobSummary(run_id="run-demo", seconds=1.0))
    out = capsys.readouterr().out
    assert f"{user} のマイボードゲーム ({n_games} games, 8 shown)" in out
    n_stored = demo["collections"].height and published(
        demo, "SELECT count(*) AS n FROM marts.recommendations WHERE user_id = ?", [user])["n"][0]
    assert f"discovery, the first 5 of {n_stored}" in out
