"""A tiny warehouse with the edge cases the views must handle, built through the raw writer."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import polars as pl

from warehouse.build import build_all
from warehouse.db import connect, create_tables
from warehouse.raw import RawWriter

GAMES = [
    # game_id, name_ja, players, minutes, age, year
    ("propolis", "プロポリス", (1, 4), (15, 30), 10, 2025),
    ("sky-team", "スカイチーム", (2, 2), (15, 15), 12, 2023),
    ("yes-man", "YESマンをさがせ", (None, None), (None, None), None, None),
    ("party-kingo", "パーティキンゴ！", (1, 65536), (20, 20), 6, 2019),
    ("khora", "コーラ", (2, 4), (75, 75), 14, 2021),
]
COLLECTION = [
    # game_id, have, played, favorite, watching, rating, updated_at
    ("propolis", True, True, True, False, 4, "2026-10-30T21:14:03+09:00"),
    ("sky-team", True, False, False, False, None, "2026-08-15T10:00:00+09:00"),
    ("yes-man", False, True, False, False, 3, "2026-09-02T19:40:00+09:00"),
    ("party-kingo", False, False, False, True, None, None),
    ("khora", False, False, True, True, 5, "2026-10-12T08:01:44+09:00"),
]


def create_marts(path: Path, tables: dict[str, pl.DataFrame]) -> None:
    """`marts.<name>` made (or replaced) from each frame: for tests that state the marts outright."""
    with connect(path) as con:
        create_tables(con, {f"marts.{name}": frame for name, frame in tables.items()}, replace=True)


def build_small_warehouse(path: Path) -> Path:
    """The tiny warehouse at `path` (a new file): built once per process, then copied.

    Why a copy: building it (raw writes and every mart) costs about half a second of CPU and
    dozens of tests start from it; the file a build leaves is the same every time, but for
    the crawl run's start and end times, which are those of the first build.
    """
    if path.exists():
        return _build_small_warehouse(path)
    global _SMALL
    if _SMALL is None:
        folder = Path(tempfile.mkdtemp(prefix="small-warehouse-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _SMALL = _build_small_warehouse(folder / "warehouse.duckdb")
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_SMALL, path)
    return path


_SMALL: Path | None = None


def _build_small_warehouse(path: Path) -> Path:
    con = connect(path)
    w = RawWriter(con, run_id="r1")
    w.start_run(base_url="http://127.0.0.1:1")
    for gid, name, (pmin, pmax), (tmin, tmax), age, year in GAMES:
        w.add("game", {
            "game_id": gid, "name_ja": name, "name_en": gid.title(), "min_players": pmin, "max_players": pmax,
            "min_minutes": tmin, "max_minutes": tmax, "min_age": age, "year": year,
            "n_have": 1, "n_played": 1, "n_favorite": 0, "n_watching": 2,
            "designers": [], "mechanics": ["ワーカープレイスメント"], "themes": ["動物"], "url": f"/games/{gid}",
        })
    for gid, have, played, fav, watch, rating, updated in COLLECTION:
        w.add("collection_entry", {"user_id": "17406", "game_id": gid, "have": have, "played": played,
                                   "favorite": fav, "watching": watch, "rating": rating, "updated_at": updated})
    w.add("member", {"user_id": "17406", "name": "ふくろう"})
    w.add("member", {"user_id": "500", "name": "空っぽ"})
    w.add("listing_crawl", {"listing": "collection", "key": "17406", "status": "public", "n_entries": 5, "n_pages": 1})
    w.add("listing_crawl", {"listing": "collection", "key": "500", "status": "empty", "n_entries": 0, "n_pages": 1})
    for slug, name, games in (("lab", "ボドゲ研究所", ["khora", "party-kingo", "propolis"]), ("cafe2", "カフェ2", ["khora"]),
                              ("none", "無縁", ["sky-team"])):
        for gid in games:
            w.add("cafe_game", {"space_slug": slug, "space_name": name, "game_id": gid})
    w.flush()
    w.finish_run(status="finished", stats={})
    build_all(con)
    con.close()
    return path


def make_warehouse(path: Path, run_id: str) -> None:
    """Marts only: users 1 and 2 have collections and recommendations; user 1 has a play-next shelf,
    user 2 a watch list."""
    recs = pl.DataFrame({
        "user_id": ["1", "1", "2"], "rank": [1, 2, 1], "game_id": ["a", "b", "c"], "score": [0.9, 0.5, 0.7],
        "model": ["ease"] * 3, "run_id": [run_id] * 3, "reason": ["プロポリスが好きなあなたに"] * 3,
    })
    similar = pl.DataFrame({"game_id": ["a", "a", "b"], "rank": [1, 2, 1], "similar_game_id": ["b", "c", "a"],
                            "score": [0.8, 0.1, 0.8], "run_id": [run_id] * 3})
    collections = pl.DataFrame({"user_id": ["1", "2"], "game_id": ["p", "q"], "have": [True, True]})
    shelf = pl.DataFrame({"user_id": ["1", "1"], "rank": [1, 2], "game_id": ["p", "r"], "score": [0.6, 0.2],
                          "reason": ["「プロポリス」が好きなあなたに", "人気のゲーム"], "run_id": [run_id] * 2})
    watched = pl.DataFrame({"user_id": ["2"], "rank": [1], "game_id": ["s"], "score": [0.4],
                            "reason": ["「キューブ・タイル」が好きなあなたに"], "run_id": [run_id]})
    create_marts(path, {"recommendations": recs, "similar_games": similar, "collections": collections,
                        "next_to_play": shelf, "watch_next": watched})
