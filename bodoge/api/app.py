"""The HTTP API's routes (Starlette under uvicorn): the published night's lists, and fresh ones by fold-in.

Why Starlette and not a heavier framework: the answers are the export's own lines (read at
an offset, `bodoge.api.night`) and the document is the export's own schemas
(`bodoge.api.openapi`); what is left is routing, which Starlette does with little cost per
request (the stored list is the route the site calls on every page view).

Routes and answers: CONTRACT.md "HTTP API for the site", docs/api.md. What no answer or log
line holds: the token, a request body, a collection, a member id (the one log line per request
names the route, not the path).
"""

from __future__ import annotations

import hmac
import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from bodoge.api.night import Night
from bodoge.api.openapi import document
from bodoge.api.requests import BadRequest, ListQuery, collection_frame, game_night_body, list_query
from bodoge.api.serving import Serving
from models.discovery.group import GroupError

log = logging.getLogger("bodoge.api")

OPEN = frozenset({"/healthz", "/readyz"})
"""Routes answered without the token (a load balancer's probes)."""

MODES = {"discovery": "discovery", "watch-list": "watch_list", "play-next": "play_next"}
"""The member routes' last segment, and the list (`bodoge.api.night.FILES`) each serves."""


def json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


def error(message: str, status: int) -> Response:
    return json({"error": message}, status)


NO_MEMBER = "no public member with this id"


def no_member(user_id: str) -> Response:
    """An unknown member and a private one: the same answer, byte for byte, whoever is asked for."""
    return error(NO_MEMBER, 404)


class Guard:
    """Pure ASGI middleware: the bearer token, and one log line per request (route, status, time:
    DEBUG, shown by `bodoge -v api`; a 5xx is a WARNING)."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app = app
        self.token = token.encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = {"code": 500}

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        if self.token is not None and scope["path"] not in OPEN and not self._allowed(scope):
            await error("missing or wrong bearer token (Authorization: Bearer …)", 401)(scope, receive, sending)
        else:
            await self.app(scope, receive, sending)
        route = scope.get("route")
        log.log(logging.WARNING if status["code"] >= 500 else logging.DEBUG, "%s %s %d %.1fms", scope["method"],
                getattr(route, "path", "-"), status["code"], (time.perf_counter() - started) * 1000)

    def _allowed(self, scope: Scope) -> bool:
        assert self.token is not None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)
        return False


def create_app(serving: Serving, *, token: str | None = None, bare_bytes: int | None = None) -> ASGIApp:
    """The application over `serving` (started and stopped with the app). `bare_bytes`: also
    `GET /bare`, a constant JSON body of that size through the same server and guard, the
    yardstick of `benchmarks.api` (off unless asked for)."""

    def unready() -> Response:
        return error("no published night is loaded yet" + (f" ({serving.last_error})" if serving.last_error else ""),
                     503)

    async def healthz(request: Request) -> Response:
        return json({"status": "ok"})

    async def readyz(request: Request) -> Response:
        night = serving.night
        return unready() if night is None else json({"status": "ready", "night_id": night.night_id})

    async def openapi(request: Request) -> Response:
        return json(document())

    async def the_night(request: Request) -> Response:
        with serving.use() as night:
            if night is None:
                return unready()
            published = night.published_at.isoformat() if night.published_at is not None else None
            return json({"night_id": night.night_id, "published_at": published, "champion": night.champion})

    async def member_list(request: Request) -> Response:
        user_id = request.path_params["user_id"]
        mode = MODES[request.url.path.rsplit("/", 1)[1]]
        try:
            query = list_query(request.query_params, filters=mode == "discovery")
            body = await request.body() if request.method == "POST" else None
        except BadRequest as bad:
            return error(str(bad), bad.status)
        with serving.use() as night:
            if night is None:
                return unready()
            known = serving.public(night, user_id)
            if body is None:
                if not known:
                    return no_member(user_id)
                items, welcome = await _stored(night, mode, user_id, query)
            else:
                if user_id in serving.hidden:
                    known = False  # answered from the body alone, as for a member the night never saw
                try:
                    frame = collection_frame(body, night.games)
                except BadRequest as bad:
                    return error(str(bad), bad.status)
                fold = await _model(night)
                if fold is None:
                    return error("this night has no model to fold in with (until the next night)", 503)
                items, welcome = await run_in_threadpool(_folded, night, fold, mode, user_id, frame, query, known)
            answer = {"user_id": user_id, "night_id": night.night_id, "items": items}
            if welcome is not None:
                answer["welcome"] = welcome  # a discovery list that is a welcome list (schema 1.1.0)
            return json(answer)

    async def similar(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        try:
            query = list_query(request.query_params, filters=False)
        except BadRequest as bad:
            return error(str(bad), bad.status)
        with serving.use() as night:
            if night is None:
                return unready()
            if game_id not in night.games:
                return error(f"unknown game {game_id[:80]!r}", 404)
            line = night.line("similar", game_id)
            items = orjson.loads(line)["items"][: query.n] if line else []
            return json({"game_id": game_id, "night_id": night.night_id, "items": items})

    async def game_night(request: Request) -> Response:
        try:
            wanted = game_night_body(await request.body())
        except BadRequest as bad:
            return error(str(bad), bad.status)
        with serving.use() as night:
            if night is None:
                return unready()
            for member in wanted.members:
                if not serving.public(night, member):
                    return no_member(member)
            fold = await _model(night)
            if fold is None:
                return error("this night has no model to rank a group with (until the next night)", 503)
            try:
                items = await run_in_threadpool(_game_night, night, fold, wanted)
            except (LookupError, GroupError) as lookup:
                return error(str(lookup).splitlines()[0], 404)
            return json({"members": wanted.members, "night_id": night.night_id, "items": items})

    async def not_found(request: Request, exc: Exception) -> Response:
        return error("no such route (see /openapi.json)", 404)

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return error("method not allowed on this route", 405)

    async def failed(request: Request, exc: Exception) -> Response:
        log.error("api: %s answering %s", type(exc).__name__, getattr(request.scope.get("route"), "path", "-"))
        return error("internal error", 500)

    constant = b'{"x":"' + b"x" * max(0, (bare_bytes or 0) - 8) + b'"}'

    async def bare(request: Request) -> Response:
        return Response(constant, media_type="application/json")

    member = "/v1/members/{user_id}/"
    routes = [
        Route("/healthz", healthz), Route("/readyz", readyz), Route("/openapi.json", openapi),
        Route("/v1/night", the_night),
        *[Route(member + segment, member_list, methods=["GET", "POST"]) for segment in MODES],
        Route("/v1/games/{game_id}/similar", similar), Route("/v1/game-night", game_night, methods=["POST"]),
        *([Route("/bare", bare)] if bare_bytes else []),
    ]
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(serving.start)
        try:
            yield
        finally:
            serving.stop()

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed, Exception: failed},
                    lifespan=lifespan)
    return Guard(app, token=token)


async def _model(night: Night) -> Any:
    """The night's fold-in model: at once when loaded, else loaded on a worker thread."""
    loaded = night.loaded_model()
    return loaded if loaded is not None else await run_in_threadpool(night.fold_in)


