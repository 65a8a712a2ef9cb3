"""A game page's tree from its bytes (`scrapers.pages.source`) is the tree Scrapy builds.

The spider parses game pages with `body_selector` instead of `response.selector`; these
tests hold it to the same tree and the same items (or the same PageParseError) on the
sample site's pages, on fuzzed pages, cut ones included, and say when it steps aside.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import given
from lxml import etree
from scrapy.http import HtmlResponse

from samplesite.generator import generate_site
from samplesite.render import render
from scrapers import pages
from scrapers.pages.source import BodySelector, body_selector, page_selector
from tests.support.fuzz_pages import BASE, FUZZ, PARSERS, documents


def _response(body: bytes, encoding: str = "utf-8") -> HtmlResponse:
    return HtmlResponse(f"{BASE}/games/a-game", body=body, encoding=encoding)


def _outcome(parse: Any, selector: Any, url: str) -> Any:
    try:
        return parse(selector, url)
    except pages.PageParseError as exc:
        return ("error", type(exc).__name__, exc.reason)


def _assert_same(body: bytes, url: str, parsers: tuple[Any, ...] = (pages.game_item,)) -> None:
    response = HtmlResponse(url, body=body, encoding="utf-8")
    ours = body_selector(response.body, response.encoding)
    assert ours is not None
    theirs = response.selector
    assert etree.tostring(ours.root) == etree.tostring(theirs.root)
    for parse in parsers:
        assert _outcome(parse, ours, url) == _outcome(parse, theirs, url), parse.__name__
    assert pages.post_links(ours, url) == pages.post_links(theirs, url)
    assert pages.space_links(ours, url) == pages.space_links(theirs, url)


@cache
def _site_pages() -> tuple[tuple[str, bytes], ...]:
    site = generate_site(n_games=40, n_users=30, seed=5)  # with the site's faults: odd and cut pages
    urls = [g.url for g in site.games] + ["/games", "/friends", f"{site.cafes[0].url}/games"]
    return tuple((BASE + url, render(site, url).body_bytes) for url in urls)


def test_sample_site_pages_give_the_same_tree_and_items() -> None:
    for url, body in _site_pages():
        _assert_same(body, url, PARSERS)


def test_a_cut_game_page_is_still_truncated() -> None:
    url, body = next((u, b) for u, b in _site_pages() if b"games-show" in b)
    cut = body[: len(body) // 2]
    with pytest.raises(pages.TruncatedPage):
        pages.game_item(body_selector(cut, "utf-8"), url)


@FUZZ
@given(documents())
def test_fuzzed_pages_give_the_same_tree_and_items(html: str) -> None:
    _assert_same(html.encode("utf-8"), f"{BASE}/games/a-game", PARSERS)


@pytest.mark.parametrize("body, encoding", [
    ("<html><body>é</body></html>".encode("latin-1"), "latin-1"),  # another encoding
    (b"<html><body>\xff</body></html>", "utf-8"),  # invalid UTF-8: Scrapy replaces it
    (b"\xef\xbb\xbf<html></html>", "utf-8"),  # a byte-order mark
    ("\u3000<html></html>\u3000".encode("utf-8"), "utf-8"),  # str.strip() removes it, bytes.strip() not
])
def test_steps_aside_where_only_scrapy_is_exact(body: bytes, encoding: str) -> None:
    assert body_selector(body, encoding) is None


def test_odd_but_exact_bodies() -> None:
    for body in (b"", b"   ", b"<!-- only a comment -->", b"\x00<html><body><main>x</main></body></html>\x00\n",
                 b"\n <html><head><title>t</title></head><body><main>a\x00b</main></body></html>\n"):
        response = _response(body)
        ours = body_selector(response.body, response.encoding)
        assert isinstance(ours, BodySelector)
        assert etree.tostring(ours.root) == etree.tostring(response.selector.root)
        assert ours.xpath("//main/text()").getall() == response.selector.xpath("//main/text()").getall()


def test_page_selector_takes_the_bytes_where_exact_and_scrapy_elsewhere() -> None:
    whole = _response(b"<html><body><main>x</main></body></html>")
    assert isinstance(page_selector(whole), BodySelector)
    for odd in (_response(b"<html><body>\xff</body></html>"), _response("<html>é</html>".encode("latin-1"), "latin-1")):
        assert page_selector(odd) is odd.selector
