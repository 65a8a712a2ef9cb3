"""BoardGameGeek's own facts (weight, player-count polls, suggested age, owners) and collection rows.

Why beside `scrapers.bgg` and not in it: `bgg.py` maps BGG onto the site's items
(`Game`, `CollectionEntry`) for `bodoge parse`; the BGG source keeps BGG's facts apart
from the site's (docs/bgg.md), in `raw.bgg_things` and `raw.bgg_collection_items`, with
what only BGG knows: which player counts its community calls best or recommended.

The poll rule, stated once (`player_counts`): a poll under `MIN_POLL_VOTES` votes says
nothing (both lists unknown). Otherwise the poll summary wins where BGG sends it
(`bestwith`, and `recommmendedwith`, spelled with three m's, which may be absent);
where it does not, the raw `suggested_numplayers` poll decides each count: best when
its Best votes exceed Recommended + Not Recommended, recommended when Best +
Recommended exceed Not Recommended. Counts such as `5+` ("more than the box says") are
not a number of players and are left out.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from scrapers.bgg import BggError, _raise_for_errors, _root
from scrapers.fields import as_int32

MIN_POLL_VOTES = 20
"""Polls with fewer votes are ignored: a handful of voters is an opinion, not a community's."""
_RANGE = re.compile(r"(\d+)\s*[-–—~〜～]\s*(\d+)|(\d+)")
_SUMMARY = {"best": ("bestwith",), "recommended": ("recommmendedwith", "recommendedwith")}


@dataclass(frozen=True, slots=True, kw_only=True)
class BggThing:
    """One thing of a `/xmlapi2/thing?stats=1` answer: a row of `raw.bgg_things`."""

    bgg_id: int
    thing_type: str
    name: str | None
    alternate_names: list[str]
    year: int | None
    min_players: int | None
    max_players: int | None
    min_age: int | None
    min_age_suggested: int | None
    weight: float | None
    n_weights: int | None
    n_owned: int | None
    n_wishing: int | None
    poll_votes: int | None
    poll_source: str
    best_players: list[int] | None
    recommended_players: list[int] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class BggCollectionItem:
    """One item of a `/xmlapi2/collection?stats=1` answer: a row of `raw.bgg_collection_items`."""

    bgg_user: str
    bgg_id: int
    subtype: str | None
    own: bool
    prevowned: bool
    want: bool
    wanttoplay: bool
    wanttobuy: bool
    wishlist: bool
    preordered: bool
    rating: float | None
    numplays: int
    lastmodified: str | None


def _int(text: str | None) -> int | None:
    try:
        return as_int32(int(text)) if text is not None else None
    except ValueError:
        return None


