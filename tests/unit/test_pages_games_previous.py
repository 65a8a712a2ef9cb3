"""The faster game-page parser gives the previous parser's items, page for page.

`tests/support/previous_game_page.py` is the parser as it was before issue 21's speed work; here
both read the sample site's game pages (its faults included), fuzzed pages in the game
page's shape and the general fuzzed pages, through both trees the spider may build, at a
web URL, a file URL and a bare file name. Each shortcut is also held to what it replaces
on its own, over any input: `text` to XPath's `string(.)`, the plain-URL reading to
`urlsplit`/`urljoin`, the one-walk `main_and_canonical` to `main_of` and `canonical`,
and the ASCII shortcuts of `fields` to the previous `normalize` and `parse_count`.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urljoin, urlsplit

from hypothesis import given
from hypothesis import strategies as st
from lxml import etree
from parsel import Selector
from scrapy.http import HtmlResponse

from samplesite.generator import generate_site
from samplesite.render import render
from scrapers import fields, pages
from scrapers.pages import markup
from scrapers.pages.games import _page_url
from scrapers.pages.source import body_selector
from tests.support import previous_game_page as previous
from tests.support.fuzz_pages import BASE, FUZZ, HREFS, LABEL_TEXT, ODD_TEXT, documents

URLS = (f"{BASE}/games/a-game", "file:///tmp/saved.html", "saved.html")
_STRING = etree.XPath("string(.)", smart_strings=False)


def _outcome(parse: Any, selector: Any, url: str) -> Any:
    try:
        return parse(selector, url)
    except pages.PageParseError as exc:
        return ("error", type(exc).__name__, exc.reason)
    except ValueError:  # urllib refusing the page URL (a bad IPv6 host): it must refuse it either way
        return ("ValueError",)


def _assert_same_items(body: bytes, urls: tuple[str, ...] = URLS) -> None:
    response = HtmlResponse(URLS[0], body=body, encoding="utf-8")
    trees = [tree for tree in (body_selector(response.body, response.encoding), response.selector) if tree is not None]
    for tree in trees:
        for url in urls:
            assert _outcome(pages.game_item, tree, url) == _outcome(previous.game_item, tree, url), url


@cache
def _site_game_pages() -> tuple[tuple[str, bytes], ...]:
    site = generate_site(n_games=120, n_users=30, seed=11)  # with the site's faults: odd and cut pages
    return tuple((BASE + g.url, render(site, g.url).body_bytes) for g in site.games)


def test_sample_site_game_pages_give_the_previous_items() -> None:
    for url, body in _site_game_pages():
        _assert_same_items(body, (url, *URLS[1:]))


def _escaped(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


#: Canonical links and page URLs: plain ones, and what `urlsplit` strips, drops or refuses.
CANONICALS = st.sampled_from([
    f"{BASE}/games/a-game", f"{BASE}/games/b-game/", "http://bodoge.hoobby.net/games/c", "HTTPS://bodoge.hoobby.net/games/d",
    f"{BASE}/games/e?x=1", f"{BASE}/games/f#top", f"{BASE}/games/g;p", f"{BASE}/games/./h", f"{BASE}/games/%E3%81%82",
    " https://bodoge.hoobby.net/games/i", "/games/j", "games/k", "//bodoge.hoobby.net/games/l", "https:///games/m",
    "https://[::1]/games/n", "https://[bad/games/o", "ftp://x/games/p", "", "https://bodoge.hoobby.net",
])


@st.composite
def game_pages(draw: st.DrawFn) -> str:
    """A game page in the site's shape, its texts, hrefs and canonical link left to the fuzzer."""
    t = lambda: _escaped(draw(ODD_TEXT))  # noqa: E731
    label = lambda: draw(LABEL_TEXT)  # noqa: E731  (may hold markup: a link, a comment, a <br>)
    link = lambda: f'<a href="{draw(HREFS)}">{t()}</a>'  # noqa: E731
    landmarks = draw(st.lists(st.sampled_from(["link", "link-bare", "meta", "main", "body"]), max_size=4))
    head = "".join({"link": f'<link rel="canonical" href="{_escaped(draw(CANONICALS))}">',
                    "link-bare": '<link rel="canonical">',  # no href: the next one counts
                    "meta": f'<meta property="og:url" content="{_escaped(draw(CANONICALS))}">',
                    "main": f"<main>{t()}</main>", "body": "<body>"}[kind] for kind in landmarks)
    statuses = draw(st.lists(st.sampled_from(["watching", "played", "favorite", "have", "x"]), max_size=4))
    interests = "".join(f'<li class="games-interest {s}"><span class="games-interest-count">{t()}</span>{t()}</li>'
                        for s in statuses)
    credits = "".join(f'<li><span class="games-credit-headline">{label()}</span>{link()}{link()}</li>'
                      for _ in range(draw(st.integers(0, 4))))
    return (f'<!DOCTYPE html><html><head><title>{t()} / {t()} | x</title>{head}</head><body>'
            f'<main id="games-show"><h1 class="games-title"><span class="games-title-japanese">{t()}</span>'
            f'<span class="games-title-english">{t()}</span></h1><ul class="games-spec">'
            f'<li class="games-spec-item games-spec-players">{t()}</li><li class="games-spec-item">{t()}</li></ul>'
            f'<ul class="games-interests">{interests}</ul><ul class="games-credit-list">{credits}</ul>'
            f'<section class="games-overview"><h2>概要</h2><p>{t()}</p></section></main></body></html>\n')


