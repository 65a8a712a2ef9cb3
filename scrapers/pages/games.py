"""The catalogue (`/games?page=N`) and game pages (`/games/<slug>`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

from lxml.etree import Element
from parsel import Selector

from scrapers.fields import normalize, parse_count
from scrapers.items import Game, GameSummary
from scrapers.pages.complete import require_complete
from scrapers.pages.listings import listing_rows, row_game, rows_with_game_links
from scrapers.pages.markup import (
    GAME_PATH,
    Node,
    PageParseError,
    block_text,
    class_tokens,
    clean,
    css,
    first,
    find_hooks,
    has_japanese,
    main_and_canonical,
    path,
    plain_web_url,
    string,
    text,
    xpath,
)
from scrapers.pages.specs import STATUS_OF_LABEL, spec_values, status_of

_CREDIT_LABELS: dict[str, tuple[str, ...]] = {
    "designers": ("ゲームデザイナー", "デザイナー"),
    "mechanics": ("メカニクス",),
    "themes": ("テーマ",),
}
_CREDIT_HREFS: dict[str, re.Pattern[str]] = {
    "designers": re.compile(r"/designers/"),
    "mechanics": re.compile(r"[?&]mechanics="),
    "themes": re.compile(r"[?&]themes="),
}
_ALL_CREDIT_LABELS = tuple(label for labels in _CREDIT_LABELS.values() for label in labels)


def catalog_items(selector: Selector, url: str) -> list[GameSummary]:
    """The rows of a catalogue page (`/games?page=N`): names and the spec cells."""
    _, _, rows = listing_rows(
        selector, what="catalogue page",
        find=lambda main: css(main, ".games-table-row") or [r for r in rows_with_game_links(main) if r.tag == "tr"],
    )
    items = []
    for row in rows:
        game_id, name_ja, name_en = row_game(row, what="catalogue")
        items.append(GameSummary(game_id=game_id, name_ja=name_ja, name_en=name_en, **spec_values(row)))
    return items


#: The class hooks of a game page, found in one walk with its credit labels (`markup.find_hooks`).
_HOOK_CLASSES = ("title-japanese", "title-english", "games-spec", "games-interest", "games-overview")


def game_item(selector: Selector, url: str) -> Game:
    """A game page (`/games/<slug>`): names, specs, the four counters, credits, overview.

    A cut page raises TruncatedPage: what it lacks would otherwise read as NULL counters
    and empty credits, and overwrite the game's values. The page's hooks (by class, and
    the credit labels) are found in one walk of `<main>` (`markup.find_hooks`) rather
    than one XPath walk per hook, which cost as much as all the rest of the parsing.
    """
    require_complete(selector, what="game page")
    root = selector.root
    main, page_canonical = main_and_canonical(root)
    found = find_hooks(main, _HOOK_CLASSES, _ALL_CREDIT_LABELS)  # kept to the end: see Hooks.nodes
    hooks, heads = found.by_class, found.by_label
    name_ja, name_en = _game_names(root, main, hooks)
    if not (name_ja or name_en):
        raise PageParseError("game page has no title")
    game_id = _game_id(root, url, page_canonical)
    if not game_id:
        raise PageParseError("game page has no game id")
    spec_scope = next((el for el in hooks["games-spec"] if "games-spec" in class_tokens(el)), None)
    counts = _interest_counts(main, [el for el in hooks["games-interest"] if "games-interest" in class_tokens(el)])
    page_url = _page_url(url, page_canonical)
    game = Game(
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
    del found  # the page's element proxies, alive until the item is built
    return game


def _page_url(url: str, page_canonical: str | None) -> str | None:
    """The game's URL: the canonical link (resolved against a web page's URL), else a web page's URL.

    Plain web URLs (`markup.plain_web_url`) are answered without `urllib`: the page's
    scheme is http(s), and `urljoin` gives a plain absolute canonical back unchanged.
    """
    url_is_plain = plain_web_url(url) is not None
    is_web = url_is_plain or urlsplit(url).scheme in ("http", "https")
    if not page_canonical:
        return url if is_web else None
    if not is_web or (url_is_plain and plain_web_url(page_canonical)):
        return page_canonical
    return urljoin(url, page_canonical)


def _game_id(root: Node, url: str, page_canonical: str | None) -> str | None:
    """A game page's slug: canonical link, then the page URL, then a title link."""

    def candidates() -> Iterator[str | None]:
        yield page_canonical
        yield url
        yield from xpath(root, "//h1//a/@href")  # only searched when neither names the game

    for candidate in candidates():
        match = GAME_PATH.match(path(candidate))
        if match:
            return match[1]
    return None


def _game_names(root: Node, main: Node, hooks: dict[str, list[Node]]) -> tuple[str | None, str | None]:
    """(name_ja, name_en) from the title's `-japanese`/`-english` spans, else h1 and `<title>`."""
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
    """The game page's four counters (the `games-interest` boxes), keyed by status."""
    counts: dict[str, int | None] = {}
    for box in boxes:
        status = status_of(box)
        if status and status not in counts:
            number = next((el for el in box.iterdescendants(Element) if "interest-count" in el.get("class", "")), None)
            counts[status] = parse_count(text(number) if number is not None else text(box))
    if not counts:  # fallback: an item that reads "9興味あり"
        for item in xpath(scope, ".//li | .//a | .//button"):
            match = re.fullmatch(r"([\d,]+)\s*(\S+)", normalize(text(item)))
            if match and match[2] in STATUS_OF_LABEL:
                counts.setdefault(STATUS_OF_LABEL[match[2]], parse_count(match[1]))
    return counts


def _credit_list(scope: Node, field: str, heads: dict[str, list[Node]]) -> list[str]:
    """Designers, mechanics or themes: the links next to the label, else by href shape."""
    shape = _CREDIT_HREFS[field]
    links: list[Node] = []
    for label in _CREDIT_LABELS[field]:
        for head in heads[label]:
            box = xpath(head, "following-sibling::*[1]") if head.tag in ("dt", "th") else [head.getparent()]
            links = [a for el in box for a in el.iterdescendants("a")]  # `.//a`
            shaped = [a for a in links if shape.search(a.get("href", ""))]
            links = shaped or links
            if links:
                break
        if links:
            break
    if not links:
        links = [a for a in xpath(scope, ".//a[@href]") if shape.search(a.get("href"))]
    return list(dict.fromkeys(filter(None, map(string, links))))  # each name once, in order


def _overview(main: Node, sections: list[Node]) -> str | None:
    """The 概要 section's text, paragraphs joined by newlines (its heading left out)."""
    section = sections[0] if sections else None
    if section is None:
        heading = first(main, ".//*[self::h2 or self::h3][normalize-space(.)='概要']")
        section = first(heading, "..") if heading is not None else None
    return block_text(section, skip_headings=True) if section is not None else None
