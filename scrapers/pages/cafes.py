"""Board game cafes: the games a cafe offers (`/spaces/<slug>/games?page=N`)."""

from __future__ import annotations

from parsel import Selector

from scrapers.items import CafeGame
from scrapers.pages.listings import listing_rows, row_game, rows_with_game_links
from scrapers.pages.markup import (
    Node,
    PageParseError,
    canonical,
    clean,
    css,
    first,
    space_slug,
    string,
)
from scrapers.pages.specs import spec_values


def space_items(selector: Selector, url: str) -> list[CafeGame]:
    """The games a board game cafe offers (`/spaces/<slug>/games?page=N`)."""
    root, main, rows = listing_rows(
        selector, what="cafe page", find=lambda main: css(main, ".spaces-games-item") or rows_with_game_links(main)
    )
    if not rows:
        return []
    slug = first(root, "//@data-space-slug") or space_slug(url) or space_slug(canonical(root))
    if not slug:
        raise PageParseError("cafe page has no space slug")
    name = _space_name(root, main)
    items = []
    for row in rows:
        game_id, name_ja, name_en = row_game(row, what="cafe")
        items.append(
            CafeGame(
                space_slug=slug.strip(), space_name=name, game_id=game_id,
                name_ja=name_ja, name_en=name_en, **spec_values(row),
            )
        )
    return items


def _space_name(root: Node, main: Node) -> str | None:
    """The cafe's name: its h1, else the `<title>` without the site suffix."""
    name = string(first(main, ".//*[contains(@class, 'spaces-name')]")) or string(first(main, ".//h1"))
    if name:
        return name
    title = (clean(first(root, "//title/text()")) or "").rsplit(" | ", 1)[0]
    return clean(title.removesuffix("の遊べるボードゲーム"))
