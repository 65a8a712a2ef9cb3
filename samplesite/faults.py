"""Which URLs of a sample site misbehave, and how.

Why a module of its own: the faults are part of the contract between the sample site
and the crawler's tests. Permanent faults change the ground truth (the page is listed in
truth `quarantine` and missing from `games`/`posts`/`collections`); transient faults must
not (a crawler that retries recovers them). Tests and benchmarks find the faulty URLs
here instead of guessing.

Rules (only when the site was generated with faults=True):
- permanent: game pages with `Game.malformed` (HTTP 200, no title/spec in games-show:
  an even `numeric_id` is cut off before the title, reason `truncated`; an odd one has
  its catch area replaced by a template error); post pages with `Post.http500` (HTTP 500
  every time).
- permanent, cut pages (HTTP 200, Content-Length of the cut body, no error anywhere):
  `cut_games(site)`, 1 per started 1,000 games, among whole games without posts (so every
  post stays reachable) that credit a mechanic: the page stops inside the opening tag of
  its four counters, so the counters, credits and cafe links are gone;
  `cut_collections(site)`, 1 per started 1,000 members, among public members with at
  least two pages: page 1 of `/friends/<id>/boardgames` stops at 55% of its bytes (at a
  character boundary), mid-card and before the pagination block, so a crawler that
  believed it would see a short one-page collection. Chosen by sha256 of
  "<seed>|cut|<id>", so no random stream of the generator moves.
  Truth rule for cut pages: the page is in truth `quarantine` with reason `truncated`
  and the crawler must take nothing from it. The truth frames describe a first crawl
  into an empty warehouse, so a cut game is absent from truth `games` (its catalogue row
  still reaches `marts.games` as a summary) and a cut member has no rows in truth
  `collections`; over a warehouse that already holds them, the crawl must leave them as
  they were (a cut page is "no news", never "now empty").
- transient: a URL target (path + "?" + query, exactly as requested) whose
  sha256("<seed>|<target>") falls in the first 2% answers 503 on its first request to a
  server instance, the next 1% answers 429 with `Retry-After: 1`; both answer normally
  afterwards. /robots.txt never faults, and neither does a URL whose page is not a
  normal 200 (404s, the HTTP 500 posts): the server draws the fault after rendering.
"""

from __future__ import annotations

import hashlib
import threading

from samplesite.model import Game, Site
from samplesite.pages.members import COLLECTION_PAGE_SIZE

TRANSIENT_503_SHARE = 0.02
TRANSIENT_429_SHARE = 0.01
MALFORMED_REASON = "malformed game page: games-show lacks title and spec"
TRUNCATED_REASON = "truncated"
HTTP500_REASON = "http 500"
#: Where a cut collection page stops, as a share of its bytes.
CUT_COLLECTION_SHARE = 0.55
#: A cut game page stops just inside this tag (the four counters).
_GAME_CUT_AT = '<ul class="games-interests">'
_COLLECTION_STOP = '<nav class="pagination">'
_PER_CUT = 1000
#: The cut pages of recently generated sites, by `id(site)` (the site is kept alive with them).
_CUT_CACHE: dict[int, tuple[Site, frozenset[int], frozenset[int]]] = {}
_CUT_CACHE_SIZE = 8
_CUT_LOCK = threading.Lock()


def transient_fault(site: Site, target: str) -> int | None:
    """503, 429 or None: what the first request of `target` gets, if its page is a 200."""
    if not site.faults or target.split("?", 1)[0] == "/robots.txt":
        return None
    digest = hashlib.sha256(f"{site.seed}|{target}".encode("utf-8")).digest()
    u = int.from_bytes(digest[:8], "big") / 2.0**64
    if u < TRANSIENT_503_SHARE:
        return 503
    if u < TRANSIENT_503_SHARE + TRANSIENT_429_SHARE:
        return 429
    return None


