"""What a request may say: its query parameters and JSON bodies, checked, each error one line naming the field.

Why by hand: the bodies are small and few, and the answers must say exactly which field is wrong
(422) or that a body is too large (413) before anything is parsed into memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import polars as pl

MAX_BODY_BYTES = 1 << 20
"""The largest request body read (1 MiB); larger is 413."""
MAX_COLLECTION = 10_000
"""The most collection entries a body may hold; more is 413 (the site's largest collections hold a few thousand)."""
MAX_N = 100
"""The longest list asked for: the night stores 100 games per member."""
FLAGS = ("have", "played", "favorite", "watching")


class BadRequest(Exception):
    """A 422 (or, with status 413, a too-large body); the message names the field."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ListQuery:
    n: int
    players: int | None
    max_minutes: int | None


def _integer(params: Any, name: str, default: int | None, low: int, high: int | None = None) -> int | None:
    raw = params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"query parameter {name} must be an integer, not {raw[:40]!r}") from None
    if value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise BadRequest(f"query parameter {name} must be {bound}, not {value}")
    return value


def list_query(params: Any, *, filters: bool) -> ListQuery:
    """`n` (1–100, default 10) and, where the list filters, `players` and `max_minutes`."""
    allowed = {"n", "players", "max_minutes"} if filters else {"n"}
    unknown = sorted(set(params.keys()) - allowed)
    if unknown:
        raise BadRequest(f"unknown query parameter {unknown[0]!r} (this route takes {', '.join(sorted(allowed))})")
    n = _integer(params, "n", 10, 1, MAX_N)
    assert n is not None
    return ListQuery(n=n, players=_integer(params, "players", None, 1) if filters else None,
                     max_minutes=_integer(params, "max_minutes", None, 1) if filters else None)


def parse_json(body: bytes) -> Any:
    if len(body) > MAX_BODY_BYTES:
        raise BadRequest(f"the body is larger than {MAX_BODY_BYTES} bytes", status=413)
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        raise BadRequest("the body is not JSON") from None


def collection_frame(body: bytes, games: dict[str, int]) -> pl.DataFrame:
    """The posted collection as rows (`game_id`, the four flags, `rating`); every game must be
    one of the night's `games` (else 422 naming them)."""
    data = parse_json(body)
    if not isinstance(data, dict) or "collection" not in data:
        raise BadRequest("body: expected an object with a \"collection\" list")
    extra = sorted(set(data) - {"collection"})
    if extra:
        raise BadRequest(f"body: unknown field {extra[0]!r}")
    entries = data["collection"]
    if not isinstance(entries, list):
        raise BadRequest("body.collection: expected a list")
    if len(entries) > MAX_COLLECTION:
        raise BadRequest(f"body.collection: more than {MAX_COLLECTION} entries", status=413)
    rows: dict[str, list[Any]] = {"game_id": [], **{flag: [] for flag in FLAGS}, "rating": []}
    for at, entry in enumerate(entries):
        where = f"body.collection[{at}]"
        if not isinstance(entry, dict):
            raise BadRequest(f"{where}: expected an object")
        extra = sorted(set(entry) - {"game_id", *FLAGS, "rating"})
        if extra:
            raise BadRequest(f"{where}: unknown field {extra[0]!r}")
        game = entry.get("game_id")
        if not isinstance(game, str) or not game:
            raise BadRequest(f"{where}.game_id: expected a non-empty string")
        rows["game_id"].append(game)
        for flag in FLAGS:
            value = entry.get(flag, False)
            if not isinstance(value, bool):
                raise BadRequest(f"{where}.{flag}: expected true or false")
            rows[flag].append(value)
        rating = entry.get("rating")
        if rating is not None and (isinstance(rating, bool) or not isinstance(rating, int | float)
                                   or not 1 <= rating <= 5):
            raise BadRequest(f"{where}.rating: expected a number from 1 to 5, or null")
        rows["rating"].append(None if rating is None else float(rating))
    unknown = sorted({g for g in rows["game_id"] if g not in games})
    if unknown:
        shown = ", ".join(repr(g[:60]) for g in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise BadRequest(f"body.collection: unknown game id(s) {shown}")
    return pl.DataFrame(rows, schema={"game_id": pl.String, **{f: pl.Boolean for f in FLAGS}, "rating": pl.Float64})


@dataclass(frozen=True)
class GameNightBody:
    members: list[str]
    cafe: str | None
    anywhere: bool
    n: int


def game_night_body(body: bytes) -> GameNightBody:
    data = parse_json(body)
    if not isinstance(data, dict):
        raise BadRequest("body: expected an object with a \"members\" list")
    extra = sorted(set(data) - {"members", "cafe", "anywhere", "n"})
    if extra:
        raise BadRequest(f"body: unknown field {extra[0]!r}")
    members = data.get("members")
    if not isinstance(members, list) or not all(isinstance(m, str) and m for m in members):
        raise BadRequest("body.members: expected a list of member ids")
    if len(set(members)) < 2:
        raise BadRequest("body.members: a group needs at least two different members")
    if len(members) > 50:
        raise BadRequest("body.members: at most 50 members", status=413)
    cafe = data.get("cafe")
    if cafe is not None and (not isinstance(cafe, str) or not cafe):
        raise BadRequest("body.cafe: expected a cafe slug or null")
    anywhere = data.get("anywhere", False)
    if not isinstance(anywhere, bool):
        raise BadRequest("body.anywhere: expected true or false")
    n = data.get("n", 10)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise BadRequest(f"body.n: expected an integer from 1 to {MAX_N}")
    return GameNightBody(members=members, cafe=cafe, anywhere=anywhere, n=n)
