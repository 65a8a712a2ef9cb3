"""Markup helpers every page parser shares: XPath on lxml elements, text, hrefs.

Why lxml elements rather than parsel Selectors: a listing page has dozens of rows and each
row needs a handful of lookups; wrapping every result in a Selector cost about 0.5 ms per
collection card. The public functions still take a `parsel.Selector` and start from its
`.root`; the XPath expressions are the ones parsel would run (CSS is translated by parsel's
own translator), compiled once, so the answers are the same.

Mind lxml's truthiness: an element without children is falsy. Test `is None`, never `or`.
The same for a parsel Selector: its truth is whether it selects content, found by
serialising everything it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeAlias
from urllib.parse import unquote, urljoin, urlsplit

from lxml import etree
from parsel.csstranslator import css2xpath

#: An lxml element (the `.root` of a Selector, or an element found under it).
Node: TypeAlias = etree._Element


class PageParseError(ValueError):
    """A page lacks a hook its items need (truncated HTML, changed markup): quarantine it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


GAME_PATH = re.compile(r"^/games/([^/?#]+)/?$")
GAME_ANY_PATH = re.compile(r"^/games/([^/?#]+)")
POST_PATH = re.compile(r"^/games/([^/?#]+)/(rules|reviews)/(\d+)")
MEMBER_PATH = re.compile(r"^/friends/(\d+)")
MEMBER_PROFILE_PATH = re.compile(r"^/friends/(\d+)/?$")
SPACE_PATH = re.compile(r"^/spaces/([^/?#]+)")
_JAPANESE = re.compile("[\u3040-\u30ff\u3400-\u9fff]")
#: What HTML collapses when it renders text: ASCII whitespace only (never U+3000).
_HTML_SPACE = " \t\n\r\f"
_WS = re.compile(f"[{_HTML_SPACE}]+")
_CLASS_SEPARATORS = re.compile(r"[\s\-_]+")
_XML_SPACE = re.compile(r"[ \t\r\n]+")  # what XPath's normalize-space() collapses
_XML_CHARS = " \t\r\n"
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section table tbody td th thead tr ul".split()
)
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())


# --- XPath and CSS --------------------------------------------------------------------


@lru_cache(maxsize=None)
def _compiled(query: str) -> etree.XPath:
    """An XPath compiled once; plain `str` results, as parsel returns them."""
    return etree.XPath(query, smart_strings=False)


@lru_cache(maxsize=None)
def _css_query(css_query: str) -> str:
    """A CSS selector as the XPath parsel's HTML translator makes of it."""
    return css2xpath(css_query)


def xpath(node: Node, query: str, **variables: Any) -> list[Any]:
    """What `query` selects under node: elements or strings, in document order."""
    result = _compiled(query)(node, **variables)
    return result if isinstance(result, list) else [result]


def first(node: Node, query: str, **variables: Any) -> Any | None:
    """The first element or string `query` selects under node, or None."""
    found = xpath(node, query, **variables)
    return found[0] if found else None


def css(node: Node, css_query: str) -> list[Node]:
    """The elements a CSS selector matches, node itself included (parsel's `.css`)."""
    return xpath(node, _css_query(css_query))


def text(node: Node) -> str:
    """The XPath string value of an element (`string(.)`): all its text, markup dropped.

    Parsing pays this on nearly every field, so it takes the cheapest exact way: an
    element without children has only its `.text`; any other is serialised as text by
    libxml2 (`tostring(method="text")`: the text nodes in order, comments' and
    processing instructions' own text left out, as in `string(.)`), about three times
    faster than joining `itertext`, which builds a Python proxy per element inside.
    """
    if not len(node) and isinstance(node.tag, str):
        return node.text or ""
    return etree.tostring(node, method="text", encoding=str, with_tail=False)


def clean(value: str | None) -> str | None:
    """Display text as the site shows it: HTML whitespace collapsed, nothing else changed.

    Why only HTML whitespace (space, tab, CR, LF, FF): that is all a browser collapses.
    An ideographic space (U+3000, `地理ゲーム　ツイモット`), a no-break space and
    full-width characters (`（）`, `：`, `２`) are shown as written, so they are stored as
    written; matching and number parsing normalise their own copy (`fields.normalize`).
    None when nothing visible is left.
    """
    cleaned = _WS.sub(" ", value or "").strip(_HTML_SPACE)
    return cleaned if cleaned.strip() else None


def string(node: Node | None) -> str | None:
    """The cleaned text content of one element (None for no element or no text)."""
    return clean(text(node)) if node is not None else None


def main_of(root: Node) -> Node:
    """The page's `<main>` (where the content is), else `<body>`, else the document."""
    tree = root.getroottree()  # `//main`: the whole document, wherever root sits in it
    for tag in ("main", "body"):
        found = next(tree.iter(tag), None)
        if found is not None:
            return found
    return root


