"""Values several page kinds show: the spec cells (players, time, age, year) and statuses.

Catalogue rows, cafe rows and game pages all carry the same spec texts; game pages and
collection cards both name the four マイボードゲーム statuses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from core.statuses import STATUS_LABELS, STATUSES
from scrapers.fields import classify_spec, normalize, parse_age, parse_minutes, parse_players, parse_year
from scrapers.pages.markup import Node, class_words, text, text_fragments

#: The four マイボードゲーム statuses, by the label the site shows (core.statuses, read backwards).
STATUS_OF_LABEL: dict[str, str] = {label: status for status, label in STATUS_LABELS.items()}

_HINT_WORDS: dict[str, str] = {
    "players": "players", "player": "players", "ninzu": "players",
    "playtime": "minutes", "time": "minutes", "minutes": "minutes",
    "age": "age", "year": "year", "release": "year",
}
#: Class words of the elements that hold a game's name, never its specs.
_NAME_WORDS = frozenset({"japanese", "english", "name", "title"})
_SPEC_PARSERS: dict[str, Callable[[str], Any]] = {
    "players": parse_players, "minutes": parse_minutes, "age": parse_age, "year": parse_year,
}


def _hint(words: frozenset[str]) -> str | None:
    """The spec field a class name announces (`games-spec-age` → age), if any."""
    for word, kind in _HINT_WORDS.items():
        if word in words:
            return kind
    return None


@lru_cache(maxsize=8192)
def spec_pieces(raw: str) -> tuple[tuple[str, str | None], ...]:
    """Classified pieces of one text node: split on `/` and `|`, then on spaces if needed.

    Cached: the same few spec texts (`2人～4人`, `30分前後`) fill every listing.
    """
    pieces: list[tuple[str, str | None]] = []
    for piece in re.split(r"[/|]", normalize(raw)):
        piece = piece.strip()
        if not piece:
            continue
        kind = classify_spec(piece)
        if kind:
            pieces.append((piece, kind))
            continue
        tokens = [(tok, classify_spec(tok)) for tok in piece.split(" ")]
        if len(tokens) > 1 and any(kind for _, kind in tokens):
            pieces.extend((tok, kind) for tok, kind in tokens if kind)
        else:
            pieces.append((piece, None))
    return tuple(pieces)


@lru_cache(maxsize=8192)
def _spec_value(kind: str, piece: str) -> Any:
    """One piece's value (cached: listings and game pages repeat a few spec texts)."""
    return _SPEC_PARSERS[kind](piece)


def spec_values(scope: Node) -> dict[str, int | None]:
    """min/max players, min/max minutes, min age and year found under scope.

    Each fragment is classified by its unit (人, 分, 歳, 年); one without a unit falls
    back to its element's class (`games-spec-age`). The first value of a field wins.
    Names (`…-japanese`, `…-title`) are skipped: a game may be called `2人`.
    """
    found: dict[str, Any] = {}
    for raw, words in text_fragments(scope):
        if words & _NAME_WORDS:
            continue
        for piece, kind in spec_pieces(raw):
            kind = kind or _hint(words)
            if kind and found.get(kind) in (None, (None, None)):
                found[kind] = _spec_value(kind, piece)
    players = found.get("players") or (None, None)
    minutes = found.get("minutes") or (None, None)
    return {
        "min_players": players[0], "max_players": players[1],
        "min_minutes": minutes[0], "max_minutes": minutes[1],
        "min_age": found.get("age"), "year": found.get("year"),
    }


def status_of(el: Node) -> str | None:
    """Which status an element stands for: its class (`have`), else its label (`持ってる`)."""
    words = class_words(el)
    for status in STATUSES:
        if status in words:
            return status
    label = normalize(text(el))
    return next((status for found, status in STATUS_OF_LABEL.items() if found in label), None)
