"""Tests of the sample site's generation: determinism, text formats, the recommender's
signal, and the truth it writes.

Everything here is real: generated sites and rendered bytes. The pages against the truth
are in test_samplesite_pages.py, the HTTP server in test_samplesite_http.py.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import polars as pl
import pytest

from samplesite import generate_site, iter_urls, permanent_faults, render, transient_fault, truth_frames, write_truth
from samplesite.model import Site
from tests.support.samplesite_fixtures import small, small_truth  # noqa: F401


@pytest.fixture(scope="module")
def big() -> tuple[Site, float]:
    t0 = time.perf_counter()
    site = generate_site(n_games=2000, n_users=5000, seed=0)
    return site, time.perf_counter() - t0


# --------------------------------------------------------------------------- determinism


def test_same_arguments_give_identical_pages_and_truth() -> None:
    a = generate_site(n_games=120, n_users=150, seed=3)
    b = generate_site(n_games=120, n_users=150, seed=3)
    urls = list(iter_urls(a, statuses=True))
    assert urls == list(iter_urls(b, statuses=True))
    for url in urls[::3]:
        assert render(a, url).body == render(b, url).body, url
    ta, tb = truth_frames(a), truth_frames(b)
    for name in ta:
        assert ta[name].equals(tb[name]), name


def test_different_seed_or_faults_give_a_different_site() -> None:
    a = generate_site(n_games=120, n_users=150, seed=3)
    c = generate_site(n_games=120, n_users=150, seed=4)
    assert render(a, "/games?page=1").body != render(c, "/games?page=1").body
    assert render(a, "/friends?page=1").body != render(c, "/friends?page=1").body
    clean = generate_site(n_games=120, n_users=150, seed=3, faults=False)
    assert permanent_faults(clean) == [] and permanent_faults(a) != []
    assert all(transient_fault(clean, u) is None for u in iter_urls(clean))


def test_generation_is_fast_enough(big: tuple[Site, float]) -> None:
    site, seconds = big
    assert len(site.games) == 2000 and len(site.members) == 5000
    assert seconds < 15, seconds  # ~1-2 s on the dev machine


# --------------------------------------------------------------------------- text formats


def test_all_text_format_variants_occur(big: tuple[Site, float]) -> None:
    site, _ = big
    game_pages = "".join(render(site, g.url).text for g in site.games)
    lists = "".join(render(site, f"/games?page={p}").text for p in range(1, 101))
    players = re.findall(r'games-spec-players">(.*?)<', game_pages)
    assert any("～" in t for t in players) and any("〜" in t for t in players)
    assert any("~" in t for t in players)
    assert any("\u3000" in g.name_ja and f">{g.name_ja}</span>" in render(site, g.url).text for g in site.games)
    assert any(re.fullmatch(r"\d人", t) for t in players)  # a single value: 2人
    assert any(re.search(r"[０-９]人", t) for t in players)  # full-width digits
    assert "1人～65536人" in game_pages or "1人〜65536人" in game_pages or "1人~65536人" in game_pages
    assert re.search(r"3人[～〜~]50人", game_pages)
    assert re.search(r'games-spec-playtime">\d+分前後<', game_pages)
    ages = re.findall(r'games-spec-age">(.*?)<', game_pages)
    assert any(re.fullmatch(r"\d+歳から", t) for t in ages) and "未登録" in ages
    assert any(re.fullmatch(r"20歳[～〜~]", t) for t in ages)
    assert re.search(r'games-spec-year">\d{4}年～<', game_pages)
    assert re.search(r'games-table-year">\d{4}年<', lists)
    assert '<td class="games-table-spec"></td>' in lists and '<td class="games-table-age"></td>' in lists
    # some game pages omit an element altogether (missing value)
    assert any('games-spec-year' not in render(site, g.url).text
               for g in site.games if not g.malformed)
    for g in site.games:  # alcohol-themed games are for adults
        if "alcohol" in g.themes and g.min_age is not None:
            assert g.min_age == 20


def test_signal_for_the_recommender(big: tuple[Site, float]) -> None:
    site, _ = big
    c = site.collections
    clusters = [g.cluster for g in site.games]
    shares = []
    for m in site.members:
        rows = c.rows(m.index)
        if rows.size >= 10:
            cl = [clusters[int(c.game[r])] for r in rows]
            shares.append(max(cl.count(k) for k in set(cl)) / len(cl))
    assert sum(shares) / len(shares) > 0.3  # 12 clusters: 1/12 without taste
    assert 0.4 < (c.rating == 0).mean() < 0.65  # about half unrated
    assert not (c.watching & (c.have | c.played)).any()
    assert (c.have | c.played | c.favorite | c.watching).all()
    sizes = sorted(m.n_boardgames for m in site.members if m.n_boardgames)
    assert 12 <= sizes[len(sizes) // 2] <= 30 and sizes[-1] >= 200
    cold = [g for g in site.games if g.n_have + g.n_played + g.n_favorite + g.n_watching == 0]
    assert 0.01 * len(site.games) <= len(cold) <= 0.06 * len(site.games)
    private = sum(m.private for m in site.members)
    assert 0.03 * 5000 < private < 0.08 * 5000


def test_truth_parquet_roundtrip(small: Site, small_truth: dict[str, pl.DataFrame], tmp_path: Path) -> None:
    paths = write_truth(small, tmp_path)
    assert set(paths) == {"games", "collections", "members", "private_users", "empty_users", "posts",
                          "cafes", "cafe_games", "quarantine"}
    for name, path in paths.items():
        assert pl.read_parquet(path).equals(small_truth[name]), name
    assert small_truth["collections"].columns == ["user_id", "game_id", "have", "played", "favorite",
                                                  "watching", "rating", "updated_at"]
    assert small_truth["collections"]["rating"].null_count() > 0
    assert small_truth["posts"].columns == ["post_id", "game_id", "post_kind", "author_user_id", "title",
                                            "published_at"]
    assert small_truth["cafe_games"].columns == ["space_slug", "game_id", "space_name"]
    assert small_truth["quarantine"].columns == ["url", "reason"]
