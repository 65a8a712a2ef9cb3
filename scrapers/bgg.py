"""BoardGameGeek XML API2 responses → the same typed items as the site's pages.

Why: BGG is the second source of games and of members' collections (a cold start for
the recommender); mapping it onto `Game` and `CollectionEntry` lets the warehouse and
the models treat both sources alike. Ids are prefixed (`bgg-31260`) so they never
collide with the site's slugs.
"""

from __future__ import annotations

import html
import math
import re
from datetime import datetime
from pathlib import PurePath
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from lxml import etree

from scrapers.fields import as_int32
from scrapers.items import CollectionEntry, Game

#: Thing types that are games (the accessory is kept: BGG files kits and upgrade packs
#: there that members own and rate like expansions).
GAME_TYPES: frozenset[str] = frozenset({"boardgame", "boardgameexpansion", "boardgameaccessory"})
#: BGG's placeholder for "no designer credited": not a person, so not a designer.
_UNCREDITED = "(Uncredited)"
_KANA = re.compile("[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
#: Traditional-Chinese character forms that modern Japanese writes differently
#: (樂→楽, 體→体 …): a kanji-only name using one is Chinese, not Japanese.
_CHINESE_ONLY_FORMS = frozenset("樂體轉絕與說這們會國學來實對關萬廣雙戰傳黃鐵險營處將變劍藝亞靈寶戲團區圖畫號觀歷麼裡嗎呢")
#: What may come before the root element: XML declaration, comments, doctype.
_XML_PROLOG = re.compile(
    rb"^\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*", re.DOTALL | re.IGNORECASE
)
#: The root element's start tag: its name, and "/" when it closes itself.
_XML_START = re.compile(rb"<([A-Za-z_][\w:.-]*)(?:\s[^>]*?)?(/?)>")
#: Whitespace as XML defines it (names keep an ideographic space U+3000 as written).
_XML_SPACE = re.compile(r"[ \t\r\n]+")
#: Words that mark a name as a Chinese edition.
_CHINESE_MARKERS = ("繁體", "繁体", "简体", "簡體", "中文")


class BggError(ValueError):
    """BGG answered with an error (`<errors><error><message>`) or "try again later" (202)."""


def _root(xml: bytes | str) -> Any:
    """The parsed document's root element; entities are not resolved, no network.

    The parser does not recover: a cut response is an error (`truncated …`), never the
    items before the cut.
    """
    data = xml.encode("utf-8") if isinstance(xml, str) else xml
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, recover=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        if is_cut_xml(data):
            raise BggError(f"truncated: the XML response ends before its root element closes ({exc})") from exc
        raise BggError(f"not a BoardGameGeek XML response ({exc})") from exc


def is_cut_xml(data: bytes) -> bool:
    """Whether an XML document stops before its root element is closed (a cut download).

    Why look at the text: the parser's error for a cut document depends on where the
    cut fell (mid-tag, mid-attribute, mid-text); a whole document ends with its root's
    end tag, or is one self-closing root element.
    """
    doc = _XML_PROLOG.sub(b"", data, count=1)
    start = _XML_START.match(doc)
    if start is None:
        return True  # nothing but a prolog (or nothing at all)
    if start[2]:
        return doc.rstrip() != start[0]
    return re.search(rb"</" + re.escape(start[1]) + rb"\s*>\s*\Z", doc[-256:]) is None


def _raise_for_errors(root: Any) -> None:
    """Raise BggError for an error page or a "request accepted, retry later" message."""
    tag = root.tag
    if tag in ("errors", "error"):
        messages = [_clean(m.text) for m in root.iter("message")]
        raise BggError("; ".join(m for m in messages if m) or "BoardGameGeek returned an error")
    if tag == "message":
        raise BggError(_clean(root.text) or "BoardGameGeek has not prepared the response yet")
    if tag != "items":
        raise BggError(f"unexpected BoardGameGeek response <{tag}>")


def _clean(text: str | None) -> str | None:
    """Text with XML whitespace collapsed, nothing else changed; None when nothing is visible.

    Why not `str.split()`: it also splits on U+3000 and would turn `地理ゲーム　ツイモット`
    into an ASCII space, storing a name BGG does not show.
    """
    cleaned = _XML_SPACE.sub(" ", text or "").strip(" ")
    return cleaned if cleaned.strip() else None


def _int_value(item: Any, tag: str) -> int | None:
    """The `value` of a direct child such as `<minplayers value="2"/>`; BGG's 0 means unknown."""
    child = item.find(tag)
    try:
        value = as_int32(int(child.get("value"))) if child is not None else None
    except (TypeError, ValueError):
        return None
    return value if value is not None and value > 0 else None


def _stat(item: Any, name: str) -> int | None:
    """A counter from `statistics/ratings` (`owned`, `wishing`), None without stats=1."""
    node = item.find(f"statistics/ratings/{name}")
    try:
        return as_int32(int(node.get("value"))) if node is not None else None
    except (TypeError, ValueError):
        return None


def is_japanese_name(name: str) -> bool:
    """Whether a BGG alternate name is written in Japanese.

    Why: BGG lists a game's names in every language without saying which is which.
    Kana is proof of Japanese; a kanji-only name counts unless it is visibly Chinese
    (Hangul, a simplified or traditional form Japanese does not use, an edition marker).
    """
    if _HANGUL.search(name) or any(marker in name for marker in _CHINESE_MARKERS):
        return False
    if _KANA.search(name):
        return True
    if not _HAN.search(name) or any(ch in _CHINESE_ONLY_FORMS for ch in name):
        return False
    try:
        name.encode("shift_jis")  # simplified-only forms (农, 蚀) are not in JIS X 0208
    except UnicodeEncodeError:
        return False
    return True


def _japanese_name(names: list[str]) -> str | None:
    """The first alternate name with kana, else the first kanji-only one that passes as Japanese."""
    with_kana = [n for n in names if _KANA.search(n) and is_japanese_name(n)]
    return with_kana[0] if with_kana else next((n for n in names if is_japanese_name(n)), None)


def _overview(item: Any) -> str | None:
    """The description, unescaped twice over (BGG sends `&amp;#10;` for a newline)."""
    text = html.unescape(item.findtext("description") or "")
    lines = [_clean(line) or "" for line in text.replace("\r", "").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() or None


def _links(item: Any, link_type: str) -> list[str]:
    """Values of the item's own `<link type=...>` children, in order, without duplicates."""
    values = (link.get("value") for link in item.findall("link") if link.get("type") == link_type)
    return list(dict.fromkeys(v for v in values if v and v != _UNCREDITED))


def _thing(item: Any) -> Game:
    """One `<item>` of a thing response as a Game."""
    thing_id = item.get("id")
    primary = next((n.get("value") for n in item.findall("name") if n.get("type") == "primary"), None)
    alternates = [n.get("value") or "" for n in item.findall("name") if n.get("type") == "alternate"]
    min_minutes = _int_value(item, "minplaytime") or _int_value(item, "playingtime")
    max_minutes = _int_value(item, "maxplaytime") or _int_value(item, "playingtime")
    return Game(
        game_id=f"bgg-{thing_id}",
        name_ja=_japanese_name(alternates),
        name_en=_clean(primary),
        min_players=_int_value(item, "minplayers"),
        max_players=_int_value(item, "maxplayers"),
        min_minutes=min_minutes,
        max_minutes=max_minutes,
        min_age=_int_value(item, "minage"),
        year=_int_value(item, "yearpublished"),
        n_watching=_stat(item, "wishing"),
        n_played=None,
        n_favorite=None,
        n_have=_stat(item, "owned"),
        designers=_links(item, "boardgamedesigner"),
        mechanics=_links(item, "boardgamemechanic"),
        themes=_links(item, "boardgamecategory"),
        overview=_overview(item),
        url=f"https://boardgamegeek.com/boardgame/{thing_id}",
    )


def bgg_thing_items(xml: bytes | str) -> list[Game]:
    """Games of a `/xmlapi2/thing` response (boardgames, expansions and accessories).

    Only the top-level items count: `versions=1` nests `boardgameversion` items inside.
    """
    root = _root(xml)
    _raise_for_errors(root)
    return [_thing(item) for item in root.findall("item") if item.get("type") in GAME_TYPES and item.get("id")]


def _flag(status: Any, name: str) -> bool:
    """A `<status own="1" …>` flag."""
    return status is not None and status.get(name) == "1"


def _bgg_rating(item: Any) -> float | None:
    """The member's own 1–10 rating (`stats/rating@value`), None for "N/A" or out of range."""
    node = item.find("stats/rating")
    if node is None:
        node = item.find("rating")
    try:
        value = float(node.get("value")) if node is not None else None
    except (TypeError, ValueError):
        return None
    return value if value is not None and 0 < value <= 10 else None


def _lastmodified(status: Any) -> str | None:
    """`lastmodified="2016-05-31 22:30:02"` as ISO 8601 (BGG gives no time zone, neither do we)."""
    raw = status.get("lastmodified") if status is not None else None
    try:
        return datetime.strptime(raw.strip(), "%Y-%m-%d %H:%M:%S").isoformat() if raw else None
    except ValueError:
        return None


def _entry(item: Any, username: str) -> CollectionEntry:
    """One `<item>` of a collection response as a CollectionEntry."""
    status = item.find("status")
    try:
        numplays = int(item.findtext("numplays") or 0)
    except ValueError:
        numplays = 0
    have, played = _flag(status, "own"), numplays > 0
    wants = any(_flag(status, f) for f in ("want", "wanttoplay", "wanttobuy", "wishlist"))
    rating = _bgg_rating(item)
    return CollectionEntry(
        user_id=username,
        game_id=f"bgg-{item.get('objectid')}",
        have=have,
        played=played,
        favorite=rating is not None and rating >= 8,
        watching=wants and not have and not played,
        rating=math.ceil(rating / 2) if rating is not None else None,
        updated_at=_lastmodified(status),
    )


def _merge(a: CollectionEntry, b: CollectionEntry) -> CollectionEntry:
    """Two copies of one game in a collection as one entry (any flag, best rating, latest change)."""
    have, played = a.have or b.have, a.played or b.played
    ratings = [r for r in (a.rating, b.rating) if r is not None]
    dates = [d for d in (a.updated_at, b.updated_at) if d]
    return CollectionEntry(
        user_id=a.user_id,
        game_id=a.game_id,
        have=have,
        played=played,
        favorite=a.favorite or b.favorite,
        watching=(a.watching or b.watching) and not have and not played,
        rating=max(ratings) if ratings else None,
        updated_at=max(dates) if dates else None,
    )


def bgg_collection_items(xml: bytes | str, *, username: str) -> list[CollectionEntry]:
    """Entries of a `/xmlapi2/collection?username=…&stats=1` response, one per game.

    have = own; played = numplays > 0; watching = want, wanttoplay, wanttobuy or
    wishlist, only for a game neither owned nor played (the site's 興味あり);
    favorite = rating ≥ 8; rating = ceil(BGG rating / 2) on the site's 1–5 stars.
    """
    root = _root(xml)
    _raise_for_errors(root)
    entries: dict[str, CollectionEntry] = {}
    for item in root.findall("item"):
        if not item.get("objectid"):
            continue
        entry = _entry(item, username)
        entries[entry.game_id] = _merge(entries[entry.game_id], entry) if entry.game_id in entries else entry
    return list(entries.values())


def username_from_source(path_or_url: str | None) -> str | None:
    """The BGG user name in a request URL (`…?username=X`) or a saved file's name (`…username-X…`).

    Why: a collection response does not repeat whose collection it is.
    """
    if not path_or_url:
        return None
    parts = urlsplit(path_or_url)
    if parts.scheme in ("http", "https"):
        values = parse_qs(parts.query).get("username")
        if values and values[0].strip():
            return values[0].strip()
        match = re.search(r"/collection/user/([^/?#]+)", parts.path)
        return unquote(match[1]) if match else None
    name = PurePath(unquote(parts.path or path_or_url)).name
    match = re.search(r"(?:^|_)username-(.+?)(?=_[a-z]+-|\.[A-Za-z]+$|$)", name)
    return match[1] if match else None
