"""The member directory (`/friends?page=N`) and members' マイボードゲーム collections."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from lxml import etree
from parsel import Selector

from core.statuses import STATUSES
from scrapers.fields import parse_rating
from scrapers.items import CollectionEntry, Member
from scrapers.pages.complete import stated_total
from scrapers.pages.listings import listing_rows, no_rows, open_listing
from scrapers.pages.markup import (
    GAME_PATH,
    MEMBER_PROFILE_PATH,
    Node,
    PageParseError,
    class_tokens,
    class_words,
    clean,
    css,
    first,
    main_of,
    member_id,
    path,
    string,
    xpath,
)
from scrapers.pages.specs import status_of

_ON = frozenset({"on", "active", "checked"})


def member_items(selector: Selector, url: str) -> list[Member]:
    """The rows of the member directory (`/friends?page=N`): id and display name."""
    page = open_listing(selector, what="member directory")
    if page is None:
        return []
    root, main = page
    rows = css(main, ".friends-list-item")
    whole_page = not rows  # no row markup: every profile link on the page is a member
    names: dict[str, str | None] = {}
    for row in rows or [main]:
        found = [(member_id(a.get("href")), a) for a in xpath(row, ".//a[@href]")]
        links = [(uid, a) for uid, a in found if uid and MEMBER_PROFILE_PATH.match(path(a.get("href")))]
        if not links and not whole_page:
            raise PageParseError("member row has no /friends/<id> link")
        for uid, link in links:
            name = string(link) or clean(first(link, ".//img/@alt"))
            if names.get(uid) is None:
                names[uid] = name
            if not whole_page:
                break
    if not names:
        return no_rows(root, "member directory")
    return [Member(user_id=uid, name=name) for uid, name in names.items()]


def collection_items(selector: Selector, url: str) -> list[CollectionEntry]:
    """The cards of a member's マイボードゲーム (`/friends/<id>/boardgames?page=N`).

    A cut page raises TruncatedPage, also when it looks like the login page or the
    empty marker: half a listing read as the whole would delete the rest.
    """
    root, _, cards = listing_rows(selector, what="collection page", find=_cards)
    if not cards:
        return []
    user_id = _collection_owner(root, url)
    if not user_id:
        raise PageParseError("collection page has no member id")
    return [_card_entry(card, user_id) for card in cards]


def _cards(main: Node) -> list[Node]:
    """Collection cards by their class, else the block around each `friend-interests` list."""
    return css(main, ".list--interests-item") or [
        card
        for card in (
            first(ul, "ancestor::*[.//a[contains(@href, '/games/')]][1]")
            for ul in xpath(main, ".//*[contains(@class, 'friend-interests')]")
        )
        if card is not None
    ]


def _card_entry(card: Node, user_id: str) -> CollectionEntry:
    """One collection card: its game, four statuses, rating and last update.

    One walk over the card's elements finds what `.//a[@href]` (the first game link),
    `.//@data-updated-at`, `.//@data-rating-result` (the card's own attribute first) and
    `.//*[class ~= friend-interest]` would, in the same document order: a card is small,
    and an XPath call costs more than walking it.
    """
    slug: str | None = None
    updated, rating = card.get("data-updated-at"), card.get("data-rating-result")
    flags: list[Node] = []
    for el in card.iterdescendants(etree.Element):
        if slug is None and el.tag == "a":
            href = el.get("href")
            match = GAME_PATH.match(path(href)) if href is not None else None
            slug = match[1] if match else None
        if updated is None:
            updated = el.get("data-updated-at")
        if rating is None:
            rating = el.get("data-rating-result")
        if "friend-interest" in class_tokens(el):
            flags.append(el)
    if slug is None:
        raise PageParseError("collection card has no game link")
    return CollectionEntry(
        user_id=user_id,
        game_id=slug,
        **_card_statuses(flags),
        rating=parse_rating(rating),
        updated_at=_iso_or_none(updated),
    )


def _collection_owner(root: Node, url: str) -> str | None:
    """The member whose collection this is: `data-friend-id`, the URL, then its tab links."""
    candidates = [first(root, "//@data-friend-id"), member_id(url)]
    candidates += [member_id(h) for h in xpath(root, "//a/@href") if "/boardgames" in h]
    return next((c.strip() for c in candidates if c and c.strip()), None)


def _iso_or_none(value: str | None) -> str | None:
    """An ISO 8601 timestamp in its canonical form (`…T…+09:00`), None when it is not one."""
    try:
        return datetime.fromisoformat((value or "").strip().replace("Z", "+00:00")).isoformat()
    except ValueError:
        return None


def _card_statuses(flags: list[Node]) -> dict[str, bool]:
    """A card's four statuses from its `friend-interest <status> on|off` elements."""
    statuses = dict.fromkeys(STATUSES, False)
    for el in flags:
        status = status_of(el)
        if status:
            words = class_words(el)
            statuses[status] = bool(words & _ON) and "off" not in words
    return statuses


@dataclass(frozen=True, slots=True)
class DirectorySignal:
    """What a directory row says about a member's collection without opening it.

    `count` is "マイボードゲーム N", `updated_at` the row's `data-updated-at` (the newest
    card's update) and `private` the 非公開 marker. Any of them may be missing on a site
    that does not show it: the incremental crawl then opens the collection instead.
    """

    count: int | None
    updated_at: str | None
    private: bool


def directory_signals(selector: Selector, url: str) -> dict[str, DirectorySignal]:
    """Each directory row's change signals, by user id (rows without a member link skipped)."""
    out: dict[str, DirectorySignal] = {}
    for row in css(main_of(selector.root), ".friends-list-item"):
        uid = next((member_id(h) for h in xpath(row, ".//a/@href") if MEMBER_PROFILE_PATH.match(path(h))), None)
        if not uid:
            continue
        label = unicodedata.normalize("NFKC", " ".join(string(n) or "" for n in css(row, ".friends-list-count")))
        digits = _COUNT.search(label)
        out[uid] = DirectorySignal(
            count=int(digits[1].replace(",", "")) if digits else None,
            updated_at=_iso_or_none(row.get("data-updated-at")) if row.get("data-updated-at") else None,
            private="非公開" in label,
        )
    return out


def collection_total(selector: Selector) -> int | None:
    """The listing's total ("全N個" above a collection's cards), None where the page has none."""
    return stated_total(selector)


_COUNT = re.compile(r"マイボードゲーム\s*([\d,]+)")
