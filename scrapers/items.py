"""Typed items: one keyword-only dataclass per entity the site shows.

Field names are the `marts` column names (docs/interface.md), so an item printed by
`bodoge parse`, a row in a raw table and a column in a mart all say the same thing.
Every item carries its `kind` as a class-level constant; the warehouse routes an
item to its raw table by that kind.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(kw_only=True, slots=True)
class GameListing:
    """A game as every list shows it: id, names and the spec cells (the shared fields).

    Why a base class: catalogue rows, cafe rows and game pages all carry these nine
    fields; declaring them once keeps the three items (and their raw tables) in step.
    """

    kind: ClassVar[str] = "game_listing"
    game_id: str
    name_ja: str | None
    name_en: str | None
    min_players: int | None
    max_players: int | None
    min_minutes: int | None
    max_minutes: int | None
    min_age: int | None
    year: int | None


@dataclass(kw_only=True, slots=True)
class GameSummary(GameListing):
    """A catalogue row: what `/games?page=N` shows of one game."""

    kind: ClassVar[str] = "game_summary"


@dataclass(kw_only=True, slots=True)
class CafeGame(GameListing):
    """One game a board game cafe offers (a row of `/spaces/<slug>/games`)."""

    kind: ClassVar[str] = "cafe_game"
    space_slug: str
    space_name: str | None


@dataclass(kw_only=True, slots=True)
class Game(GameListing):
    """A game page: specs, the four interest counters, credits and overview."""

    kind: ClassVar[str] = "game"
    n_watching: int | None
    n_played: int | None
    n_favorite: int | None
    n_have: int | None
    designers: list[str] = field(default_factory=list)
    mechanics: list[str] = field(default_factory=list)
    themes: list[str] = field(default_factory=list)
    overview: str | None = None
    url: str | None = None


@dataclass(kw_only=True, slots=True)
class Post:
    """A rule/instruction (`rule`) or review (`review`) post about one game."""

    kind: ClassVar[str] = "post"
    post_id: str
    game_id: str | None
    post_kind: str
    author_user_id: str | None
    title: str | None
    body: str | None
    published_at: str | None


@dataclass(kw_only=True, slots=True)
class Member:
    """A row of the member directory."""

    kind: ClassVar[str] = "member"
    user_id: str
    name: str | None


@dataclass(kw_only=True, slots=True)
class CollectionEntry:
    """One card of a member's マイボードゲーム: the four statuses and a star rating.

    `rating` is None where the site shows 0 stars (unrated or hidden).
    """

    kind: ClassVar[str] = "collection_entry"
    user_id: str
    game_id: str
    have: bool
    played: bool
    favorite: bool
    watching: bool
    rating: int | None
    updated_at: str | None


@dataclass(kw_only=True, slots=True)
class ListingCrawl:
    """The outcome of crawling one whole paginated listing, emitted after its last page.

    `listing` is `collection` (key: the member's user_id) or `space` (key: the cafe's
    slug). Why: only a *complete* crawl may replace what the warehouse holds for that
    listing (an entry the member removed disappears), and a private collection must
    erase every trace of the member. `status` is `public`, `empty`, `private` or
    `incomplete` (a page failed or was cut, or the rows read over all pages disagree
    with the listing's stated total: `scrapers.spiders.totals`); an incremental night adds `updated` (read from page 1 to the first
    known card, nothing removed) and `unchanged` (the directory's count and last update
    equal what the warehouse holds), which delete nothing. Never printed by `bodoge parse`; the warehouse consumes it.
    """

    kind: ClassVar[str] = "listing_crawl"
    listing: str
    key: str
    status: str
    n_entries: int
    n_pages: int


@dataclass(kw_only=True, slots=True)
class Quarantined:
    """A page that could not be parsed or fetched: kept for a human, never silently dropped."""

    kind: ClassVar[str] = "quarantine"
    url: str
    reason: str
    body_sha256: str | None
    http_status: int | None


@dataclass(kw_only=True, slots=True)
class TrackedPage:
    """A page the incremental night keeps track of: its kind (`game`, `post`,
    `collection`), its key (game id, post id or user id) and its site-relative URL.

    Why a base class: a page queued for the night (`Queued`) and a page answered
    (`PageVisit`) are the same page by these three fields; declaring them once keeps the
    two items in step.
    """

    page_kind: str
    key: str
    url: str


@dataclass(kw_only=True, slots=True)
class Queued(TrackedPage):
    """A page the night decided to fetch (persisted frontier; removed once it is read)."""

    kind: ClassVar[str] = "frontier"
    reason: str


@dataclass(kw_only=True, slots=True)
class PageVisit(TrackedPage):
    """A game or post page answered: its validators and status, for the next night.

    Why: an incremental night revalidates pages with conditional requests (ETag,
    Last-Modified) and needs each page's age; a 404 marks a game gone. Only a page read
    cleanly (200 parsed, 304, 404) is recorded, so a failed or quarantined page stays due.
    """

    kind: ClassVar[str] = "page_visit"
    http_status: int
    etag: str | None
    last_modified: str | None
    body_sha256: str | None


Item = GameSummary | CafeGame | Game | Post | Member | CollectionEntry | ListingCrawl | Quarantined | PageVisit | Queued

ITEM_TYPES: dict[str, type] = {
    cls.kind: cls
    for cls in (GameSummary, CafeGame, Game, Post, Member, CollectionEntry, ListingCrawl, Quarantined,
                PageVisit, Queued)
}


def item_fields(item: Any) -> dict[str, Any]:
    """The item's fields as a dict (shallow: lists are shared, not copied).

    Why not dataclasses.asdict: it deep-copies every value, ~10x slower, and a crawl
    turns a hundred thousand items into rows.
    """
    return {f.name: getattr(item, f.name) for f in dataclasses.fields(item)}


def item_to_dict(item: Any) -> dict[str, Any]:
    """The item as a JSON-ready dict with its `kind` first (the shape `bodoge parse` prints)."""
    return {"kind": item.kind, **item_fields(item)}
