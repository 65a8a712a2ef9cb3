"""The catalogue (`/games?page=N`) and game pages (`/games/<slug>`)."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

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
    canonical,
    clean,
    css,
    first,
    has_japanese,
    main_of,
    path,
    string,
    text,
    xpath,
)
from scrapers.pages.specs import STATUS_LABELS, spec_values, status_of

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
_HAS_CLASS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"


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


def game_item(selector: Selector, url: str) -> Game:
    """A game page (`/games/<slug>`): names, specs, the four counters, credits, overview.

    A cut page raises TruncatedPage: what it lacks would otherwise read as NULL counters
    and empty credits, and overwrite the game's values.
    """
    require_complete(selector, what="game page")
    root = selector.root
    main = main_of(root)
    name_ja, name_en = _game_names(root, main)
    if not (name_ja or name_en):
        raise PageParseError("game page has no title")
    game_id = _game_id(root, url)
    if not game_id:
        raise PageParseError("game page has no game id")
    spec_scope = first(main, f".//*[{_HAS_CLASS.format('games-spec')}]")
    counts = _interest_counts(main)
    is_web = urlsplit(url).scheme in ("http", "https")
    page_canonical = canonical(root)
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
        designers=_credit_list(main, "designers"),
        mechanics=_credit_list(main, "mechanics"),
        themes=_credit_list(main, "themes"),
        overview=_overview(main),
        url=page_url,
    )


def _game_id(root: Node, url: str) -> str | None:
    """A game page's slug: canonical link, then the page URL, then a title link."""
    for candidate in (canonical(root), url, *xpath(root, "//h1//a/@href")):
        match = GAME_PATH.match(path(candidate))
        if match:
            return match[1]
    return None


def _game_names(root: Node, main: Node) -> tuple[str | None, str | None]:
    """(name_ja, name_en) from the title's `-japanese`/`-english` spans, else h1 and `<title>`."""
    name_ja = string(first(main, ".//*[contains(@class, 'title-japanese')]"))
    name_en = string(first(main, ".//*[contains(@class, 'title-english')]"))
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


def _interest_counts(scope: Node) -> dict[str, int | None]:
    """The game page's four counters (`games-interest-count`), keyed by status."""
    counts: dict[str, int | None] = {}
    for box in xpath(scope, f".//*[{_HAS_CLASS.format('games-interest')}]"):
        status = status_of(box)
        if status and status not in counts:
            number = first(box, ".//*[contains(@class, 'interest-count')]")
            counts[status] = parse_count(text(number) if number is not None else text(box))
    if not counts:  # fallback: an item that reads "9興味あり"
        for item in xpath(scope, ".//li | .//a | .//button"):
            match = re.fullmatch(r"([\d,]+)\s*(\S+)", normalize(text(item)))
            if match and match[2] in STATUS_LABELS:
                counts.setdefault(STATUS_LABELS[match[2]], parse_count(match[1]))
    return counts


def _credit_list(scope: Node, field: str) -> list[str]:
    """Designers, mechanics or themes: the links next to the label, else by href shape."""
    shape = _CREDIT_HREFS[field]
    links: list[Node] = []
    for label in _CREDIT_LABELS[field]:
        heads = xpath(
            scope,
            ".//*[not(self::a) and normalize-space(.)=$label and not(*[normalize-space(.)=$label])]",
            label=label,
        )
        for head in heads:
            box = xpath(head, "following-sibling::*[1]") if head.tag in ("dt", "th") else xpath(head, "..")
            links = [a for el in box for a in xpath(el, ".//a")]
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


def _overview(main: Node) -> str | None:
    """The 概要 section's text, paragraphs joined by newlines (its heading left out)."""
    section = first(main, ".//*[contains(@class, 'games-overview')]")
    if section is None:
        heading = first(main, ".//*[self::h2 or self::h3][normalize-space(.)='概要']")
        section = first(heading, "..") if heading is not None else None
    return block_text(section, skip_headings=True) if section is not None else None
