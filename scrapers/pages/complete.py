"""Whether a page arrived whole: the layout's end, and a listing's pagination block.

Why: a page cut off mid-document still answers HTTP 200, and lxml closes every open
element for us, so a cut page parses into a plausible but partial tree: a game page
without its counters (they would be stored as NULL), a collection page with half its
cards and no next link (the listing would look complete and the missing games would be
deleted). Only the closing markup tells a whole page from a cut one, so every page
parser asks here first and raises `TruncatedPage` (reason `truncated`) on a cut page;
the spider quarantines it and takes nothing from it.

What counts as the end (every page of the site and every sample ends so):
- the layout's `</html>`, followed by nothing but whitespace and comments. The parsed
  tree cannot show it (lxml adds missing end tags), so it is read from the text the
  Selector was built from (`response.selector` and `scrapers.parse` both keep it);
- on a listing page with rows (catalogue, member directory, collection, cafe games),
  the pagination block after the last row: the site prints it even on a one-page
  listing, and it is the last thing a listing writes before closing `<main>`.

A login page (private collection) and an empty listing are complete pages like any
other: they need their `</html>` but carry no rows, hence no pagination block.
"""

from __future__ import annotations

import re
from typing import Any

from parsel import Selector

from scrapers.pages.markup import Node, PageParseError, xpath

#: Reason every cut page is quarantined with.
TRUNCATED = "truncated"
#: The layout's end: `</html>` then only whitespace and comments.
_LAYOUT_END = re.compile(r"</html\s*>(?:\s|<!--.*?-->)*\Z", re.IGNORECASE | re.DOTALL)
#: How much of the page's end is searched: the end tag and any trailing comments.
_TAIL_CHARS = 4096
_HAS_CLASS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"
_PAGINATION = (
    f"following::*[{_HAS_CLASS.format('pagination')}]"
    " | following::a[contains(concat(' ', normalize-space(@rel), ' '), ' next ')"
    " or contains(concat(' ', normalize-space(@rel), ' '), ' prev ')]"
)


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

    parsel keeps it (`Selector(text=…)`, Scrapy's `response.selector`); a Selector built
    from an lxml root has none, and only its structure can then be checked.
    """
    text: Any = getattr(selector, "_text", None)
    return text if isinstance(text, str) else None


def has_layout_end(text: str) -> bool:
    """Whether the page text ends with the layout's `</html>` (whitespace, comments after)."""
    return _LAYOUT_END.search(text[-_TAIL_CHARS:]) is not None


def require_complete(selector: Selector, *, what: str) -> None:
    """Raise TruncatedPage unless the page's text ends with the layout's `</html>`."""
    text = source_text(selector)
    if text is not None and not has_layout_end(text):
        raise TruncatedPage(f"{what} ends before its closing </html>")


def require_listing_end(rows: list[Node], *, what: str) -> None:
    """Raise TruncatedPage unless a pagination block follows the listing's last row.

    Why after the last row: a cut listing may still show a pagination block printed
    above the rows; only the one below them proves the rows are all there.
    """
    if rows and not xpath(rows[-1], _PAGINATION):
        raise TruncatedPage(f"{what} has no pagination block after its last row")