def canonical(root: Node) -> str | None:
    """The page's canonical URL (`<link rel=canonical>`, else `og:url`)."""
    tree = root.getroottree()  # as `//link[@rel='canonical']/@href`, then og:url, without XPath
    href = next((el.get("href") for el in tree.iter("link")
                 if el.get("rel") == "canonical" and el.get("href") is not None), None)
    return href or next((el.get("content") for el in tree.iter("meta")
                         if el.get("property") == "og:url" and el.get("content") is not None), None)


def main_and_canonical(root: Node) -> tuple[Node, str | None]:
    """`main_of(root)` and `canonical(root)` from one walk of the document.

    Why: each of them starts an lxml walk filtered by tag, and starting one costs about
    as much as the walk itself; a game page asks for both.
    """
    main = body = href = og_url = None
    top = root.getroottree().getroot()  # what `getroottree().iter` walks: the whole document
    for el in top.iter("main", "body", "link", "meta"):
        tag = el.tag
        if tag == "main":
            if main is None:
                main = el
        elif tag == "body":
            if body is None:
                body = el
        elif tag == "link":
            if href is None and el.get("rel") == "canonical":
                href = el.get("href")
        elif og_url is None and el.get("property") == "og:url":
            og_url = el.get("content")
    scope = main if main is not None else body if body is not None else root
    return scope, href or og_url


@dataclass(frozen=True)
class Hooks:
    """What `find_hooks` found: elements by class name and by label, in document order.

    `nodes` holds every node under the scope: while the caller keeps the Hooks, lxml
    reuses those Python proxies in later walks of the page instead of building them
    again (lxml.html builds each through a Python class lookup, the largest single
    cost of reading a page).
    """

    by_class: dict[str, list[Node]]
    by_label: dict[str, list[Node]]
    nodes: list[Node]


#: Which of the hook names each class attribute contains, per tuple of names: a page's
#: class attributes come from the site's small vocabulary, so the names are tested once
#: per attribute rather than once per element (bounded, for pages with odd classes).
_class_hits: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
_CLASS_HITS_KEPT = 4096


def find_hooks(scope: Node, classes: tuple[str, ...], labels: tuple[str, ...] = ()) -> Hooks:
    """A page's hooks under scope, by class and by label, in one walk of the tree.

    Why one walk: a game page looks up a dozen hooks, and an XPath walk over the whole
    `<main>` per hook cost as much as all the rest of its parsing. Answers, each list in
    document order, exactly what these select (tested against them on fuzzed pages):

    * by class, for each name: `.//*[contains(@class, name)]`;
    * by label, for each label: `.//*[not(self::a) and normalize-space(.)=$label and
      not(*[normalize-space(.)=$label])]`, the innermost element reading the label.
      Labels hold no whitespace.

    How labels are found without the string of every element: an element reading a
    label holds some text node, and every text node inside it is (stripped) a piece
    of the label. The walk keeps the elements holding such a text node as seeds; only
    a seed and its ancestors, up to the first whose text is longer than any label
    (an ancestor's text is longer still), are checked.
    """
    by_class: dict[str, list[Node]] = {name: [] for name in classes}
    by_label: dict[str, list[Node]] = {label: [] for label in labels}
    pieces = "\n".join(labels)
    hits = _class_hits.setdefault(classes, {})
    seeds: list[Node] = []
    spaces = _XML_CHARS
    nodes = list(scope.iterdescendants())
    for node in nodes:
        tail = node.tail
        if tail and pieces and (piece := tail.strip(spaces)) and piece in pieces:
            seeds.append(node.getparent())  # a tail is text of the parent
        if type(node.tag) is not str:
            continue  # a comment: its own text is no text of the page
        attr = node.get("class")
        if attr:
            names = hits.get(attr)
            if names is None:
                names = tuple(name for name in classes if name in attr)
                if len(hits) < _CLASS_HITS_KEPT:
                    hits[attr] = names
            for name in names:
                by_class[name].append(node)
        text = node.text
        if text and pieces and (piece := text.strip(spaces)) and piece in pieces:
            seeds.append(node)
    if seeds:
        _innermost_labelled(scope, seeds, by_label)
    return Hooks(by_class, by_label, nodes)


def _innermost_labelled(scope: Node, seeds: list[Node], by_label: dict[str, list[Node]]) -> None:
    """Add each seed or ancestor (below scope) reading a label, unless a child reads it too."""
    longest = max(len(label) for label in by_label)
    seen: set[Node] = set()
    for node in seeds:
        while node is not None and node is not scope and node not in seen:
            seen.add(node)
            value = _normalized(node)
            if len(value) > longest:
                break
            if value in by_label and node.tag != "a" and not (len(node) and any(
                _normalized(child) == value for child in node if isinstance(child.tag, str)
            )):
                by_label[value].append(node)
            node = node.getparent()


def _normalized(el: Node) -> str:
    """XPath's `normalize-space(.)` of an element (`text` is XPath's string)."""
    return _XML_SPACE.sub(" ", text(el)).strip(" ")