def _renumbered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**item, "rank": rank} for rank, item in enumerate(items, start=1)]


def _filtered(night: Night, items: list[dict[str, Any]], query: ListQuery) -> list[dict[str, Any]]:
    """The items that pass the filter's rule macros, renumbered (all of them without a filter)."""
    if query.players is None and query.max_minutes is None:
        return items
    mask = night.mask(query.players, query.max_minutes)
    index = night.games
    return _renumbered([item for item in items if (at := index.get(item["game_id"])) is not None and mask[at]])


async def _stored(night: Night, mode: str, user_id: str, query: ListQuery) -> tuple[list[dict[str, Any]], bool | None]:
    """The member's stored list: the bundle's line, filtered; when a filter leaves fewer than
    `n`, the member's whole catalogue ranked again from the night's rows (`bodoge recommend`).
    With it, for discovery, whether the list is a welcome list (the line's `welcome`)."""
    line = night.line(mode, user_id)
    data = orjson.loads(line) if line else {}
    items = data.get("items", [])
    welcome = bool(data.get("welcome", False)) if mode == "discovery" else None
    shown = _filtered(night, items, query)
    if len(shown) >= query.n or shown is items or mode != "discovery":
        return shown[: query.n], welcome
    fold = await _model(night)
    if fold is None:
        return shown[: query.n], welcome
    return await run_in_threadpool(_refilled, night, fold, user_id, query)


def _hints(night: Night, user_id: str) -> Any:
    """The games of the member's posts in the night (what a welcome list reads of them)."""
    from warehouse.views import post_games

    return post_games(night.cursor(), user_id)


def _refilled(night: Night, fold: Any, user_id: str, query: ListQuery) -> tuple[list[dict[str, Any]], bool | None]:
    ranked = fold.rank_rows(user_id, fold.night_rows(user_id), "discovery", None,
                            hints=lambda: _hints(night, user_id))
    return _filtered(night, _items(ranked), query)[: query.n], bool(ranked["welcome"].any()) if ranked.height else None


def _items(ranked: Any) -> list[dict[str, Any]]:
    return ranked.select("rank", "game_id", "score", "reason").to_dicts()


def _folded(night: Night, fold: Any, mode: str, user_id: str, frame: Any, query: ListQuery,
            known: bool) -> tuple[list[dict[str, Any]], bool | None]:
    """Fold-in: the list of `mode` for the posted collection, filtered as a stored list is."""
    key = user_id if known else f"\x00{user_id}"  # a stranger's id never meets the night's rows
    hints = (lambda: _hints(night, user_id)) if known and mode == "discovery" else None  # asked for a welcome list only
    rows = fold.rows(key, frame)
    ranked = fold.rank_rows(key, rows, mode, hints=hints)
    shown = _filtered(night, _items(ranked), query)
    if len(shown) < query.n and (query.players is not None or query.max_minutes is not None):
        ranked = fold.rank_rows(key, rows, mode, None, hints=hints)
        shown = _filtered(night, _items(ranked), query)
    welcome = (bool(ranked["welcome"].any()) if ranked.height else False) if mode == "discovery" else None
    return shown[: query.n], welcome


_GROUPS = threading.Lock()
"""Game nights rank with the night's shared model, whose ensemble keeps per-row statistics
while it ranks (not safe from two threads at once); fold-ins rank folded copies instead."""


def _game_night(night: Night, fold: Any, wanted: Any) -> list[dict[str, Any]]:
    from bodoge.recommend import game_night

    with _GROUPS:
        return game_night(night.cursor(), wanted.members, cafe=wanted.cafe, anywhere=wanted.anywhere, n=wanted.n,
                          model_dir=night.model_dir, state=fold.state)
