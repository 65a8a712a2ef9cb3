"""From your watch list (`recommend --watching`, marts.watch_next, watch_next.jsonl) on a demo warehouse.

Invariants over every member: discovery never lists a game the member marked 興味あり; the
shelf lists only the member's watch list (興味あり, neither 持ってる nor 経験あり), all of it,
each game with a reason that names another kind of game of theirs. The command re-checks the
collection as it is now; bad input is one line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from bodoge.cli import main
from tests.support.discovery_warehouse import shared_discovery_warehouse
from warehouse.db import connect
from warehouse.release.export import export_bundle, verify_bundle


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return shared_discovery_warehouse(tmp_path_factory)  # read only; a test that writes copies it


def cli(data_dir: Path, capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = main(["recommend", *args, "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    return code, out, err


def _watch_list(demo: dict) -> pl.DataFrame:
    """Every member's watch list, of games the catalogue has (a quarantined page cannot be ranked)."""
    return (demo["collections"].filter(pl.col("watching") & ~pl.col("have") & ~pl.col("played"))
            .join(demo["games"].select("game_id"), on="game_id").select("user_id", "game_id"))


def _published(demo: dict, table: str) -> pl.DataFrame:
    with connect(demo["paths"].data_dir / "published.duckdb", read_only=True) as con:
        return con.sql(f"SELECT * FROM marts.{table}").pl()


def _watchers(demo: dict, n: int) -> list[str]:
    sizes = _watch_list(demo).group_by("user_id").len()
    return sizes.sort("len", "user_id", descending=[True, False]).get_column("user_id").head(n).to_list()


def test_no_members_discovery_list_holds_a_watched_game(demo: dict, capsys: pytest.CaptureFixture) -> None:
    recs, watched = _published(demo, "recommendations"), _watch_list(demo)
    assert recs.height > 0 and watched.height > 0
    assert recs.join(demo["collections"], on=["user_id", "game_id"], how="semi").height == 0
    assert not recs.get_column("reason").str.contains("興味ありに登録済み").any()
    assert "watching" not in recs.columns
    for user in _watchers(demo, 5):
        code, out, err = cli(demo["paths"].data_dir, capsys, user, "-n", "100", "--json")
        assert code == 0, err
        rows = json.loads(out)
        mine = set(watched.filter(pl.col("user_id") == user).get_column("game_id"))
        assert len(rows) == recs.filter(pl.col("user_id") == user).height > 0  # all the games new to them
        assert not {r["game_id"] for r in rows} & mine
        assert all("watching" not in r for r in rows)


def test_watching_ranks_only_the_watch_list_with_reasons(demo: dict, capsys: pytest.CaptureFixture) -> None:
    stored, watched = _published(demo, "watch_next"), _watch_list(demo)
    # The whole mart: every row is on its member's watch list, every watch list is there in full.
    assert stored.join(watched, on=["user_id", "game_id"], how="anti").height == 0
    assert stored.height == watched.height
    assert stored.group_by("user_id").agg((pl.col("rank").sort() == pl.int_range(1, pl.len() + 1)).all())[
        "rank"].all()
    for user in _watchers(demo, 5):
        code, out, err = cli(demo["paths"].data_dir, capsys, user, "--watching", "-n", "5", "--json")
        assert code == 0, err
        rows = json.loads(out)
        mine = set(watched.filter(pl.col("user_id") == user).get_column("game_id"))
        assert len(rows) == min(5, len(mine))
        assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
        assert all(r["game_id"] in mine and r["reason"] for r in rows)
        assert {"rank", "game_id", "min_players", "max_players", "min_minutes", "max_minutes", "score",
                "reason"} <= set(rows[0])
        assert [r["game_id"] for r in rows] == stored.filter(pl.col("user_id") == user).sort("rank")[
            "game_id"].head(5).to_list()
    code, out, err = cli(demo["paths"].data_dir, capsys, _watchers(demo, 1)[0], "--watching", "-n", "3")
    assert code == 0 and "の興味ありの中からおすすめ" in out and "(興味あり)" not in out