# --- hrefs ----------------------------------------------------------------------------


#: An absolute web URL that `urlsplit` and `urljoin` take apart and put back unchanged:
#: printable ASCII only (so nothing to strip or drop), a host, a path, and none of
#: `?#;[]` (query, fragment, params, IPv6 brackets). A canonical link is one.
_PLAIN_WEB_URL = re.compile(r"https?://[^\x00-\x20\x7f/?#;\[\]]+(/[^\x00-\x20\x7f?#;\[\]]*)?")


def plain_web_url(url: str) -> re.Match[str] | None:
    """The match of a plain absolute web URL (group 1: its path), else None.

    Why: a game page's canonical link and its URL are such URLs, and reading them
    through `urlsplit`/`urljoin` cost about a seventh of parsing the page; for these
    their answers are known (the scheme, the path, the URL itself), so the parsers
    take them from the match and leave every other URL to `urllib`.
    """
    return _PLAIN_WEB_URL.fullmatch(url) if url.isascii() else None


@lru_cache(maxsize=65536)
def _decoded_path(href: str) -> str:
    return unquote(urlsplit(href.strip()).path)


def path(href: str | None) -> str:
    """The path of an href or URL, percent-decoded ("" when there is none)."""
    if not href:
        return ""
    plain = plain_web_url(href)
    return unquote(plain[1] or "") if plain else _decoded_path(href)


def game_slug(href: str | None) -> str | None:
    """The game slug of a `/games/<slug>` href or URL (also of its rule/review pages)."""
    match = GAME_ANY_PATH.match(path(href))
    return match[1] if match else None


def member_id(href: str | None) -> str | None:
    """The member id of a `/friends/<id>` href or URL, as a string (`"17406"`)."""
    match = MEMBER_PATH.match(path(href))
    return match[1] if match else None


def space_slug(href: str | None) -> str | None:
    """The cafe slug of a `/spaces/<slug>` href or URL."""
    match = SPACE_PATH.match(path(href))
    return match[1] if match else None


def game_link(scope: Node) -> tuple[str, Node] | None:
    """The first link to a game page (`/games/<slug>`, not a post) inside scope, with its slug."""
    for link in xpath(scope, ".//a[@href]"):
        match = GAME_PATH.match(path(link.get("href")))
        if match:
            return match[1], link
    return None


def absolute(url: str, href: str) -> str | None:
    """href resolved against the page URL; None for another host or a non-web link."""
    href = href.strip()
    if not href or href.startswith(("#", "javascript:", "mailto:")):
        return None
    target = urljoin(url, href)
    page_host, target_host = urlsplit(url).netloc, urlsplit(target).netloc
    if page_host and target_host and page_host != target_host:
        return None
    return target


# --- text -----------------------------------------------------------------------------


def has_japanese(value: str | None) -> bool:
    """Whether the text has kana or kanji (a Japanese name rather than a romanised one)."""
    return bool(value and _JAPANESE.search(value))


@lru_cache(maxsize=4096)
def _words(class_attr: str) -> frozenset[str]:
    return frozenset(w for w in _CLASS_SEPARATORS.split(class_attr.lower()) if w)


def class_words(el: Node) -> frozenset[str]:
    """The words of an element's class names (`games-spec-age` → games, spec, age)."""
    return _words(el.get("class") or "")


@lru_cache(maxsize=4096)
def _tokens(class_attr: str) -> frozenset[str]:
    return frozenset(t for t in _XML_SPACE.split(class_attr) if t)


def class_tokens(el: Node) -> frozenset[str]:
    """An element's class names as CSS `.name` and XPath's `concat(' ', normalize-space(@class), ' ')` see them."""
    return _tokens(el.get("class") or "")


def text_fragments(root: Node) -> Iterator[tuple[str, frozenset[str]]]:
    """Each text node under an lxml element with the class words of its enclosing elements."""

    def walk(node: Any, words: frozenset[str]) -> Iterator[tuple[str, frozenset[str]]]:
        if not isinstance(node.tag, str) or node.tag in ("script", "style"):
            return
        own = words | class_words(node)
        if node.text:
            yield node.text, own
        for child in node:
            yield from walk(child, own)
            if child.tail:
                yield child.tail, own

    yield from walk(root, frozenset())


def block_text(el: Node, *, skip_headings: bool = False) -> str | None:
    """An element's text with one line per paragraph, heading, list item or `<br>`."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if not isinstance(node.tag, str) or node.tag in ("script", "style"):
            return
        if skip_headings and node.tag in _HEADINGS:
            return
        block = node.tag in _BLOCK_TAGS
        parts.append("\n" if block else "")
        parts.append(node.text or "")
        for child in node:
            walk(child)
            parts.append(child.tail or "")
        parts.append("\n" if block else "")

    walk(el)
    lines = (clean(line) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line) or None
