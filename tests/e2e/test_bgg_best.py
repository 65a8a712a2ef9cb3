"""`--best` / `--recommended` beside `--players N`: one macro, marts.bgg_poll_says, answered per the poll rule.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_bgg_best.py.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest

from bodoge.cli import main
from models.discovery.run import discover
from samplesite import SampleSiteServer, generate_site
from samplesite.bgg_replay import BggReplayServer
from scrapers.bgg_sync import run_bgg_sync
from tests.support.crawl_fixtures import crawl_and_build
from warehouse.model_marts import replace_table

TOKEN = "best-test-token-0d0d"


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A crawled sample site; two of a member's 3-to-5-player games matched to Harbor Lights (best 3,
    recommended 2-4) and River Traders (best 4-5, recommended 3-5); recommendations written."""
    tmp = tmp_path_factory.mktemp("bgg-best")
    warehouse = tmp / "warehouse.duckdb"
    with SampleSiteServer(generate_site(n_games=40, n_users=30, seed=5, faults=False), transient_faults=False) as srv:
        crawl_and_build(srv.base_url, warehouse)
    with duckdb.connect(str(warehouse)) as con:
        games = con.sql("SELECT * FROM marts.games").pl()
        collections = con.sql("SELECT * FROM marts.collections").pl()
        found = discover(collections=collections, games=games, posts=None, champion="popularity", params={},
                         weighting="graded", run_id="run-1", generated_at=datetime.now(timezone.utc))
        replace_table(con, "recommendations", found.recommendations)
        wide = "g.players_from <= 3 AND g.players_to >= 5"
        member, owned = con.execute(
            f"SELECT c.user_id, list(c.game_id ORDER BY c.game_id) FROM marts.collections c JOIN marts.games g "
            f"USING (game_id) WHERE {wide} GROUP BY 1 HAVING count(*) >= 2 ORDER BY 1 LIMIT 1").fetchall()[0]
        recommended = [r[0] for r in con.execute(
            f"SELECT r.game_id FROM marts.recommendations r JOIN marts.games g USING (game_id) "
            f"WHERE r.user_id = ? AND {wide} ORDER BY r.rank LIMIT 2", [member]).fetchall()]
    overrides = tmp / "overrides.csv"
    overrides.write_text(f"bgg_id,game_id\n900001,{owned[0]}\n900002,{owned[1]}\n", encoding="utf-8")
    links = tmp / "links.csv"
    links.write_text("user_id,bgg_user\n", encoding="utf-8")
    with BggReplayServer(token=TOKEN) as bgg:
        run_bgg_sync(api_url=bgg.api_url, warehouse=warehouse, links_file=links, token=TOKEN, delay=0,
                     prepare_delay=0.05, backoff_base=0.05, overrides_file=overrides)
    return {"warehouse": warehouse, "member": member, "owned": owned, "recommended": recommended,
            "overrides": overrides, "links": links, "tmp": tmp}


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict]:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("players", "how", "which"), [
    ("3", "--best", [0]), ("4", "--best", [1]), ("5", "--best", [1]), ("2", "--best", []),
    ("3", "--recommended", [0, 1]), ("4", "--recommended", [0, 1]), ("5", "--recommended", [1]),
])
def test_collection_best_and_recommended(night: dict, capsys: pytest.CaptureFixture[str], players: str, how: str,
                                         which: list[int]) -> None:
    rows = _json(capsys, "collection", night["member"], "--players", players, how, "--json",
                 "--warehouse", str(night["warehouse"]))
    assert sorted(r["game_id"] for r in rows) == sorted(night["owned"][i] for i in which)


def test_recommend_best_keeps_only_what_the_poll_names(night: dict, capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    first, second = night["recommended"]
    overrides = tmp_path / "overrides.csv"
    overrides.write_text(f"bgg_id,game_id\n900001,{first}\n900002,{second}\n", encoding="utf-8")
    warehouse = tmp_path / "warehouse.duckdb"
    warehouse.write_bytes(night["warehouse"].read_bytes())
    with BggReplayServer(token=TOKEN) as bgg:
        run_bgg_sync(api_url=bgg.api_url, warehouse=warehouse, links_file=night["links"], token=TOKEN, delay=0,
                     prepare_delay=0.05, backoff_base=0.05, overrides_file=overrides)
    common = ["--json", "--warehouse", str(warehouse), "--data-dir", str(tmp_path)]
    best4 = _json(capsys, "recommend", night["member"], "--players", "4", "--best", *common)
    assert [(r["rank"], r["game_id"]) for r in best4] == [(1, second)]
    rec3 = _json(capsys, "recommend", night["member"], "--players", "3", "--recommended", "-n", "1", *common)
    assert [r["game_id"] for r in rec3] == [first]
    plain = _json(capsys, "recommend", night["member"], "--players", "4", *common)
    assert len(plain) > 1


def test_poll_flags_need_players(night: dict, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["collection", night["member"], "--best", "--warehouse", str(night["warehouse"])]) == 2
    assert "--best needs --players N" in capsys.readouterr().err
    assert main(["recommend", night["member"], "--watching", "--best", "--warehouse", str(night["warehouse"])]) == 2
    assert "need --players N" in capsys.readouterr().err
