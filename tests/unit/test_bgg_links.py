"""Linking BGG to the site: game matches, the BGG marts, and linked members' training rows.

The matching is checked on a hand-made warehouse; the rest on a real crawl of a small
sample site, a real BGG sync against the replay server, and real DuckDB builds.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest

from scrapers.bgg_store import upsert
from warehouse.bgg_links import link_games, normalize_name, read_overrides
from warehouse.raw import ensure_raw_schema
WHEN = datetime(2026, 11, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(("name", "key"), [
    ("Brass: Lancashire", "brasslancashire"), ("ブラス：ランカシャー", "ブラスランカシャー"),
    ("ＣＯＵＰ", "coup"), ("The  Castles of Burgundy!", "thecastlesofburgundy"), (None, ""),
])
def test_normalize_name(name: str | None, key: str) -> None:
    assert normalize_name(name) == key


def _thing(bgg_id: int, name: str, year: int | None, alternates: list[str] = (), kind: str = "boardgame") -> dict:
    return {"bgg_id": bgg_id, "thing_type": kind, "name": name, "alternate_names": list(alternates), "year": year,
            "poll_source": "none", "run_id": "r", "fetched_at": WHEN}


def test_matches_ambiguities_misses_and_overrides(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    ensure_raw_schema(con)
    con.execute("""INSERT INTO raw.games (game_id, name_ja, name_en, year, run_id, fetched_at) VALUES
        ('harbor', 'ハーバーライツ', 'Harbor Lights', 2019, 'r', now()),
        ('river', 'リバートレーダーズ', NULL, 2021, 'r', now()),
        ('coup', 'クー', 'Coup', NULL, 'r', now()),
        ('agricola', 'アグリコラ', 'Agricola', 2007, 'r', now())""")
    upsert(con, "bgg_things", [
        _thing(1, "Harbor Lights", 2019, ["ハーバーライツ"]),
        _thing(2, "River Traders", 2021, ["Flussh\u00e4ndler", "リバートレーダーズ"]),
        _thing(3, "Harbor Lights: Night Market", 2020, kind="boardgameexpansion"),
        _thing(4, "Coup", 1991), _thing(5, "Coup", 2012),  # the site's Coup has no year: both claim it
        _thing(6, "Agricola", 2016),  # another year: not the site's 2007 Agricola
        _thing(7, "Nothing Like It", 2000),
        _thing(8, "Harbor Lights", 2019),  # a second thing for the same site game... settled by an override
    ])
    report = link_games(con, overrides={8: None, 9: "agricola"}, run_id="r1")
    matches = dict(((b, (g, m)) for b, g, m in con.execute(
        "SELECT bgg_id, game_id, method FROM raw.bgg_game_matches").fetchall()))
    assert matches == {1: ("harbor", "name_year"), 2: ("river", "alternate_year"), 9: ("agricola", "override")}
    assert report["matched"] == 3 and report["by_method"] == {"name_year": 1, "alternate_year": 1, "override": 1}
    assert {"game_id": "coup", "bgg_ids": [4, 5], "reason": "several BGG things match"} in report["ambiguities"]
    assert {m["bgg_id"] for m in report["misses"]} == {6, 7} and report["things"] == 7
    con.close()


def test_overrides_file(tmp_path: Path) -> None:
    path = tmp_path / "overrides.csv"
    path.write_text("bgg_id,game_id\n31260,agricola\n1653,\n", encoding="utf-8")
    assert read_overrides(path) == {31260: "agricola", 1653: None}
    path.write_text("bgg_id,game_id\nx,agricola\n", encoding="utf-8")
    with pytest.raises(ValueError, match="must be a number"):
        read_overrides(path)
