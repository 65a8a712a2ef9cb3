"""A page's tree straight from its bytes, with one lxml parser per thread.

Why: Scrapy's `response.selector` decodes the body, scans it for a `<base>` URL, strips
and re-encodes the text and builds a fresh lxml parser for every page; on a game page
that cost about a third of all our parsing (BENCHMARKS.md, "Parsing"). A UTF-8 body is
already what lxml wants, so `body_selector` hands it over as is, with a parser kept per
thread (lxml parsers must not be shared between threads), and wraps the root in a
parsel Selector so that the page parsers are unchanged.

The parser is lxml's own `etree.HTMLParser`, not `lxml.html`'s: the same libxml2 parser
with the same options, so the same tree, but its elements are lxml's plain ones.
`lxml.html` picks each element's Python class through a Python lookup, once per element
the parser touches, and that lookup cost as much as everything else in parsing a game
page; the parsers use no `lxml.html` method (`text_content`, `classes`, …), only what
every lxml element has.

The tree is the one `response.selector` builds, serialised byte for byte the same and
giving the same items (tested on the sample site's pages and on fuzzed ones): the same
bytes after parsel's own strip and NUL removal, the same parser options. Where it could differ (another encoding, invalid UTF-8,
a byte-order mark, non-ASCII whitespace at either end, which `str.strip` removes and
`bytes.strip` keeps) `body_selector` answers None and the caller takes
`response.selector`. The decoded text is kept on the Selector (`page_text`), because
whether a page arrived whole is read from its text (`scrapers.pages.complete`).
"""

from __future__ import annotations

import codecs
import threading
from typing import TYPE_CHECKING, Any

from lxml import etree
from parsel import Selector

if TYPE_CHECKING:
    from scrapy.http import TextResponse

_ASCII_SPACE = " \t\n\r\x0b\x0c"  # what `bytes.strip()` removes
_local = threading.local()


class BodySelector(Selector):
    """A parsel Selector over a tree parsed from bytes, keeping the page's text.

    `page_text` is what `Selector(text=…)` would keep as its text: the decoded body
    (None on the Selectors its queries return, as parsel's own have no text either).
    """

    __slots__ = ("page_text",)

    def __init__(self, *args: Any, page_text: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.page_text = page_text


def _parser() -> etree.HTMLParser:
    """This thread's parser, with parsel's options for HTML (`create_root_node`)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = etree.HTMLParser(recover=True, encoding="utf-8", huge_tree=True)
    return parser


def body_selector(body: bytes, encoding: str | None) -> BodySelector | None:
    """A Selector over the page's bytes, or None when only `response.selector` is exact.

    ``encoding`` is the response's (`response.encoding`); only UTF-8 takes this path.
    """
    if not encoding or codecs.lookup(encoding).name != "utf-8" or body.startswith(codecs.BOM_UTF8):
        return None
    try:
        text = body.decode("utf-8")  # strict: invalid bytes would be replaced by Scrapy
    except UnicodeDecodeError:
        return None
    stripped = text.strip()
    if len(stripped) != len(text.strip(_ASCII_SPACE)):
        return None
    data = body.strip().replace(b"\x00", b"") or b"<html/>"  # parsel's order: strip, then NULs
    parser = _parser()
    root = etree.fromstring(data, parser=parser)
    if root is None:  # nothing but a comment or a doctype, say
        root = etree.fromstring(b"<html/>", parser=parser)
    return BodySelector(root=root, type="html", page_text=text)


def page_selector(response: TextResponse) -> Selector:
    """The page's Selector: from its bytes where that is exact, else `response.selector`.

    Why not `body_selector(...) or response.selector`: a parsel Selector's truth is
    whether it selects any content, found by serialising the whole page (33 µs a game
    page, half as much as building its tree); a Selector over a document root always
    has some.
    """
    selector = body_selector(response.body, response.encoding)
    return response.selector if selector is None else selector
