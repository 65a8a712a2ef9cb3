"""The game-page parser as it was before issue 21's speed work, frozen as the reference.

Why a frozen copy: `scrapers.pages.games.game_item` was made faster (text without
`itertext`, hooks tested once per class attribute, plain URLs without `urllib`, one tag
walk for `<main>` and the canonical link, ASCII text without NFKC), and each of those
must leave every item as it was; `tests/unit/test_pages_games_previous.py` compares the two
page by page. This copy is main's `game_item` at a717d7e with the helpers it used
written as their definitions: `text` is XPath's `string(.)`, the hooks are the XPaths
`markup.find_hooks` answers for (held to them by `tests/unit/test_fuzz_parsers.py`), `path`
is `urlsplit`'s, and `normalize`/`parse_count` are the previous ones. The spec cells and
a counter's status go through `scrapers.pages.specs` (`spec_values`, `status_of`),
unchanged but for the `markup.text` and `fields.normalize` they call, which
`tests/unit/test_pages_games_previous.py` holds to XPath's `string(.)` and to the previous
`normalize` on any input.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote, urljoin, urlsplit

from lxml import etree
from parsel import Selector

from scrapers.fields import _COUNT, _INVISIBLE, _WAVE_DASHES, _WHITESPACE, as_int32
from scrapers.items import Game
from scrapers.pages.complete import require_complete
from scrapers.pages.games import _CREDIT_HREFS, _CREDIT_LABELS, _HOOK_CLASSES
from scrapers.pages.markup import (
    _HTML_SPACE,
    GAME_PATH,
    PageParseError,
    block_text,
    canonical,
    class_tokens,
    first,
    has_japanese,
    main_of,
    xpath,
)
from scrapers.pages.specs import STATUS_OF_LABEL, spec_values, status_of

Node = etree._Element
_STRING = etree.XPath("string(.)", smart_strings=False)
_WS = re.compile(f"[{_HTML_SPACE}]+")
_LABELLED = ".//*[not(self::a) and normalize-space(.)=$label and not(*[normalize-space(.)=$label])]"


def normalize(text: str | None) -> str:
    """`fields.normalize` before the ASCII shortcut."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text.translate(_WAVE_DASHES))
    return _WHITESPACE.sub(" ", text).strip()


def parse_count(text: str | None) -> int | None:
    """`fields.parse_count` before the plain-digits shortcut."""
    match = _COUNT.search(normalize(text))
    digits = match[0].replace(",", "") if match else ""
    return as_int32(int(digits)) if 0 < len(digits) <= 10 else None


def path(href: str | None) -> str:
    """`markup.path` before plain URLs were read without `urlsplit`."""
    return unquote(urlsplit(href.strip()).path) if href else ""


def text(node: Node) -> str:
    return _STRING(node)


def clean(value: str | None) -> str | None:
    cleaned = _WS.sub(" ", value or "").strip(_HTML_SPACE)
    return cleaned if cleaned.strip() else None


def string(node: Node | None) -> str | None:
    return clean(text(node)) if node is not None else None


def game_item(selector: Selector, url: str) -> Game:
    """main's `game_item`, with the hooks selected by their XPaths."""
    require_complete(selector, what="game page")
    root = selector.root
    main = main_of(root)
    hooks = {name: xpath(main, f".//*[contains(@class, '{name}')]") for name in _HOOK_CLASSES}
    heads = {label: xpath(main, _LABELLED, label=label) for labels in _CREDIT_LABELS.values() for label in labels}
    name_ja, name_en = _game_names(root, main, hooks)
    if not (name_ja or name_en):
        raise PageParseError("game page has no title")
    page_canonical = canonical(root)
    game_id = _game_id(root, url, page_canonical)
    if not game_id:
        raise PageParseError("game page has no game id")
    spec_scope = next((el for el in hooks["games-spec"] if "games-spec" in class_tokens(el)), None)
    counts = _interest_counts(main, [el for el in hooks["games-interest"] if "games-interest" in class_tokens(el)])
    is_web = urlsplit(url).scheme in ("http", "https")
    if page_canonical:
        page_url = urljoin(url, page_canonical) if is_web else page_canonical
    else:
        page_url = url if is_web else None
    return Game(
        game_id=game_id,
        name_ja=name_ja,
        name_en=name_en,
        **spec_values(spec_scope if spec_scope is not None else main),
        n_watching=counts.get("watching"),
        n_played=counts.get("played"),
        n_favorite=counts.get("favorite"),
        n_have=counts.get("have"),
        designers=_credit_list(main, "designers", heads),
        mechanics=_credit_list(main, "mechanics", heads),
        themes=_credit_list(main, "themes", heads),
        overview=_overview(main, hooks["games-overview"]),
        url=page_url,
    )


def _game_id(root: Node, url: str, page_canonical: str | None) -> str | None:
    for candidate in (page_canonical, url, *xpath(root, "//h1//a/@href")):
        match = GAME_PATH.match(path(candidate))
        if match:
            return match[1]
    return None


def _game_names(root: Node, main: Node, hooks: dict[str, list[Node]]) -> tuple[str | None, str | None]:
    name_ja = string(next(iter(hooks["title-japanese"]), None))
    name_en = string(next(iter(hooks["title-english"]), None))
    if name_ja or name_en:
        return name_ja, name_en
    h1 = string(first(main, ".//h1"))
    if not h1:
        return None, None
    title = (clean(first(root, "//title/text()")) or "").rsplit(" | ", 1)[0]
    if " / " in title:
        ja, en = title.split(" / ", 1)
        return clean(ja), clean(en)
    return (h1, None) if has_japanese(h1) else (None, h1)


def _interest_counts(scope: Node, boxes: list[Node]) -> dict[str, int | None]:
    counts: dict[str, int | None] = {}
    for box in boxes:
        status = status_of(box)
        if status and status not in counts:
            number = next((el for el in box.iterdescendants(etree.Element) if "interest-count" in el.get("class", "")), None)
            counts[status] = parse_count(text(number) if number is not None else text(box))
    if not counts:
        for item in xpath(scope, ".//li | .//a | .//button"):
            match = re.fullmatch(r"([\d,]+)\s*(\S+)", normalize(text(item)))
            if match and match[2] in STATUS_OF_LABEL:
                counts.setdefault(STATUS_OF_LABEL[match[2]], parse_count(match[1]))
    return counts


def _credit_list(scope: Node, field: str, heads: dict[str, list[Node]]) -> list[str]:
    shape = _CREDIT_HREFS[field]
    links: list[Node] = []
    for label in _CREDIT_LABELS[field]:
        for head in heads[label]:
            box = xpath(head, "following-sibling::*[1]") if head.tag in ("dt", "th") else [head.getparent()]
            links = [a for el in box for a in el.iterdescendants("a")]
            shaped = [a for a in links if shape.search(a.get("href", ""))]
            links = shaped or links
            if links:
                break
        if links:
            break
    if not links:
        links = [a for a in xpath(scope, ".//a[@href]") if shape.search(a.get("href"))]
    names = (string(a) for a in links)
    return list(dict.fromkeys(name for name in names if name))


def _overview(main: Node, sections: list[Node]) -> str | None:
    section = sections[0] if sections else None
    if section is None:
        heading = first(main, ".//*[self::h2 or self::h3][normalize-space(.)='概要']")
        section = first(heading, "..") if heading is not None else None
    return block_text(section, skip_headings=True) if section is not None else None
