"""Whether a page arrived whole, and how many rows its listing says it holds.

Why: a page cut off mid-document still answers HTTP 200, and lxml closes every open
element for us, so a cut page parses into a plausible but partial tree: a game page
without its counters (they would be stored as NULL), a collection page with half its
cards and no next link (the listing would look complete and the missing games would be
deleted). Only the closing markup tells a whole page from a cut one, so every page
parser asks here first and raises `TruncatedPage` (reason `truncated`) on a cut page;
the spider quarantines it and takes nothing from it.

The rule, from evidence the site certainly shows:
- **A page is whole when its document is closed**: the layout's `</html>`, followed by
  nothing but whitespace and comments. The parsed tree cannot show it (lxml adds missing
  end tags), so it is read from the text the Selector was built from (`response.selector`,
  `scrapers.parse` and `source.body_selector` all keep it). A page cut mid-card, or anywhere before its end, is
  not closed.
- **A pagination block proves nothing.** Paginators such as Kaminari and will_paginate
  draw none on a one-page listing, so a closed page with rows and no pagination block
  is a normal one-page listing, never a cut one.
- **A listing's stated total is checked over all its pages** (`stated_total`: 全N個 on the
  catalogue and a collection, 遊べるボードゲーム N個 on a cafe's games, 全N人 on the
  directory). One page cannot tell whether the listing is whole; the spider counts the
  rows it read over every page and calls a listing whose count disagrees with its total
  `incomplete` (see `scrapers.spiders.totals`).

A login page (private collection) and an empty listing are complete pages like any
other: they need their `</html>` and carry no rows.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree
from parsel import Selector

from scrapers.fields import normalize
from scrapers.pages.markup import PageParseError, class_tokens, main_of, text
from scrapers.pages.source import BodySelector

#: Reason every cut page is quarantined with.
TRUNCATED = "truncated"
#: The layout's end: `</html>` then only whitespace and comments.
_LAYOUT_END = re.compile(r"</html\s*>(?:\s|<!--.*?-->)*\Z", re.IGNORECASE | re.DOTALL)
#: How much of the page's end is searched: the end tag and any trailing comments.
_TAIL_CHARS = 4096
#: A listing's total, after `normalize`: 全21,406個, 全1,203人, 遊べるボードゲーム 608個.
_TOTAL = re.compile(r"(?:全|遊べるボードゲーム)\s?(\d[\d,]*)\s?(?:個|人)")
#: Class of a listing row: catalogue, collection card, member, cafe game.
ROW_CLASSES = frozenset({"games-table-row", "list--interests-item", "friends-list-item", "spaces-games-item"})


class TruncatedPage(PageParseError):
    """A page that stops before its closing markup: quarantined as `truncated`, never parsed.

    `reason` is always "truncated" (one quarantine reason for every cut page); `str()`
    adds what was missing, for logs and `bodoge parse`.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(TRUNCATED)
        self.detail = detail

    def __str__(self) -> str:
        return f"{TRUNCATED}: {self.detail}"


def source_text(selector: Selector) -> str | None:
    """The text a Selector was parsed from, or None when it was built from a tree.

    parsel keeps it (`Selector(text=…)`, Scrapy's `response.selector`), and so does a
    Selector parsed from the page's bytes (`source.body_selector`); a Selector built
    from an lxml root has none, and then nothing can be said about its end.
    """
    if isinstance(selector, BodySelector):
        return selector.page_text
    found: Any = getattr(selector, "_text", None)
    return found if isinstance(found, str) else None


def has_layout_end(page_text: str) -> bool:
    """Whether the page text ends with the layout's `</html>` (whitespace, comments after)."""
    return _LAYOUT_END.search(page_text[-_TAIL_CHARS:]) is not None


def require_complete(selector: Selector, *, what: str) -> None:
    """Raise TruncatedPage unless the page's text ends with the layout's `</html>`."""
    page_text = source_text(selector)
    if page_text is not None and not has_layout_end(page_text):
        raise TruncatedPage(f"{what} ends before its closing </html>")


def stated_total(selector: Selector) -> int | None:
    """How many rows the whole listing holds, as the page states it; None where it states none.

    The element whose class ends in `-total` (`games-index-total`, `friends-boardgames-total`,
    `spaces-games-total`, `friends-index-total`) first; else the first element of `<main>`
    without children whose whole text is such a total, outside any link or listing row
    (where a game named 全3個 would be). One walk of `<main>`.
    """
    fallback: int | None = None
    for el in main_of(selector.root).iter(etree.Element):
        if any(token.endswith("-total") for token in class_tokens(el)):
            found = _TOTAL.search(normalize(text(el)))
            if found:
                return _number(found[1])
        elif fallback is None and len(el) == 0 and el.text and ("全" in el.text or "遊べる" in el.text):
            found = _TOTAL.fullmatch(normalize(el.text))
            if found and not _in_row_or_link(el):
                fallback = _number(found[1])
    return fallback


def _in_row_or_link(el: Any) -> bool:
    """Whether an element sits in a link or a listing row (where a game named 全3個 would)."""
    return any(up.tag in ("a", "li", "tr") or class_tokens(up) & ROW_CLASSES for up in el.iterancestors(etree.Element))


def _number(digits: str) -> int:
    return int(digits.replace(",", ""))
