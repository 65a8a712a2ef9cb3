"""The sample site's pages against its truth: every value the truth holds is on a page.

Pages are checked with a tiny independent regex parser (below), so a truth value that a
page does not actually show fails the test.
"""

from __future__ import annotations

import html
import re
import unicodedata

import polars as pl

from samplesite import render
from samplesite.faults import cut_collections, cut_games
from samplesite.model import Site
from samplesite.pages.members import COLLECTION_PAGE_SIZE, EMPTY_MARKER
from tests.support.samplesite_fixtures import small, small_truth  # noqa: F401

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
