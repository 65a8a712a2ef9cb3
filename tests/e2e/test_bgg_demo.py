"""`bodoge demo --bgg`: a whole night on the sample site with the BGG replay as its second source.

One demo night (300 games, 600 members: big enough that the evaluation names a CF
champion whose attribution can pick a linked member's BGG game) is shared by the slow
tests: the BGG stage ran; no exported reason names a game outside the member's site
collection although, without that rule, one would; game night ranks a game BGG calls
best with the group's size higher; the summary says whether BGG helped.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

from bodoge.demo_bgg import FIXTURE_USERS, demo_links
from models.discovery.group import BEST_BOOST, Table, game_night
from models.discovery.members import SITE
from models.discovery.reasons import REASON_BGG_BEST
from models.discovery.shelves import SHELVES, shelf_for, shelf_not_liked
from models.discovery.store import load_state
from models.interactions import normalise_interactions
from samplesite.generator import generate_site
from warehouse.bgg_training import member_rows

NAMED = re.compile(r"「(.+?)」")


def test_the_demo_links_popular_games_and_public_members(tmp_path: Path) -> None:
    site = generate_site(n_games=30, n_users=30, seed=0)
    links, overrides = demo_links(site, tmp_path)
    rows = links.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "user_id,bgg_user" and [r.split(",")[1] for r in rows[1:]] == list(FIXTURE_USERS)
    public = {m.user_id for m in site.members if not m.private}
    assert {r.split(",")[0] for r in rows[1:]} <= public
    assert overrides.read_text(encoding="utf-8").splitlines()[1].startswith("900001,")


@pytest.fixture(scope="module")
def demo_bgg(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("demo-bgg") / "data"
    run = subprocess.run([sys.executable, "-m", "bodoge.cli", "demo", "--bgg", "--games", "300", "--users", "600",
                          "--data-dir", str(data)], capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-2000:]
    state, _ = load_state(data / "models" / "champion")
    return {"data": data, "output": run.stdout + run.stderr, "state": state,
            "names": dict(zip(state.content.game_ids.to_list(), state.content.names.to_list()))}


def _published(demo_bgg: dict, sql: str) -> pl.DataFrame:
    with duckdb.connect(str(demo_bgg["data"] / "published.duckdb"), read_only=True) as con:
        return con.sql(sql).pl()


def test_demo_bgg_runs_the_bgg_stage_in_the_night(demo_bgg: dict) -> None:
    data = demo_bgg["data"]
    assert "nightly: bgg: ok: 2 collections, 3 things, 2 games matched" in demo_bgg["output"]
    games = _published(demo_bgg, "SELECT bgg_id, game_id IS NOT NULL AS matched, is_expansion FROM marts.bgg_games "
                                 "ORDER BY 1").rows()
    assert games == [(900001, True, False), (900002, True, False), (900003, False, True)]
    assert _published(demo_bgg, "SELECT DISTINCT user_id FROM marts.bgg_interactions").height == 2
    assert not [p for p in data.rglob("*") if p.is_file() and b"Bearer " in p.read_bytes()]


def _named_outside(reasons: pl.DataFrame, site_names: dict[str, set[str]]) -> pl.DataFrame:
    """The rows (``user_id``, ``reason``) whose reason names a game not in the member's site collection."""
    return reasons.filter(pl.struct("user_id", "reason").map_elements(
        lambda row: any(name not in site_names.get(row["user_id"], set()) for name in NAMED.findall(row["reason"])),
        return_dtype=pl.Boolean))


def test_no_exported_reason_names_a_game_outside_the_members_site_collection(demo_bgg: dict) -> None:
    state, names = demo_bgg["state"], demo_bgg["names"]
    site = _published(demo_bgg, "SELECT user_id, game_id FROM marts.collections")
    site_names: dict[str, set[str]] = {}
    for user, game in site.iter_rows():
        site_names.setdefault(user, set()).add(names.get(game))
    linked = _published(demo_bgg, "SELECT DISTINCT user_id FROM marts.bgg_interactions ORDER BY 1")["user_id"].to_list()
    assert SITE in state.collections.columns and not state.collections[SITE].all()  # the night marked the BGG rows

    # Without the rule (every training row may be named), a linked member's reasons name a BGG-only game:
    unmarked = state.collections.drop(SITE, strict=False)
    leaked, _ = state.rank(unmarked, linked, 100)
    shelves = [state.rank(unmarked, linked, 100, candidates=s.games, members_of=shelf_not_liked)[0]
               for s in SHELVES.values()]
    assert _named_outside(pl.concat([leaked, *shelves]), site_names).height > 0

    # With it, nothing the night exported does: the marts, and the bundle's JSONL files.
    for table in ("recommendations", "next_to_play", "watch_next"):
        rows = _published(demo_bgg, f"SELECT user_id, reason FROM marts.{table}")
        assert rows.height and _named_outside(rows, site_names).is_empty(), table
        assert rows.filter(pl.col("user_id").is_in(linked)).height, table
    exports = demo_bgg["data"] / "exports"
    bundle = exports / (exports / "LATEST").read_text(encoding="utf-8").strip()
    for name in ("recommendations.jsonl", "next_to_play.jsonl", "watch_next.jsonl"):
        lines = [json.loads(line) for line in (bundle / name).read_text(encoding="utf-8").splitlines()]
        rows = pl.DataFrame([{"user_id": line["user_id"], "reason": item["reason"]}
                             for line in lines for item in line["items"]])
        assert rows.height and _named_outside(rows, site_names).is_empty(), name
    # The shelves hold site rows only, ranked 1, 2, 3… with no gap.
    for table in ("next_to_play", "watch_next"):
        shelf = _published(demo_bgg, f"SELECT user_id, game_id, rank FROM marts.{table}")
        assert shelf.join(site, on=["user_id", "game_id"], how="anti").is_empty()
        assert (shelf.group_by("user_id").agg((pl.col("rank").max() == pl.len()).alias("ok"))["ok"]).all()


