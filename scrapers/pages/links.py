"""The links the spiders follow: next pages, games, posts, members, cafes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain
from urllib.parse import urljoin

from parsel import Selector

from scrapers.pages.markup import GAME_PATH, MEMBER_PATH, POST_PATH, SPACE_PATH, Node, absolute, path, xpath

_AUTHOR_HREFS = "//*[contains(@class, 'posts-author')]/descendant-or-self::a/@href | //a[@rel='author']/@href"


def next_page_url(selector: Selector, url: str) -> str | None:
    """The next page of a listing (`rel="next"`, else the 次へ link), absolute; None on the last."""
    return _page_link(selector, url, rel="next", label="次へ")


def prev_page_url(selector: Selector, url: str) -> str | None:
    """The previous page of a listing (`rel="prev"`, else the 前へ link), absolute; None on page 1."""
    return _page_link(selector, url, rel="prev", label="前へ")


def _page_link(selector: Selector, url: str, *, rel: str, label: str) -> str | None:
    """The first `rel` link (an `<a>` or `<link>`), else the first `<a>` whose text starts with `label`."""
    root = selector.root
    by_rel = xpath(
        root,
        f"//a[contains(concat(' ', normalize-space(@rel), ' '), ' {rel} ')]/@href | //link[@rel='{rel}']/@href",
    )
    hrefs = chain(by_rel, _lazy(root, f"//a[starts-with(normalize-space(.), '{label}')]/@href"))
    return next(filter(None, (absolute(url, h) for h in hrefs)), None)


def _lazy(root: Node, query: str) -> Iterator[str]:
    """The strings `query` selects, looked up only if the caller gets that far."""
    yield from xpath(root, query)


def _links(selector: Selector, url: str, pattern: re.Pattern[str], scope: str = "//a/@href") -> list[str]:
    """Absolute same-site links whose path matches pattern, rebuilt from the match, in order."""
    found: dict[str, None] = {}
    for href in xpath(selector.root, scope):
        target = absolute(url, href)
        if not target:
            continue
        match = pattern.match(path(target))
        if match:
            found[urljoin(target, match[0].rstrip("/"))] = None
    return list(found)


def game_links(selector: Selector, url: str) -> list[str]:
    """Links to game pages (`/games/<slug>`), absolute, without query, deduplicated."""
    return _links(selector, url, GAME_PATH)


def post_links(selector: Selector, url: str) -> list[str]:
    """Links to rule/review posts (`/games/<slug>/rules|reviews/<id>`) on a game page."""
    return _links(selector, url, POST_PATH)


def member_links(selector: Selector, url: str) -> list[str]:
    """Links to member profiles (`/friends/<id>`) in the member directory."""
    return _links(selector, url, MEMBER_PATH)


def author_links(selector: Selector, url: str) -> list[str]:
    """Member links on a post page: the author (`posts-author`, `rel=author`) first, then any other."""
    authors = _links(selector, url, MEMBER_PATH, _AUTHOR_HREFS)
    return list(dict.fromkeys(authors + member_links(selector, url)))


def space_links(selector: Selector, url: str) -> list[str]:
    """Links to board game cafes (`/spaces/<slug>`), as the cafe's own URL."""
    return _links(selector, url, SPACE_PATH)