@FUZZ
@given(game_pages(), st.one_of(st.sampled_from(URLS), CANONICALS))
def test_fuzzed_game_pages_give_the_previous_items(html: str, url: str) -> None:
    _assert_same_items(html.encode("utf-8"), (url, *URLS))


@FUZZ
@given(documents())
def test_fuzzed_pages_of_any_kind_give_the_previous_items(html: str) -> None:
    _assert_same_items(html.encode("utf-8"))


@FUZZ
@given(st.one_of(documents(), game_pages()))
def test_text_is_xpath_string_value_and_landmarks_are_main_and_canonical(html: str) -> None:
    root = Selector(text=html).root
    for el in root.iter(etree.Element):
        assert markup.text(el) == _STRING(el)
    assert markup.main_and_canonical(root) == (markup.main_of(root), markup.canonical(root))


#: URL-ish strings built from the pieces `urlsplit` and `urljoin` treat specially.
URL_PIECES = st.sampled_from([
    "https://", "http://", "HTTPS://", "ftp://", "file:///", "", "//", "/", "a", "b.example", ":80", "/games/x",
    "?", "#", ";", "[", "]", "%41", " ", "\t", "\n", "\x1f", "\x7f", "é", "..", ".", "/./", "/../", "@", "\\",
])
URLISH = st.lists(URL_PIECES, max_size=8).map("".join)


def _raised(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    except ValueError:  # urlsplit refuses a bad IPv6 host: the same refusal either way
        return "ValueError"


def _previous_page_url(url: str, page_canonical: str | None) -> str | None:
    is_web = urlsplit(url).scheme in ("http", "https")
    if page_canonical:
        return urljoin(url, page_canonical) if is_web else page_canonical
    return url if is_web else None


@FUZZ
@given(URLISH, st.one_of(URLISH, CANONICALS))
def test_plain_urls_read_as_urllib_reads_them(url: str, page_canonical: str) -> None:
    assert _raised(markup.path, page_canonical) == _raised(previous.path, page_canonical)
    assert _raised(_page_url, url, page_canonical) == _raised(_previous_page_url, url, page_canonical)


@FUZZ
@given(st.one_of(ODD_TEXT, st.text(alphabet="0123456789, \t", max_size=14), st.text(st.characters(max_codepoint=127))))
def test_ascii_shortcuts_of_fields_answer_as_before(text: str) -> None:
    assert fields.normalize(text) == previous.normalize(text)
    assert fields.parse_count(text) == previous.parse_count(text)
