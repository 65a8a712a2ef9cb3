"""Tests of the sample site: determinism, text formats, truth vs pages, faults, real HTTP.

Everything here is real: generated sites, rendered bytes, a server on 127.0.0.1 queried
with urllib. Pages are checked with a tiny independent regex parser, so a truth value
that a page does not actually show fails the test.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
import time
import unicodedata
import urllib.error
import urllib.request
from pathlib import Path

import polars as pl
import pytest

from samplesite import (
    SampleSiteServer,
    generate_site,
    iter_urls,
    permanent_faults,
    render,
    transient_fault,
    truth_frames,
    write_truth,
)
from samplesite.faults import TRUNCATED_REASON, cut_collections, cut_games
from samplesite.model import Site
from samplesite.pages.members import COLLECTION_PAGE_SIZE, EMPTY_MARKER

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def big() -> tuple[Site, float]:
    t0 = time.perf_counter()
    site = generate_site(n_games=2000, n_users=5000, seed=0)
    return site, time.perf_counter() - t0


@pytest.fixture(scope="module")
def small() -> Site:
    return generate_site(n_games=300, n_users=400, seed=7)


@pytest.fixture(scope="module")
def small_truth(small: Site) -> dict[str, pl.DataFrame]:
    return truth_frames(small)


# --------------------------------------------------------------------------- a tiny parser


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("〜", "~")


def _range(text: str | None, unit: str) -> tuple[int | None, int | None]:
    if not text:
        return None, None
    m = re.fullmatch(rf"(\d+){unit}(?:~(\d+){unit}|前後)?", _norm(text))
    assert m, text
    lo = int(m.group(1))
    return lo, int(m.group(2)) if m.group(2) else lo


def _age(text: str | None) -> int | None:
    if not text or text == "未登録":
        return None
    m = re.fullmatch(r"(\d+)歳(?:~|から)", _norm(text))
    assert m, text
    return int(m.group(1))


def _year(text: str | None) -> int | None:
    if not text:
        return None
    m = re.fullmatch(r"(\d+)年~?", _norm(text))
    assert m, text
    return int(m.group(1))


def parse_game_page(page: str) -> dict[str, object] | None:
    """What a spider would extract from a game page; None when title/spec are missing."""
    ja = re.search(r'<span class="games-title-japanese">(.*?)</span>', page)
    if ja is None or '<ul class="games-spec">' not in page:
        return None
    en = re.search(r'<span class="games-title-english">(.*?)</span>', page)
    spec = {k: _text(v) for k, v in re.findall(r'games-spec-(\w+)">(.*?)</li>', page)}
    counts = dict(re.findall(r'games-interest (\w+)"><span class="games-interest-count">(\d+)', page))
    credit: dict[str, list[str]] = {}
    for head, links in re.findall(r'games-credit-headline">(.*?)</span>(.*?)</li>', page):
        credit[head] = [_text(a) for a in re.findall(r"<a [^>]*>.*?</a>", links)]
    players = _range(spec.get("players"), "人")
    minutes = _range(spec.get("playtime"), "分")
    slug = re.search(r'rel="canonical" href="https://bodoge.hoobby.net/games/([^"]+)"', page)
    return {
        "game_id": slug.group(1) if slug else None,
        "name_ja": _text(ja.group(1)), "name_en": _text(en.group(1)) if en else None,
        "min_players": players[0], "max_players": players[1],
        "min_minutes": minutes[0], "max_minutes": minutes[1],
        "min_age": _age(spec.get("age")), "year": _year(spec.get("year")),
        "n_watching": int(counts["watching"]), "n_played": int(counts["played"]),
        "n_favorite": int(counts["favorite"]), "n_have": int(counts["have"]),
        "designers": credit.get("ゲームデザイナー", []), "mechanics": credit.get("メカニクス", []),
        "themes": credit.get("テーマ", []),
    }


def parse_cards(page: str) -> list[dict[str, object]]:
    cards = []
    for block in page.split('<div class="list--interests-item" ')[1:]:
        flags = dict(re.findall(r'friend-interest (\w+) (on|off)"', block))
        rating = int(re.search(r'data-rating-result="(\d)"', block).group(1))
        cards.append({
            "game_id": re.search(r'href="/games/([^"]+)"', block).group(1),
            "have": flags["have"] == "on", "played": flags["played"] == "on",
            "favorite": flags["favorite"] == "on", "watching": flags["watching"] == "on",
            "rating": rating or None,
            "updated_at": re.search(r'data-updated-at="([^"]+)"', block).group(1),
        })
    return cards


def page_text(site: Site, url: str) -> str:
    resp = render(site, url)
    assert resp.status == 200, (url, resp.status)
    return resp.text


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


# --------------------------------------------------------------------------- truth vs pages


def test_game_pages_match_truth(small: Site, small_truth: dict[str, pl.DataFrame]) -> None:
    truth = {r["game_id"]: r for r in small_truth["games"].to_dicts()}
    quarantined = set(small_truth["quarantine"]["url"])
    assert small_truth["games"].columns == [
        "game_id", "name_ja", "name_en", "min_players", "max_players", "min_minutes", "max_minutes",
        "min_age", "year", "n_watching", "n_played", "n_favorite", "n_have", "designers",
        "mechanics", "themes", "url"]
    seen = 0
    for g in small.games:
        resp = render(small, g.url)
        assert resp.status == 200
        if g.index in cut_games(small):
            assert not resp.text.rstrip().endswith("</html>") and "games-interest-count" not in resp.text
            assert g.url in quarantined and g.game_id not in truth
            continue
        parsed = parse_game_page(resp.text)
        if g.malformed:
            assert parsed is None and g.url in quarantined and g.game_id not in truth
            continue
        row = dict(truth[g.game_id])
        assert row.pop("url") == f"/games/{g.game_id}"
        assert parsed == row, g.game_id
        seen += 1
    n_bad = sum(g.malformed for g in small.games)
    assert 1 <= n_bad <= 3 and len(cut_games(small)) == 1
    assert seen == small_truth["games"].height == len(small.games) - n_bad - 1


def test_catalogue_lists_every_game(small: Site) -> None:
    first = page_text(small, "/games")
    assert first == page_text(small, "/games?page=1")
    assert '<p class="games-index-total">全300個</p>' in first
    slugs: list[str] = []
    page, url = 1, "/games?page=1"
    while url:
        text = page_text(small, url)
        rows = re.findall(r'<td class="games-table-name"><a href="/games/([^"]+)"', text)
        assert len(rows) == (20 if page < 15 else 300 - 14 * 20)
        slugs += rows
        nxt = re.search(r'<a class="next" rel="next" href="([^"]+)">次へ</a>', text)
        url, page = (html.unescape(nxt.group(1)) if nxt else ""), page + 1
    assert page == 16 and sorted(slugs) == sorted(g.game_id for g in small.games)


def test_collections_match_truth(small: Site, small_truth: dict[str, pl.DataFrame]) -> None:
    coll = small_truth["collections"]
    private = set(small_truth["private_users"]["user_id"])
    empty = set(small_truth["empty_users"]["user_id"])
    assert private and empty and not private & empty
    assert set(coll["user_id"]) & private == set()
    for m in small.members:
        text = page_text(small, m.collection_url)
        if m.private:
            assert 'id="sessions-new"' in text and "ログインが必要です" in text
            assert 'id="sessions-new"' in page_text(small, f"{m.collection_url}/have?page=2")
            continue
        if m.user_id in empty:
            assert f'<p class="empty">{EMPTY_MARKER}</p>' in text
            continue
        if m.index in cut_collections(small):  # page 1 cut mid-card: no rows in truth, page 2 whole
            assert not text.rstrip().endswith("</html>") and 'class="pagination"' not in text
            assert not coll.filter(pl.col("user_id") == m.user_id).height
            page2 = page_text(small, f"{m.collection_url}?page=2")
            assert page2.endswith("</html>\n") and 'class="pagination"' in page2
            continue
        rows = coll.filter(pl.col("user_id") == m.user_id).drop("user_id").to_dicts()
        n_pages = -(-len(rows) // COLLECTION_PAGE_SIZE)
        assert 'class="empty"' in page_text(small, f"{m.collection_url}?page={n_pages + 1}")
        if m.index % 7:  # parse every page of a sample of members
            continue
        cards = [c for p in range(1, n_pages + 1)
                 for c in parse_cards(page_text(small, f"{m.collection_url}?page={p}"))]
        assert cards == rows
        assert [c["updated_at"] for c in cards] == sorted((c["updated_at"] for c in cards), reverse=True)
        played = parse_cards(page_text(small, f"{m.collection_url}/played"))
        assert played == [r for r in rows if r["played"]][:COLLECTION_PAGE_SIZE]
    # counters count every member's statuses, private ones included
    pub = coll.group_by("game_id").agg(pl.col("have").sum())
    games = small_truth["games"].join(pub, on="game_id", how="left").fill_null(0)
    assert (games["n_have"] >= games["have"]).all()
    assert (games["n_have"] > games["have"]).any()


def test_directory_lists_every_member(small: Site, small_truth: dict[str, pl.DataFrame]) -> None:
    found: dict[str, str] = {}
    for p in range(1, 9):
        text = page_text(small, f"/friends?page={p}")
        found.update(re.findall(r'<a href="/friends/(\d+)">(.*?)</a><span class="friends-list-count">', text))
        assert ('rel="next"' in text) == (p < 8)
    found = {k: html.unescape(v) for k, v in found.items()}
    assert len(found) == 400
    public = dict(small_truth["members"].iter_rows())
    assert {k: v for k, v in found.items() if k in public} == public
    cut = {small.members[i].user_id for i in cut_collections(small)}  # listed, but unknown (page 1 cut)
    assert set(found) - set(public) == set(small_truth["private_users"]["user_id"]) | cut
    m = small.members[0]
    assert f'href="/friends/{m.user_id}/boardgames"' in page_text(small, m.url)


def test_posts_match_truth(small: Site, small_truth: dict[str, pl.DataFrame]) -> None:
    posts = {r["post_id"]: r for r in small_truth["posts"].to_dicts()}
    bad = {u for u, reason in small_truth["quarantine"].iter_rows() if reason == "http 500"}
    assert len(bad) == 2 and posts
    linked = set()
    for g in small.games:
        if not g.malformed:
            linked |= set(re.findall(r'href="(/games/[^"]+/(?:rules|reviews)/\d+)"', page_text(small, g.url)))
    assert linked == {p.url for p in small.posts}
    for url in sorted(linked):
        resp = render(small, url)
        if url in bad:
            assert resp.status == 500
            continue
        text = resp.text
        pid = re.search(r'data-post-id="(\d+)"', text).group(1)
        row = posts.pop(pid)
        assert re.search(r'data-post-kind="(\w+)"', text).group(1) == row["post_kind"]
        assert url == f"/games/{row['game_id']}/{row['post_kind']}s/{pid}"
        assert _text(re.search(r'<h1 class="posts-title">(.*?)</h1>', text).group(1)) == row["title"]
        assert re.search(r'class="posts-author" href="/friends/(\d+)"', text).group(1) == row["author_user_id"]
        assert re.search(r'<time class="posts-date" datetime="([^"]+)"', text).group(1) == row["published_at"]
        assert "<h2>概要</h2>" in text
    assert posts == {}


def test_cafes_match_truth(small: Site, small_truth: dict[str, pl.DataFrame]) -> None:
    cafes = dict(small_truth["cafes"].iter_rows())
    assert len(cafes) == 5
    index = page_text(small, "/spaces?page=1")
    assert set(re.findall(r'<a href="/spaces/([^"]+)">', index)) == set(cafes)
    for slug, name in cafes.items():
        text = page_text(small, f"/spaces/{slug}/games")
        total = int(re.search(r"遊べるボードゲーム (\d+)個", text).group(1))
        got: list[str] = []
        page = 1
        while True:
            text = page_text(small, f"/spaces/{slug}/games?page={page}")
            assert f'<h1 class="spaces-name">{html.escape(name)}</h1>' in text
            got += re.findall(r'<a href="/games/([^"]+)"><img', text)
            if 'rel="next"' not in text:
                break
            page += 1
        want = small_truth["cafe_games"].filter(pl.col("space_slug") == slug)["game_id"].to_list()
        assert got == want and total == len(want)
        assert f'href="/spaces/{slug}"' in page_text(small, f"/games/{want[0]}")


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


def test_cli_writes_truth(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "samplesite", "truth", "--games", "60", "--users", "40", "--seed", "2",
         "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert "games\t" in out.stdout
    games = pl.read_parquet(tmp_path / "games.parquet")
    expected = truth_frames(generate_site(n_games=60, n_users=40, seed=2))["games"]
    assert games.equals(expected)


# --------------------------------------------------------------------------- HTTP server


def _get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read().decode("utf-8")


def test_server_serves_over_http(small: Site) -> None:
    with SampleSiteServer(small) as srv:
        base = srv.base_url
        assert base.startswith("http://127.0.0.1:")
        status, headers, body = _get(base + "/robots.txt")
        assert status == 200 and headers["Content-Type"].startswith("text/plain")
        assert body == "User-agent: *\nDisallow: /login\nDisallow: /mypage\nDisallow: /shop/cart\n"
        status, _, body = _get(base + "/no/such/page")
        assert status == 404 and "ページが見つかりません" in body
        assert _get(base + "/games/no-such-game")[0] == 404
        g = next(g for g in small.games if not g.malformed and transient_fault(small, g.url) is None)
        status, headers, body = _get(base + g.url)
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert body.encode("utf-8") == render(small, g.url).body
        bad_post = next(p for p in small.posts if p.http500)
        for _ in range(3):
            assert _get(base + bad_post.url)[0] == 500
        m = next(m for m in small.members if m.private)
        target = next(f"{m.collection_url}?page={p}" for p in range(1, 500)
                      if transient_fault(small, f"{m.collection_url}?page={p}") is None)
        assert 'id="sessions-new"' in _get(base + target)[2]
        assert ("GET", "/robots.txt", 200) in srv.requests
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(base + "/robots.txt", timeout=2)


def test_transient_faults_recover(small: Site) -> None:
    urls = list(iter_urls(small))
    first_503 = [u for u in urls if transient_fault(small, u) == 503]
    first_429 = [u for u in urls if transient_fault(small, u) == 429]
    assert 0.01 < len(first_503) / len(urls) < 0.03 and 0.004 < len(first_429) / len(urls) < 0.02
    with SampleSiteServer(small) as srv:
        u = first_503[0]
        assert _get(srv.base_url + u)[0] == 503
        status, _, body = _get(srv.base_url + u)
        assert status == 200 and body.encode("utf-8") == render(small, u).body
        v = first_429[0]
        status, headers, _ = _get(srv.base_url + v)
        assert status == 429 and headers["Retry-After"] == "1"
        assert _get(srv.base_url + v)[0] == 200
    with SampleSiteServer(small) as again:  # a new server instance fails once more
        assert _get(again.base_url + u)[0] == 503
    with SampleSiteServer(small, transient_faults=False, crawl_delay=1.5) as quiet:
        assert _get(quiet.base_url + u)[0] == 200
        assert "Crawl-delay: 1.5\n" in _get(quiet.base_url + "/robots.txt")[2]


def test_server_handles_concurrent_requests(small: Site) -> None:
    from concurrent.futures import ThreadPoolExecutor

    urls = list(iter_urls(small))[:200]
    with SampleSiteServer(small, port=0) as srv, ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda u: _get(srv.base_url + u)[0], urls))
        retried = list(pool.map(lambda u: _get(srv.base_url + u)[0], urls))
    assert set(statuses) <= {200, 429, 500, 503}
    assert all(s in (200, 500) for s in retried)
    broken = {u for u, reason in permanent_faults(small) if reason == "http 500"}
    assert retried.count(500) == sum(1 for u in urls if u in broken)


def test_cut_pages_answer_200_and_are_truncated_in_truth(small: Site, small_truth: dict[str, pl.DataFrame]) -> None:
    """The cut fault: HTTP 200 with the cut body's length, no closing markup, `truncated` in truth."""
    assert len(cut_games(small)) == 1 and len(cut_collections(small)) == 1
    cut_urls = [small.games[i].url for i in cut_games(small)]
    cut_urls += [small.members[i].collection_url for i in cut_collections(small)]
    reasons = dict(small_truth["quarantine"].iter_rows())
    assert all(reasons[u] == TRUNCATED_REASON for u in cut_urls)
    with SampleSiteServer(small, transient_faults=False) as srv:
        for url in cut_urls:
            status, headers, body = _get(srv.base_url + url)
            assert status == 200 and int(headers["Content-Length"]) == len(body.encode("utf-8"))
            assert "</html>" not in body and "<main" in body
            assert body.encode("utf-8") == render(small, url).body  # permanent: the same cut every time
    clean = generate_site(n_games=300, n_users=400, seed=7, faults=False)
    assert not cut_games(clean) and not cut_collections(clean)
    assert all(reason != TRUNCATED_REASON for _, reason in permanent_faults(clean))
