"""Cut pages: every parser refuses them, `bodoge parse` names them, a crawl keeps what it had.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_truncation.py.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from samplesite.faults import TRUNCATED_REASON, cut_collections, cut_games
from samplesite.generator import generate_site
from samplesite.model import Site
from samplesite.render import render
from samplesite.server import SampleSiteServer
from tests.support.crawl_fixtures import crawl_and_build
from warehouse.db import connect

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small_site() -> Site:
    return generate_site(n_games=60, n_users=80, seed=11)


def _run_parse(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", "parse", str(path), *extra], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_bodoge_parse_on_a_cut_page_fails_with_one_line(small_site: Site, tmp_path: Path) -> None:
    game = next(g for g in small_site.games if g.index in cut_games(small_site))
    page = tmp_path / "cut.html"
    page.write_bytes(render(small_site, game.url).body)
    whole = tmp_path / "whole.html"
    whole.write_bytes(render(small_site, small_site.games[0].url).body)
    xml = tmp_path / "thing.xml"
    xml.write_text('<?xml version="1.0"?><items><item type="boardgame" id="1"><name type="primary" value="A"/>',
                   encoding="utf-8")
    for path in (page, xml):
        out = _run_parse(path)
        assert out.returncode != 0 and out.stdout == ""
        assert out.stderr.startswith("bodoge: error: ") and "truncated" in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
    assert _run_parse(page, "--kind", "game").returncode != 0
    ok = _run_parse(whole)
    assert ok.returncode == 0 and '"kind": "game"' in ok.stdout


# --- a real crawl over HTTP: cut pages change nothing --------------------------------


def _rows(warehouse: Path, sql: str, params: list[Any] | None = None) -> pl.DataFrame:
    with connect(warehouse, read_only=True) as con:
        return con.sql(sql, params=params).pl()


def _whole_and_cut(*, n_users: int, cut_pages: Callable[[Site], frozenset[int]]) -> tuple[Site, Site, int]:
    """The same site twice, whole and with one page cut by `cut_pages`, and which page that is."""
    whole = generate_site(n_games=40, n_users=n_users, seed=5, faults=False)
    cut = generate_site(n_games=40, n_users=n_users, seed=5)
    (index,) = cut_pages(cut)
    return whole, cut, index


def test_a_cut_game_page_keeps_the_values_of_the_last_whole_crawl(tmp_path: Path) -> None:
    whole, cut, index = _whole_and_cut(n_users=30, cut_pages=cut_games)
    game = cut.games[index]
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(whole, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["games"])
    cols = "game_id, n_watching, n_played, n_favorite, n_have, mechanics, designers, run_id"
    before = _rows(warehouse, f"SELECT {cols} FROM raw.games WHERE game_id = ?", [game.game_id])
    assert before["mechanics"].to_list() == [list(game.mechanic_labels)] and before["n_have"][0] == game.n_have
    with SampleSiteServer(cut, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["games"])
    after = _rows(warehouse, f"SELECT {cols} FROM raw.games WHERE game_id = ?", [game.game_id])
    assert after.equals(before)  # same values, and still the first run's row
    marts = _rows(warehouse, "SELECT n_watching, n_played, n_favorite, n_have, mechanics FROM marts.games "
                             "WHERE game_id = ?", [game.game_id]).row(0)
    assert marts == (game.n_watching, game.n_played, game.n_favorite, game.n_have, list(game.mechanic_labels))
    quarantine = _rows(warehouse, "SELECT url, reason, http_status FROM raw.quarantine WHERE reason = 'truncated'")
    assert [(u.split("/", 3)[3], r, s) for u, r, s in quarantine.iter_rows()] == [
        (game.url.lstrip("/"), TRUNCATED_REASON, 200)]
    runs = _rows(warehouse, "SELECT count(DISTINCT run_id) AS n FROM raw.games")["n"][0]
    assert runs == 2  # the other games were refreshed by the second crawl


def test_a_cut_collection_page_deletes_nothing(tmp_path: Path) -> None:
    whole, cut, index = _whole_and_cut(n_users=60, cut_pages=cut_collections)
    member = cut.members[index]
    other = next(m for m in cut.members if not m.private and m.n_boardgames > 20 and m.index != index)
    users = [member.user_id, other.user_id]
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(whole, transient_faults=False) as server:
        crawl_and_build(server.base_url, warehouse, sections=["members"], users=users)
    sql = "SELECT user_id, game_id, have, played, favorite, watching, rating, run_id FROM raw.collection_entries"
    before = _rows(warehouse, f"{sql} ORDER BY user_id, game_id")
    assert before.filter(pl.col("user_id") == member.user_id).height == member.n_boardgames > 20
    with SampleSiteServer(cut, transient_faults=False) as server:
        base_url = server.base_url
        crawl_and_build(base_url, warehouse, sections=["members"], users=users)
    after = _rows(warehouse, f"{sql} ORDER BY user_id, game_id")
    mine = pl.col("user_id") == member.user_id
    assert after.filter(mine).equals(before.filter(mine))  # untouched: same rows, first run's run_id
    assert after.filter(~mine).drop("run_id").equals(before.filter(~mine).drop("run_id"))
    assert not set(after.filter(~mine)["run_id"]) & set(before.filter(~mine)["run_id"])  # refreshed
    listings = dict(_rows(warehouse, "SELECT key, status FROM raw.listing_crawls").iter_rows())
    assert listings == {member.user_id: "incomplete", other.user_id: "public"}
    reasons = _rows(warehouse, "SELECT url, reason FROM raw.quarantine")
    assert reasons.rows() == [(f"{base_url}{member.collection_url}", TRUNCATED_REASON)]
    assert _rows(warehouse, "SELECT count(*) AS n FROM marts.collections WHERE user_id = ?",
                 [member.user_id])["n"][0] == member.n_boardgames
