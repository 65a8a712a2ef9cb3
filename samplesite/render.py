"""Render any page of a generated site on demand, in the markup of the real site.

Why on demand: a site of 2,000 games and 5,000 members has tens of thousands of pages
(every collection page of every member, filtered views, cafe pages...); rendering only
what is asked keeps start-up instant and memory flat. The permanent faults (malformed
and cut pages, HTTP 500 posts) are rendered here, as `faults` designates them. `render` is a pure function of
(site, target): the same request always gives the same bytes. Transient faults
(503/429 on a first request) are not here but in the server (see faults.py), because
they depend on what that server instance has already answered.

The markup follows /work/shared/site-samples (element ids, classes, data-attributes,
href shapes and Japanese labels); where the samples are silent (member profile, cafe
index, designer pages) the pages are small reconstructions in the same style.

This module is the routing (`_ROUTES`, `render`) and the validators of game pages; the
templates live in `samplesite.pages`, one module per kind of page.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import format_datetime
from urllib.parse import parse_qs, urlsplit

from samplesite import faults
from samplesite.model import GAME_PAGES_SINCE, Cafe, Member, Site
from samplesite.pages.cafes import space, space_games, spaces_index
from samplesite.pages.games import catalogue, credit_page, game_page
from samplesite.pages.layout import HTML, TEXT, Response
from samplesite.pages.members import collection, directory, profile
from samplesite.pages.posts import post_page
from samplesite.pages.static import error_page, home, login_page, not_found_page, robots_txt


def _html(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return Response(status, HTML, text.encode("utf-8"), headers or {})


Handler = Callable[["_Request"], "Response | None"]
"""A route handler: the response, or None for a 404 (an unknown game, member, cafe...)."""


@dataclass(frozen=True, slots=True)
class _Request:
    """What a route handler needs: the site, the path's groups, the query and its page."""

    site: Site
    groups: tuple[str | None, ...]
    query: dict[str, list[str]]
    page: int
    crawl_delay: float | None


def _game(r: _Request) -> Response | None:
    gi = r.site.game_by_slug.get(r.groups[0] or "")
    if gi is None:
        return None
    text = game_page(r.site, r.site.games[gi])
    text = faults.cut_game_page(text) if gi in faults.cut_games(r.site) else text
    return _html(200, text, game_validators(r.site, gi, text))


def _post(r: _Request) -> Response | None:
    pi = r.site.post_by_id.get(int(r.groups[2] or 0))
    if pi is None:
        return None
    p = r.site.posts[pi]
    if p.game_id != r.groups[0] or f"{p.kind}s" != r.groups[1]:
        return None
    return _html(500, error_page(500)) if p.http500 else _html(200, post_page(r.site, p))


def _member(r: _Request) -> Member | None:
    mi = r.site.member_by_id.get(r.groups[0] or "")
    return None if mi is None else r.site.members[mi]


def _profile_route(r: _Request) -> Response | None:
    m = _member(r)
    return None if m is None else _html(200, profile(r.site, m))


def _collection_route(r: _Request) -> Response | None:
    m = _member(r)
    if m is None:
        return None
    if m.private:
        return _html(200, login_page())
    text = collection(r.site, m, r.groups[1], r.page)
    cut = r.groups[1] is None and r.page == 1 and m.index in faults.cut_collections(r.site)
    return _html(200, faults.cut_collection_page(text) if cut else text)


def _cafe(r: _Request, page: Callable[[Cafe], str]) -> Response | None:
    ci = r.site.cafe_by_slug.get(r.groups[0] or "")
    return None if ci is None else _html(200, page(r.site.cafes[ci]))


def _credit(r: _Request) -> Response | None:
    text = credit_page(r.site, r.groups[0] or "", int(r.groups[1] or 0))
    return None if text is None else _html(200, text)


# Every route once: its path pattern (matched in full) and what answers it (None → 404).
_ROUTES: tuple[tuple[re.Pattern[str], Handler], ...] = tuple((re.compile(rx), handler) for rx, handler in (
    (r"/", lambda r: _html(200, home(r.site))),
    (r"/robots\.txt", lambda r: Response(200, TEXT, robots_txt(r.crawl_delay).encode("utf-8"))),
    (r"/(?:login|mypage)", lambda r: _html(200, login_page())),
    (r"/games", lambda r: _html(200, catalogue(r.site, r.query, r.page))),
    (r"/games/([a-z0-9-]+)", _game),
    (r"/games/([a-z0-9-]+)/(rules|reviews)/(\d+)", _post),
    (r"/friends", lambda r: _html(200, directory(r.site, r.page))),
    (r"/friends/(\d+)", _profile_route),
    (r"/friends/(\d+)/boardgames(?:/(have|played|favorite|watching))?", _collection_route),
    (r"/spaces", lambda r: _html(200, spaces_index(r.site, r.page))),
    (r"/spaces/([a-z0-9-]+)", lambda r: _cafe(r, space)),
    (r"/spaces/([a-z0-9-]+)/games", lambda r: _cafe(r, lambda c: space_games(r.site, c, r.page))),
    (r"/(designers|makers)/(\d+)", _credit),
))


def _page_number(query: dict[str, list[str]]) -> int:
    try:
        return max(1, int(query.get("page", ["1"])[0]))
    except ValueError:
        return 1


def render(site: Site, path_with_query: str, *, crawl_delay: float | None = None) -> Response:
    """The response to a GET of `path_with_query` (e.g. "/games?page=2"); never raises."""
    parts = urlsplit(path_with_query)
    path = parts.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/")
    query = parse_qs(parts.query)
    for rx, handler in _ROUTES:
        m = rx.fullmatch(path)
        if m is not None:
            body = handler(_Request(site, m.groups(), query, _page_number(query), crawl_delay))
            return body if body is not None else _html(404, not_found_page())
    return _html(404, not_found_page())


def game_validators(site: Site, game_index: int, text: str) -> dict[str, str]:
    """ETag (a hash of the page) and Last-Modified (when its game last changed) of a game page."""
    modified = datetime.fromisoformat(site.game_modified.get(game_index, GAME_PAGES_SINCE))
    return {"ETag": f'"{hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]}"',
            "Last-Modified": format_datetime(modified.astimezone(timezone.utc), usegmt=True)}


