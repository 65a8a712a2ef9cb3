"""The watch-list shelf on a world small enough to rank by hand.

One member, "me": loves ALPHA (お気に入り, 経験あり), has ECHO (持ってる, not played), and
watches (興味あり) BRAVO, CHARLIE and DELTA. BRAVO plays like ALPHA, CHARLIE like ECHO,
DELTA like nothing they have. The champion is popularity and the blend keeps only it and
its small popularity term (no content weight, no MMR), so the shelf's order is how many
members have each game: CHARLIE (5), BRAVO (3), DELTA (1). The reason names the liked game
nearest in content (popularity attributes nothing): 「アルファ」 for BRAVO, 「エコー」 for
CHARLIE; DELTA resembles no liked game and reads 人気のゲーム. Discovery lists none of the
five games of "me".
"""

from __future__ import annotations

from datetime import datetime, timezone

import polars as pl
import pytest

from models.discovery.blend import Blend
from models.discovery.run import Discovery, discover
from warehouse.filter_columns import with_filter_columns

ME = "me"


def _game(game_id: str, name: str, mechanics: list[str], themes: list[str], players: tuple[int, int] | None) -> dict:
    low, high = players or (None, None)
    return {"game_id": game_id, "name_ja": name, "name_en": None, "min_players": low, "max_players": high,
            "min_minutes": None, "max_minutes": None, "min_age": None, "year": None, "designers": [],
            "mechanics": mechanics, "themes": themes}


def _world() -> tuple[pl.DataFrame, pl.DataFrame]:
    games = pl.DataFrame([
        _game("alpha", "アルファ", ["ダイスロール", "陣取り"], ["宇宙"], (2, 4)),
        _game("bravo", "ブラボー", ["ダイスロール", "陣取り"], ["宇宙"], (2, 4)),
        _game("charlie", "チャーリー", ["ワーカープレイスメント"], ["農業"], (1, 5)),
        _game("echo", "エコー", ["ワーカープレイスメント"], ["農業"], (1, 5)),
        _game("delta", "デルタ", ["正体隠匿"], ["人狼"], None),
        *[_game(f"filler-{i}", f"フィラー{i}", ["セットコレクション"], ["動物"], (3, 6)) for i in range(6)],
    ], schema_overrides={"designers": pl.List(pl.String), "name_en": pl.String, "min_minutes": pl.Int64,
                         "max_minutes": pl.Int64, "min_age": pl.Int64, "year": pl.Int64})

    def entry(user: str, game: str, *, have: bool = False, played: bool = False, favorite: bool = False,
              watching: bool = False) -> dict:
        return {"user_id": user, "game_id": game, "have": have, "played": played, "favorite": favorite,
                "watching": watching, "rating": None, "updated_at": "2026-10-01T00:00:00+09:00"}

    rows = [
        entry(ME, "alpha", played=True, favorite=True), entry(ME, "echo", have=True),
        entry(ME, "bravo", watching=True), entry(ME, "charlie", watching=True), entry(ME, "delta", watching=True),
    ]
    rows += [entry(f"c{i}", "charlie", have=True, played=True) for i in range(4)]  # charlie: 5 members
    rows += [entry(f"b{i}", "bravo", have=True, played=True) for i in range(2)]  # bravo: 3 members
    rows += [entry(f"c{i}", f"filler-{i}", played=True) for i in range(4)]
    return with_filter_columns(games), pl.DataFrame(rows)


@pytest.fixture(scope="module")
def result() -> Discovery:
    games, collections = _world()
    return discover(collections=collections, games=games, posts=None, champion="popularity", params={},
                    weighting="binary", run_id="run-1", generated_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
                    blend=Blend(content=0.0, diversity=0.0))


def test_the_shelf_ranks_the_watch_list_by_hand(result: Discovery) -> None:
    mine = result.watch_next.filter(pl.col("user_id") == ME).sort("rank")
    assert mine.get_column("game_id").to_list() == ["charlie", "bravo", "delta"]
    assert mine.get_column("rank").to_list() == [1, 2, 3]
    assert mine.get_column("reason").to_list() == [
        "「エコー」が好きなあなたに", "「アルファ」が好きなあなたに", "人気のゲーム"]
    assert mine.get_column("run_id").unique().to_list() == ["run-1"]
    # Nobody else watches anything: theirs is the only watch list.
    assert result.watch_next.get_column("user_id").unique().to_list() == [ME]


def test_discovery_lists_none_of_the_members_games(result: Discovery) -> None:
    listed = result.recommendations.filter(pl.col("user_id") == ME).get_column("game_id").to_list()
    assert listed and not {"alpha", "bravo", "charlie", "delta", "echo"} & set(listed)
    assert sorted(listed) == [f"filler-{i}" for i in range(6)]