def permanent_faults(site: Site) -> list[tuple[str, str]]:
    """(url path, reason) of every page that is broken on purpose, in URL order."""
    out = [(g.url, TRUNCATED_REASON if malformed_is_cut(g) else MALFORMED_REASON)
           for g in site.games if g.malformed]
    out += [(p.url, HTTP500_REASON) for p in site.posts if p.http500]
    out += [(site.games[i].url, TRUNCATED_REASON) for i in cut_games(site)]
    out += [(site.members[i].collection_url, TRUNCATED_REASON) for i in cut_collections(site)]
    return sorted(out)


def malformed_is_cut(game: Game) -> bool:
    """Whether a malformed game page is the cut-off shape (even id) or the template error."""
    return game.numeric_id % 2 == 0


def _rank(site: Site, key: str) -> bytes:
    return hashlib.sha256(f"{site.seed}|cut|{key}".encode("utf-8")).digest()


def _pick_cut(site: Site) -> tuple[frozenset[int], frozenset[int]]:
    """(game indices, member indices) whose page is cut; see the module docstring."""
    if not site.faults:
        return frozenset(), frozenset()
    games = [g for g in site.games if not g.malformed and not g.post_ids and g.mechanics]
    games.sort(key=lambda g: _rank(site, g.game_id))
    members = [m for m in site.members if not m.private and _has_second_page(site, m.index)]
    members.sort(key=lambda m: _rank(site, m.user_id))
    n_games = -(-len(site.games) // _PER_CUT)
    n_members = -(-len(site.members) // _PER_CUT)
    return (frozenset(g.index for g in games[:n_games]),
            frozenset(m.index for m in members[:n_members]))


def _has_second_page(site: Site, member_index: int) -> bool:
    c = site.collections
    return int(c.offsets[member_index + 1] - c.offsets[member_index]) > COLLECTION_PAGE_SIZE


def _cut_sets(site: Site) -> tuple[frozenset[int], frozenset[int]]:
    with _CUT_LOCK:
        hit = _CUT_CACHE.get(id(site))
        if hit is not None and hit[0] is site:
            return hit[1], hit[2]
    picked = _pick_cut(site)
    with _CUT_LOCK:
        if len(_CUT_CACHE) >= _CUT_CACHE_SIZE:
            _CUT_CACHE.pop(next(iter(_CUT_CACHE)))
        _CUT_CACHE[id(site)] = (site, *picked)
    return picked


def cut_games(site: Site) -> frozenset[int]:
    """Indices of the games whose page is served cut (HTTP 200, stops before the counters)."""
    return _cut_sets(site)[0]


def cut_collections(site: Site) -> frozenset[int]:
    """Indices of the members whose collection page 1 is served cut (HTTP 200, mid-card)."""
    return _cut_sets(site)[1]


def cut_game_page(html: str) -> str:
    """A whole game page as the cut fault serves it: stopped inside the counters' `<ul` tag."""
    return html[: html.index(_GAME_CUT_AT) + len('<ul class="games-')]


def cut_collection_page(html: str) -> str:
    """A whole collection page stopped at 55% of its bytes, always before its pagination block."""
    data = html.encode("utf-8")
    stop = min(int(len(data) * CUT_COLLECTION_SHARE), len(html[: html.index(_COLLECTION_STOP)].encode("utf-8")))
    return data[:stop].decode("utf-8", errors="ignore")


class FirstRequestFaults:
    """Per-server memory of which targets already failed once (thread-safe)."""

    def __init__(self, site: Site, enabled: bool = True) -> None:
        self._site = site
        self._enabled = enabled
        self._failed: set[str] = set()
        self._lock = threading.Lock()

    def check(self, target: str) -> int | None:
        """The fault status to answer now, or None to serve the page normally."""
        if not self._enabled:
            return None
        status = transient_fault(self._site, target)
        if status is None:
            return None
        with self._lock:
            if target in self._failed:
                return None
            self._failed.add(target)
        return status

    def reset(self) -> None:
        with self._lock:
            self._failed.clear()