def test_watch_list_reasons_never_name_the_watch_list(demo: dict) -> None:
    """A game on the watch list is never the reason for another: reasons name games played, had or loved."""
    stored, games = _published(demo, "watch_next"), demo["games"]
    names = games.select("game_id", pl.coalesce("name_ja", "name_en", "game_id").alias("name"))
    listed = (_watch_list(demo).join(names, on="game_id")
              .select("user_id", pl.format("「{}」", "name").alias("quoted")))
    named = stored.join(listed, on="user_id").filter(pl.col("reason").str.contains(pl.col("quoted"), literal=True))
    assert named.height == 0
    assert stored.get_column("reason").str.contains(r"^(「.+」が好きなあなたに|人気のゲーム|あなたへのおすすめ)$").all()


def test_watching_re_checks_the_collection_now(demo: dict, capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """Since the night the member marked one game 興味あり and played one of their watch list."""
    data_dir = tmp_path / "data"
    shutil.copytree(demo["paths"].data_dir, data_dir)
    user = _watchers(demo, 1)[0]
    mine = set(demo["collections"].filter(pl.col("user_id") == user).get_column("game_id"))
    before = set(_watch_list(demo).filter(pl.col("user_id") == user).get_column("game_id"))
    recs = _published(demo, "recommendations").filter(pl.col("user_id") == user).sort("rank")
    spotted = recs.get_column("game_id")[0]  # their discovery's first game: now on their watch list
    played = sorted(before)[0]
    assert spotted not in mine
    with connect(data_dir / "warehouse.duckdb") as con:
        con.execute("INSERT INTO marts.collections (user_id, game_id, have, played, favorite, watching) "
                    "VALUES (?, ?, false, false, false, true)", [user, spotted])
        con.execute("UPDATE marts.collections SET played = true WHERE user_id = ? AND game_id = ?", [user, played])
    now = ["--data-dir", str(data_dir), "--warehouse", str(data_dir / "warehouse.duckdb")]  # the collection now
    code = main(["recommend", user, "--watching", "-n", "100", "--json", *now])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    assert {r["game_id"] for r in rows} == before - {played} | {spotted}
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1)) and all(r["reason"] for r in rows)
    code = main(["recommend", user, "-n", "10", "--json", *now])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert spotted not in {r["game_id"] for r in json.loads(out)}


def test_the_export_holds_watch_next(demo: dict, tmp_path: Path) -> None:
    with connect(demo["paths"].warehouse, read_only=True) as con:
        bundle = export_bundle(con, tmp_path / "exports")
    manifest = verify_bundle(bundle.path)
    stored = _published(demo, "watch_next")
    lines = [json.loads(x) for x in (bundle.path / "watch_next.jsonl").read_text(encoding="utf-8").splitlines()]
    assert manifest["counts"]["watch_next_users"] == len(lines) == stored.get_column("user_id").n_unique() > 0
    assert manifest["counts"]["watch_next"] == sum(len(line["items"]) for line in lines) == stored.height
    assert "watch_next.jsonl" in manifest["files"]
    first = lines[0]
    expected = stored.filter(pl.col("user_id") == first["user_id"]).sort("rank")
    assert set(first) == {"user_id", "items"}
    assert [item["game_id"] for item in first["items"]] == expected.get_column("game_id").to_list()
    assert all(set(item) == {"rank", "game_id", "score", "reason"} for item in first["items"])


def _bad(demo: dict, capsys: pytest.CaptureFixture, *args: str) -> str:
    code, out, err = cli(demo["paths"].data_dir, capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("bodoge: error: ") and len(err.strip().splitlines()) == 1, err
    return err


def test_bad_watching_input_is_one_line(demo: dict, capsys: pytest.CaptureFixture) -> None:
    users = demo["collections"].get_column("user_id").unique().sort().to_list()
    assert "unknown user 'nobody'" in _bad(demo, capsys, "nobody", "--watching")
    assert f"unknown user '{demo['private'][0]}'" in _bad(demo, capsys, demo["private"][0], "--watching")
    assert "two different shelves" in _bad(demo, capsys, users[0], "--watching", "--owned-unplayed")
    assert "not both" in _bad(demo, capsys, "--group", f"{users[0]},{users[1]}", "--watching")
    assert "do not apply to --watching" in _bad(demo, capsys, users[0], "--watching", "--players", "3")
    assert "-n must be at least 1" in _bad(demo, capsys, users[0], "--watching", "-n", "0")
