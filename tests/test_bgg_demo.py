"""`bodoge demo --bgg`: a whole night on the sample site with the BGG replay as its second source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from bodoge.demo_bgg import FIXTURE_USERS, demo_links
from samplesite.generator import generate_site


def test_the_demo_links_popular_games_and_public_members(tmp_path: Path) -> None:
    site = generate_site(n_games=30, n_users=30, seed=0)
    links, overrides = demo_links(site, tmp_path)
    rows = links.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "user_id,bgg_user" and [r.split(",")[1] for r in rows[1:]] == list(FIXTURE_USERS)
    public = {m.user_id for m in site.members if not m.private}
    assert {r.split(",")[0] for r in rows[1:]} <= public
    assert overrides.read_text(encoding="utf-8").splitlines()[1].startswith("900001,")


@pytest.mark.slow
def test_demo_bgg_runs_the_bgg_stage_in_the_night(tmp_path: Path) -> None:
    data = tmp_path / "data"
    run = subprocess.run([sys.executable, "-m", "bodoge.cli", "demo", "--bgg", "--games", "40", "--users", "40",
                          "--data-dir", str(data)], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "nightly: bgg: ok: 2 collections, 3 things, 2 games matched" in run.stdout + run.stderr
    with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
        games = con.execute("SELECT bgg_id, game_id IS NOT NULL, is_expansion FROM marts.bgg_games ORDER BY 1").fetchall()
        linked = con.execute("SELECT count(DISTINCT user_id) FROM marts.bgg_interactions").fetchall()[0][0]
    assert games == [(900001, True, False), (900002, True, False), (900003, False, True)]
    assert linked == 2
    assert not [p for p in data.rglob("*") if p.is_file() and b"Bearer " in p.read_bytes()]
