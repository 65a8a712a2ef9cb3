"""Kind detection and `scrapers.parse.parse_document` over every page kind and sample."""

from __future__ import annotations

import pytest

from scrapers.parse import ParseError, detect_kind, parse_document
from tests.support.conftest_shared import shared_file, shared_params

from tests.support.page_fixtures import (
    BASE,
    CATALOG_HTML,
    COLLECTION_HTML,
    EMPTY_HTML,
    GAME_HTML,
    LOGIN_HTML,
    MEMBERS_HTML,
    POST_HTML,
    SPACE_HTML,
)


@pytest.mark.parametrize(
    ("html", "kind"),
    [(GAME_HTML, "game"), (CATALOG_HTML, "catalog"), (COLLECTION_HTML, "collection"), (EMPTY_HTML, "collection"),
     (LOGIN_HTML, "login"), (MEMBERS_HTML, "members"), (SPACE_HTML, "space"), (POST_HTML, "post")],
)
def test_detect_kind_inline(html: str, kind: str) -> None:
    assert detect_kind(html.encode("utf-8"), "saved.html") == kind


def test_parse_document_inline() -> None:
    assert parse_document(LOGIN_HTML, url="saved.html") == []
    assert parse_document(LOGIN_HTML, url="saved.html", kind="game") == []
    assert [i.game_id for i in parse_document(CATALOG_HTML.encode(), url="x.html")] == ["a-game", "b-game"]
    assert parse_document(GAME_HTML, url="x.html", kind="game")[0].game_id == "test-game"
    assert detect_kind("<html><body><p>hi</p></body></html>", f"{BASE}/games/z") == "game"
    with pytest.raises(ParseError, match="cannot tell"):
        parse_document("<html><body><p>hi</p></body></html>", url="x.html")
    profile = '<html><body><main id="friends-show" data-friend-id="5"><h1>ねこさん</h1></main></body></html>'
    with pytest.raises(ParseError, match=r"not a page with items \(main#friends-show\)"):
        parse_document(profile, url=f"{BASE}/friends/5")
    with pytest.raises(ParseError, match="unknown kind"):
        parse_document(GAME_HTML, url="x.html", kind="games")
    with pytest.raises(ParseError, match="game page has no title") as excinfo:
        parse_document('<html><body><main id="games-show"></main></body></html>', url="x.html")
    assert "\n" not in str(excinfo.value)


EXPECTED_SAMPLE_ITEMS = {
    "collection-17406-page1.html": ("collection", 4),
    "collection-empty.html": ("collection", 0),
    "game-khora.html": ("game", 1),
    "game-propolis.html": ("game", 1),
    "games-list-page1.html": ("catalog", 4),
    "login-required.html": ("login", 0),
    "members-page1.html": ("members", 3),
    "rule-post-propolis.html": ("post", 1),
    "space-boardgame-lab-games-page1.html": ("space", 4),
}


@pytest.mark.shared
@pytest.mark.parametrize("name", shared_params("site-samples", "*.html"))
def test_every_sample_parses_through_parse_document(name: str) -> None:
    """`bodoge parse` detects each sample's kind and yields the expected number of items."""
    path = shared_file("site-samples", name)
    kind, count = EXPECTED_SAMPLE_ITEMS[name]
    body = path.read_bytes()
    assert detect_kind(body, str(path)) == kind
    assert len(parse_document(body, url=str(path))) == count
    if kind != "login":
        assert len(parse_document(body, url=str(path), kind=kind)) == count
