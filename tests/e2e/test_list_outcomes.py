"""Did the lists come true (issue 41's "done when"): three real nights of the sample site, each
crawled over HTTP and run through the whole Dagster graph (`run_nightly`), then every figure of
the published night's marts.list_outcomes recomputed here from what each night's bundle served
(its lines, read right after the night) and the sample site's truth of each night, never from
the warehouse. A member who turned private leaves the exposure log and the collection history."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

from bodoge.jobs import run_nightly
from bodoge.summary import outcome_line
from core.settings import Settings
from samplesite.generator import generate_site
from samplesite.model import Site
from samplesite.nights import site_on_night
from samplesite.server import SampleSiteServer
from warehouse.outcomes.rates import champion_config
from warehouse.release.bundle_io import latest_bundle

FILES = {"discovery": "recommendations.jsonl", "watch_list": "watch_next.jsonl", "play_next": "next_to_play.jsonl"}
Held = dict[str, dict[str, tuple[bool, bool, bool, bool]]]


def truth(night: Site) -> Held:
    """What each public member holds on this night of the site: game id -> (have, played, favorite, watching)."""
    c = night.collections
    return {m.user_id: {night.games[int(c.game[r])].game_id: (bool(c.have[r]), bool(c.played[r]),
                                                              bool(c.favorite[r]), bool(c.watching[r]))
                        for r in c.rows(m.index)}
            for m in night.members if not m.private}


def served_lines(bundle: Path) -> dict[str, dict[str, list[str]]]:
    """Each list's top 10 per member, as the bundle's lines serve them."""
    out: dict[str, dict[str, list[str]]] = {}
    for kind, name in FILES.items():
        lines = (json.loads(line) for line in (bundle / name).read_text(encoding="utf-8").splitlines())
        out[kind] = {line["user_id"]: [item["game_id"] for item in line["items"][:10]] for line in lines}
    return out


@pytest.fixture(scope="module")
def three_nights(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("outcomes")
    settings = Settings(data_dir=data_dir)
    saved = {k: os.environ.get(k) for k in ("BODOGE_DATA_DIR", "BODOGE_WAREHOUSE", "BODOGE_BASE_URL", "DAGSTER_HOME")}
    site = generate_site(n_games=120, n_users=600, seed=11)
    nights, served, bundles = {}, {}, {}
    try:
        with SampleSiteServer(site) as server:
            for k in (1, 2, 3):
                nights[k] = night = site if k == 1 else site_on_night(site, k)
                server.site = night
                run_nightly(settings.replace(base_url=server.base_url))  # raises when a night fails
                bundle = latest_bundle(settings.paths.exports)
                assert bundle is not None
                served[k], bundles[k] = served_lines(bundle), bundle.name
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return settings.paths, nights, served, bundles


def expected(nights: dict[int, Site], served: dict, s: int, kind: str) -> dict:
    """The row (served night s, list kind, one night after) recomputed from the bundles and the truth."""
    before, after = truth(nights[s]), truth(nights[s + 1])
    lists = {u: games for u, games in served[s][kind].items() if u in after}  # the private leave it
    # most-collected on the served night, over the members still public when it is scored
    counts: dict[str, int] = {}
    for user in before.keys() & after.keys():
        for game in before[user]:
            counts[game] = counts.get(game, 0) + 1
    popular = sorted(counts, key=lambda g: (-counts[g], g))
    acted, hits, pop_hits = 0, 0, 0
    for user, top in lists.items():
        held, now = before.get(user, {}), after[user]
        if kind == "discovery":
            events = set(now) - set(held)
            baseline = [g for g in popular if g not in held][:10]
        elif kind == "play_next":
            events = {g for g, (have, played, _, _) in held.items() if have and not played and g in now and now[g][1]}
            baseline = [g for g in popular if g in held and held[g][0] and not held[g][1]][:10]
        else:
            events = {g for g, (have, played, _, watching) in held.items()
                      if watching and not have and not played and g in now and (now[g][0] or now[g][1])}
            baseline = [g for g in popular if g in held and held[g][3] and not held[g][0] and not held[g][1]][:10]
        if events:
            acted += 1
            hits += bool(events & set(top))
            pop_hits += bool(events & set(baseline))
    return {"served": len(lists), "members": acted, "hits": hits,
            "hit_rate_at_10": hits / acted if acted else None,
            "popularity_hit_rate_at_10": pop_hits / acted if acted else None}


def test_outcomes_are_what_a_reader_recomputes_from_the_bundles_and_the_truth(three_nights) -> None:
    paths, nights, served, bundles = three_nights
    with duckdb.connect(str(paths.data_dir / "published.duckdb"), read_only=True) as con:
        ids = dict(con.execute("SELECT night_no, night_id FROM marts.history_nights").fetchall())
        rows = {(r[0], r[1], r[2]): r[3:] for r in con.execute(
            "SELECT served_night_id, list_kind, nights_after, served, members, hits, hit_rate_at_10, "
            "popularity_hit_rate_at_10, hit_rate_low, hit_rate_high, previous_run_id, previous_members, "
            "previous_hit_rate_at_10 FROM marts.list_outcomes").fetchall()}
        champions = {b: champion_config(con, b) for b in bundles.values()}
        line = outcome_line(con)
    assert sorted(ids) == [1, 2, 3]
    assert sorted(rows) == sorted((ids[s], kind, 1) for s in (1, 2) for kind in FILES)  # 1→2 and 2→3
    acted = 0
    for s in (1, 2):
        for kind in FILES:
            got = rows[(ids[s], kind, 1)]
            want = expected(nights, served, s, kind)
            assert dict(zip(want, got[:5])) == want, (s, kind)
            acted += want["members"]
            if want["members"]:
                assert got[5] <= got[2] / got[1] <= got[6]  # the interval holds the rate
        discovery = rows[(ids[s], "discovery", 1)]
        # the previous champion: none before the first night; for night 2's lists night 1's choice,
        # whose lists are night 2's own where the choice did not move (else it is fitted again)
        assert discovery[7] == (None if s == 1 else bundles[1])
        if s == 2:
            assert 0 < discovery[8] <= discovery[1]
            if champions[bundles[1]] == champions[bundles[2]]:
                assert discovery[8] == discovery[1] and discovery[9] == discovery[2] / discovery[1]
    assert acted > 0, "no member acted on any list: the nights test nothing"
    two = rows[(ids[2], "discovery", 1)]
    assert f"{two[2]} of {two[1]} members who added a game took one of their top 10" in line


def test_a_member_who_turns_private_leaves_the_exposure_log(three_nights) -> None:
    paths, nights, served, _ = three_nights
    private = {m.user_id for m in nights[3].members if m.private}
    were_served = private & (set(served[1]["discovery"]) | set(served[2]["discovery"]))
    assert were_served, "no member served on night 1 or 2 turned private by night 3"
    for path in (paths.warehouse, paths.data_dir / "published.duckdb"):
        with duckdb.connect(str(path), read_only=True) as con:
            for table in ("served_lists", "collection_history"):
                left = con.execute(f"SELECT DISTINCT user_id FROM marts.{table} WHERE user_id IN "
                                   "(SELECT unnest(?::VARCHAR[]))", [sorted(private)]).fetchall()
                assert left == [], (path.name, table)