def _float(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and value == value and abs(value) < 1e9 else None


def _value(item: Any, tag: str) -> int | None:
    """`<tag value="N"/>`, with BGG's 0 meaning unknown."""
    child = item.find(tag)
    value = _int(child.get("value")) if child is not None else None
    return value if value is not None and value > 0 else None


def counts_in(text: str) -> list[int]:
    """Player counts written in a summary: `Best with 3 players` → [3], `2–4` → [2, 3, 4], `1, 3–4` → [1, 3, 4]."""
    found: set[int] = set()
    for low, high, single in _RANGE.findall(unicodedata.normalize("NFKC", text)):
        if single:
            n = int(single)
            if 0 < n <= 100:
                found.add(n)
        elif 0 < int(low) <= int(high) <= 100:
            found.update(range(int(low), int(high) + 1))
    return sorted(found)


def poll_votes(poll: Any) -> dict[int, tuple[int, int, int]]:
    """The raw poll as {players: (best, recommended, not recommended)}; `N+` rows left out."""
    votes: dict[int, tuple[int, int, int]] = {}
    for results in poll.findall("results"):
        players = results.get("numplayers", "")
        if not players.isdigit() or not 0 < int(players) <= 100:
            continue
        by_name = {r.get("value"): _int(r.get("numvotes")) or 0 for r in results.findall("result")}
        votes[int(players)] = (by_name.get("Best", 0), by_name.get("Recommended", 0), by_name.get("Not Recommended", 0))
    return votes


def player_counts(item: Any) -> tuple[str, int | None, list[int] | None, list[int] | None]:
    """(source, votes, best, recommended) by the poll rule (module docstring); lists None when unknown."""
    poll = item.find("poll[@name='suggested_numplayers']")
    votes = _int(poll.get("totalvotes")) if poll is not None else None
    summary = item.find("poll-summary[@name='suggested_numplayers']")
    said = {} if summary is None else {r.get("name"): r.get("value") or "" for r in summary.findall("result")}
    if poll is None and not said:
        return "none", None, None, None
    if votes is not None and votes < MIN_POLL_VOTES:
        return "too_few_votes", votes, None, None
    rows = poll_votes(poll) if poll is not None else {}
    raw = {"best": sorted(n for n, (b, r, x) in rows.items() if b > r + x),
           "recommended": sorted(n for n, (b, r, x) in rows.items() if b + r > x)}
    lists, sources = {}, set()
    for field, names in _SUMMARY.items():
        text = next((said[n] for n in names if n in said), None)
        lists[field] = counts_in(text) if text is not None else raw[field] if poll is not None else None
        sources.add("summary" if text is not None else "poll")
    return "+".join(sorted(sources)), votes, lists["best"], lists["recommended"]


def suggested_age(item: Any) -> int | None:
    """The age most voters suggest (`suggested_playerage`; ties → the younger), None under MIN_POLL_VOTES."""
    poll = item.find("poll[@name='suggested_playerage']")
    if poll is None or (_int(poll.get("totalvotes")) or 0) < MIN_POLL_VOTES:
        return None
    best: tuple[int, int] | None = None
    for result in poll.iter("result"):
        age = re.match(r"\d+", result.get("value") or "")
        n = _int(result.get("numvotes")) or 0
        if age and n > 0 and (best is None or (-n, int(age[0])) < (-best[1], best[0])):
            best = (int(age[0]), n)
    return best[0] if best else None


def _stats(item: Any) -> Any:
    """A reader of `statistics/ratings/<tag>@value` (None without stats=1 or without the tag)."""
    ratings = item.find("statistics/ratings")

    def value(tag: str) -> str | None:
        node = ratings.find(tag) if ratings is not None else None
        return node.get("value") if node is not None else None
    return value


def _thing(item: Any) -> BggThing:
    bgg_id = _int(item.get("id"))
    if bgg_id is None:
        raise BggError(f"a thing without a numeric id ({item.get('id')!r})")
    names = item.findall("name")
    primary = next((n.get("value") for n in names if n.get("type") == "primary"), None)
    source, votes, best, recommended = player_counts(item)
    stat = _stats(item)
    n_weights = _int(stat("numweights"))
    weight = _float(stat("averageweight")) if n_weights else None
    return BggThing(
        bgg_id=bgg_id, thing_type=item.get("type") or "", name=(primary or "").strip() or None,
        alternate_names=[v.strip() for n in names if n.get("type") == "alternate" and (v := n.get("value") or "").strip()],
        year=_value(item, "yearpublished"), min_players=_value(item, "minplayers"),
        max_players=_value(item, "maxplayers"), min_age=_value(item, "minage"),
        min_age_suggested=suggested_age(item), weight=weight if weight and weight > 0 else None,
        n_weights=n_weights, n_owned=_int(stat("owned")), n_wishing=_int(stat("wishing")),
        poll_votes=votes, poll_source=source, best_players=best, recommended_players=recommended,
    )


def bgg_things(xml: bytes | str) -> list[BggThing]:
    """Every board game, expansion and accessory of a thing answer; BggError for anything else."""
    root = _root(xml)
    _raise_for_errors(root)
    return [_thing(item) for item in root.findall("item")
            if item.get("type") in ("boardgame", "boardgameexpansion", "boardgameaccessory")]


def _lastmodified(text: str | None) -> str | None:
    try:
        return datetime.strptime((text or "").strip(), "%Y-%m-%d %H:%M:%S").isoformat() if text else None
    except ValueError:
        return None


def bgg_collection(xml: bytes | str, *, bgg_user: str) -> list[BggCollectionItem]:
    """Every item of a collection answer, one per thing (a second copy adds its flags and plays)."""
    root = _root(xml)
    _raise_for_errors(root)
    rows: dict[int, BggCollectionItem] = {}
    for item in root.findall("item"):
        bgg_id = _int(item.get("objectid"))
        if bgg_id is None:
            continue
        status = item.find("status")
        flag = (lambda name: status is not None and status.get(name) == "1")
        rating_node = item.find("stats/rating")
        rating = _float(rating_node.get("value")) if rating_node is not None else None
        row = BggCollectionItem(
            bgg_user=bgg_user, bgg_id=bgg_id, subtype=item.get("subtype"),
            own=flag("own"), prevowned=flag("prevowned"), want=flag("want"), wanttoplay=flag("wanttoplay"),
            wanttobuy=flag("wanttobuy"), wishlist=flag("wishlist"), preordered=flag("preordered"),
            rating=rating if rating is not None and 0 < rating <= 10 else None,
            numplays=max(_int(item.findtext("numplays")) or 0, 0),
            lastmodified=_lastmodified(status.get("lastmodified") if status is not None else None),
        )
        rows[bgg_id] = _merge(rows[bgg_id], row) if bgg_id in rows else row
    return list(rows.values())


def _merge(a: BggCollectionItem, b: BggCollectionItem) -> BggCollectionItem:
    """Two copies of one thing: any flag, the higher rating, all plays, the latest change."""
    ratings = [r for r in (a.rating, b.rating) if r is not None]
    dates = [d for d in (a.lastmodified, b.lastmodified) if d]
    flags = {f: getattr(a, f) or getattr(b, f)
             for f in ("own", "prevowned", "want", "wanttoplay", "wanttobuy", "wishlist", "preordered")}
    return BggCollectionItem(bgg_user=a.bgg_user, bgg_id=a.bgg_id, subtype=a.subtype, **flags,
                             rating=max(ratings) if ratings else None, numplays=as_int32(a.numplays + b.numplays) or 0,
                             lastmodified=max(dates) if dates else None)