def test_game_night_ranks_a_game_best_with_the_groups_size_higher(demo_bgg: dict) -> None:
    from bodoge.recommend import game_night as cli_game_night

    state, data = demo_bgg["state"], demo_bgg["data"]
    best = _published(demo_bgg, "SELECT game_id, best_players FROM marts.bgg_games WHERE game_id IS NOT NULL "
                                "ORDER BY bgg_id").rows()
    game, size = best[0][0], best[0][1][0]  # Harbor Lights: BGG says best with 3
    collections = _published(demo_bgg, "SELECT * FROM marts.collections")
    played = collections.filter(pl.col("played") & (pl.col("game_id") == game))["user_id"]
    linked = _published(demo_bgg, "SELECT user_id FROM marts.bgg_interactions")["user_id"]  # site rows only here
    group = (collections.filter(~pl.col("user_id").is_in(pl.concat([played, linked]).implode()))
             .group_by("user_id").len()
             .filter(pl.col("len") >= 5).sort("user_id")["user_id"].head(size).to_list())
    with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
        rows = cli_game_night(con, group, cafe=None, anywhere=True, n=500, model_dir=data / "models" / "champion")
    mine = collections.filter(pl.col("user_id").is_in(group))
    table = Table(user_ids=group, collections=normalise_interactions(mine),
                  playable=_published(demo_bgg, "SELECT g.game_id FROM marts.games g WHERE marts.playable_with("
                                                f"g.players_from, g.players_to, {size})")["game_id"],
                  anywhere=True)
    without = game_night(state, table, n=500)
    with_bgg = {r["game_id"]: r for r in rows}
    before = without.filter(pl.col("game_id") == game).row(0, named=True)
    after = with_bgg[game]
    assert after["reason"].endswith("（" + REASON_BGG_BEST.format(size) + "）")
    assert after["score"] == pytest.approx(before["score"] + BEST_BOOST, abs=1e-5)
    assert after["rank"] < before["rank"] or before["rank"] == 1  # best with 3 at a table of 3: it moves up
    others = [r for r in rows if r["game_id"] != game]
    assert not [r for r in others if "BGG" in r["reason"]]  # River Traders is best with 4-5, not 3


def test_the_summary_says_whether_bgg_helps(demo_bgg: dict) -> None:
    gain = _published(demo_bgg, "SELECT * FROM marts.bgg_gain ORDER BY split")
    assert gain["split"].to_list() == ["random", "time"]
    assert (gain["n_members"] <= 2).all() and (gain["n_members"] >= 1).all()
    assert ((gain["gain"] - (gain["ndcg_with"] - gain["ndcg_without"])).abs() < 1e-12).all()
    line = next(line for line in demo_bgg["output"].splitlines() if "BGG: NDCG@10 of the" in line)
    assert f"time split {gain['ndcg_with'][1]:.4f} vs {gain['ndcg_without'][1]:.4f}" in line


def test_the_reranking_of_bodoge_recommend_ranks_as_the_night_did(demo_bgg: dict) -> None:
    """A filter that thins the stored list makes `bodoge recommend` rank the member again: with their BGG
    rows (their BGG games stay out) and naming only their site games, as the night did."""
    from bodoge.recommend import recommend

    data, names = demo_bgg["data"], demo_bgg["names"]
    bgg = _published(demo_bgg, "SELECT user_id, game_id FROM marts.bgg_interactions")
    site = _published(demo_bgg, "SELECT user_id, game_id FROM marts.collections")
    for user in bgg["user_id"].unique().sort().to_list():
        with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
            stored = con.execute("SELECT count(*) FROM marts.recommendations WHERE user_id = ?",
                                 [user]).fetchall()[0][0]
            rows = recommend(con, user, n=stored, players=2, max_minutes=None, model_dir=data / "models" / "champion")
        listed = {r["game_id"] for r in rows}
        assert len(rows) == stored  # more than the stored rows that pass: ranked again
        assert not listed & set(bgg.filter(pl.col("user_id") == user)["game_id"])
        mine = {names.get(g) for g in site.filter(pl.col("user_id") == user)["game_id"]}
        assert {n for r in rows for n in NAMED.findall(r["reason"])} <= mine
        # The shelves, ranked again (as when the member's shelf changed since the night): site games only.
        with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
            collection = member_rows(con, user)
        for shelf in SHELVES.values():
            ranked = shelf_for(data / "models" / "champion", user, shelf, collection=collection, n=100)
            assert set(ranked["game_id"]) <= set(site.filter(pl.col("user_id") == user)["game_id"])
            assert {n for r in ranked["reason"] for n in NAMED.findall(r)} <= mine
