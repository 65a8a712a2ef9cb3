"""The incremental night: what the site spider fetches when the warehouse already knows the site.

Rules (why each is exact, see also docs/crawl.md, "Incremental nights"):
- **Directory first.** Every night reads the whole member directory. A row whose count
  and newest update (`data-updated-at`) equal what the warehouse holds is `unchanged`:
  the collection is not opened. A site sorts a collection 更新順, so any change to a
  card (add, status, rating) shows as a newer update; a removal shows as a smaller count.
- **Collections from page 1 to the first known card.** A changed collection is read
  from page 1 until the first card already known with the same `updated_at`. The
  listing's total (全N個, else the directory's count) must then equal the known count
  plus the new games read; if not, something was removed and the collection is read
  whole (its outcome `public` deletes what it no longer shows). A cut or failed page
  makes it `incomplete`: nothing is deleted and the next night reads it whole.
- **Privacy.** A row marked 非公開 of a member the warehouse names gets page 1 re-read:
  the login page erases every trace that night. A 非公開 row of a member we do not know
  is not fetched and leaves nothing. A member public again is unknown, so read whole.
  Where the directory shows no count or update, the collection is opened every night.
- **Games.** The catalogue is read whole (a twentieth of the games' pages): an unknown
  game or a changed row fetches the game page. Game and post pages are revalidated with
  conditional requests (ETag / Last-Modified → 304) by the rolling refresh
  (`KnownState.due`); without validators the body's sha256 tells "unchanged". A 404
  marks the game gone.
- **Signals checked.** Each rule above leans on a signal of the site (the directory's
  count, update time and 非公開 marker, 更新順, the stated total, validators). Every night
  measures them on the pages it reads and uses a rule only while its signal is trusted
  (`scrapers.signals`); otherwise the slower exact way: page 1 of every known member
  instead of skipping, a whole read instead of stopping at the first known card, the
  directory's count instead of the total, the body's sha256 instead of a 304. A signal
  contradicted mid-night takes back what was skipped on its word (`checks`).
- **Frontier.** Every page the night decides to fetch is queued in the warehouse
  (`Queued`) and leaves the queue once read, so what a budget or a kill leaves is
  fetched first next night, oldest first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response

from scrapers import pages
from scrapers.items import ListingCrawl, PageVisit, Queued
from scrapers.known import KnownMember, KnownState
from scrapers.pages import DirectorySignal
from scrapers.spiders.checks import SignalChecks

#: Scheduling priorities: the frontier left by earlier nights first, then the listings that
#: carry the change signals, then what they discover, then the rolling refresh.
PRIORITY_FRONTIER, PRIORITY_SIGNALS, PRIORITY_FOUND, PRIORITY_STALE = 100, 50, 20, 10


class IncrementalMixin(SignalChecks):
    """Incremental planning for `SiteSpider`; `self.known` is None on a full crawl."""

    known: KnownState | None = None
    mode: str = "full"
    catalog_seen: set[str]

    def attach_warehouse(self, con: Any) -> None:
        """Called by the item pipeline with a cursor on the crawl's warehouse: choose the mode."""
        self.known = KnownState(con, max_age_days=self.max_age_days)
        self.catalog_seen = set()
        incremental = not self.full and not self.users and self.known.complete_crawl
        self.mode = "incremental" if incremental else "full"
        self.crawler.stats.set_value("bodoge/mode", self.mode)
        self.logger.info("crawl mode: %s", self.mode)
        self.open_signals(con, incremental=self.incremental)

    @property
    def incremental(self) -> bool:
        return self.mode == "incremental"

    def _count(self, what: str, n: int = 1) -> None:
        self.crawler.stats.inc_value(f"bodoge/{what}", n)

    # -- planning ------------------------------------------------------------------------
    def leftover_requests(self) -> Iterator[Any]:
        """The persisted frontier (oldest first), then tonight's rolling refresh."""
        assert self.known is not None
        frontier = self.known.frontier()
        for i, (kind, key, url, reason) in enumerate(frontier):
            yield from self._page_request(kind, key, url, reason, PRIORITY_FRONTIER + len(frontier) - i)
        due = self.known.due()
        self._count("queued/stale", len(due))
        for kind, key, url in due:
            yield from self._page_request(kind, key, url, "stale", PRIORITY_STALE)

    def _page_request(self, kind: str, key: str, url: str, reason: str, priority: int) -> Iterator[Any]:
        if kind == "game":
            yield from self._game_request(url, key, reason, priority)
        elif kind == "post" and "posts" in self.sections:
            if self.incremental:
                yield Queued(page_kind="post", key=key, url=urlsplit(url).path, reason=reason)
            yield self._conditional(url, "post", key, self.parse_post, priority)
        elif kind == "collection" and "members" in self.sections:
            known = self.known.members.get(key) if self.known else None
            yield from self._collection_read(key, reason, None, incremental=bool(known and known.complete),
                                             priority=priority)

    def _game_request(self, url: str, game_id: str, reason: str, priority: int = PRIORITY_FOUND) -> Iterator[Any]:
        if self.incremental:
            yield Queued(page_kind="game", key=game_id, url=urlsplit(url).path, reason=reason)
        yield self._conditional(url, "game", game_id, self.parse_game, priority)

    def _conditional(self, url: str, kind: str, key: str, callback: Any, priority: int) -> scrapy.Request:
        """A request with the validators the page last gave (304 and 404 reach the callback).

        Only an incremental night asks conditionally (a full crawl reads every page whole),
        and only while the validators are trusted (`scrapers.signals`): else the body's
        sha256 tells an unchanged page.
        """
        state = self.known.pages.get((kind, key)) if self.known and self.incremental else None
        state = state if self.trust("validators") else None
        headers = {}
        if state is not None and state.http_status != 404:
            if state.etag:
                headers["If-None-Match"] = state.etag
            if state.last_modified:
                headers["If-Modified-Since"] = state.last_modified
        return scrapy.Request(self._absolute(url), callback, errback=self.on_error, headers=headers,
                              priority=priority,
                              meta={"handle_httpstatus_list": [304, 404], "page_kind": kind, "page_key": key})

    def _collection_read(self, user_id: str, reason: str, expect: int | None, *, incremental: bool,
                         priority: int = PRIORITY_FOUND, reread: bool = False) -> Iterator[Any]:
        """Page 1 of a collection, read to its first known card (`incremental`) or whole.

        `reread`: the page may already have been fetched tonight (a fallback reads it again).
        """
        path = f"/friends/{user_id}/boardgames"
        if self.incremental:
            yield Queued(page_kind="collection", key=user_id, url=path, reason=reason)
        request = self._collection_request(user_id)
        extra = {"listing_mode": "incremental" if incremental else "full", "listing_expect": expect,
                 "listing_new": 0}
        yield request.replace(priority=priority, meta={**request.meta, **extra}, dont_filter=reread)

    # -- pages ---------------------------------------------------------------------------
    def page_answer(self, response: Response) -> PageVisit | None:
        """A visit for a 304, a 404 or a body identical to the last one; None when it must be parsed."""
        kind, key = response.meta.get("page_kind"), response.meta.get("page_key")
        if kind is None:
            return None
        stored = self.known.pages.get((kind, key)) if self.known else None
        self.measure_page(response, stored, _sha(response))
        state = stored if self.incremental else None
        if response.status == 304 and state is not None:
            self._count("pages/not_modified")
            return PageVisit(page_kind=kind, key=key, url=state.url, http_status=304, etag=state.etag,
                             last_modified=state.last_modified, body_sha256=state.body_sha256)
        if response.status == 404:
            self._count("gone")
            return self.visit(response, status=404)
        if state is not None and state.body_sha256 == _sha(response) and state.http_status != 404:
            self._count("pages/same_body")
            return self.visit(response)
        return None

    def visit(self, response: Response, *, status: int | None = None) -> PageVisit | None:
        kind, key = response.meta.get("page_kind"), response.meta.get("page_key")
        if kind is None:
            return None
        header = response.headers.get
        return PageVisit(page_kind=kind, key=key, url=urlsplit(response.url).path, http_status=status or response.status,
                         etag=_text(header("ETag")), last_modified=_text(header("Last-Modified")),
                         body_sha256=_sha(response))

    def plan_catalog_rows(self, response: Response, rows: list[Any]) -> Iterator[Any]:
        """Catalogue rows: full → every game page; incremental → new or changed games only."""
        for url in pages.game_links(response.selector, response.url):
            game_id = pages.game_slug(url)
            if game_id is None:
                continue
            self.catalog_seen.add(game_id)
            if not self.incremental:
                yield from self._game_request(response.urljoin(url), game_id, "full")
                continue
            row = next((r for r in rows if r.game_id == game_id), None)
            known = self.known.summaries.get(game_id)
            fresh = row is not None and known == _summary(row)
            if game_id in self.known.games and fresh:
                self._count("skipped/games")
                continue
            reason = "new" if game_id not in self.known.games else "changed"
            yield from self._game_request(response.urljoin(url), game_id, reason)

    def missing_games(self, response: Response) -> Iterator[Any]:
        """After the catalogue's last page: known games it no longer lists are revalidated (404 = gone)."""
        if not self.incremental:
            return
        for game_id in sorted(self.known.games - self.catalog_seen):
            state = self.known.pages.get(("game", game_id))
            if state is None or state.http_status != 404:
                yield from self._game_request(response.urljoin(f"/games/{game_id}"), game_id, "unlisted")

    def wanted_post(self, url: str) -> bool:
        """Full: every post; incremental: posts the warehouse does not hold yet."""
        return not self.incremental or (_post_id(url) or "") not in self.known.posts

    # -- members -------------------------------------------------------------------------
    def plan_directory(self, response: Response) -> Iterator[Any]:
        """One request (or none) per directory row; see the module docstring.

        A row is skipped as unchanged only while the count, the update time and the
        非公開 marker are all trusted (`scrapers.signals`); a row that looks unchanged
        otherwise gets page 1 read (the login page for a private member), and a 非公開
        row is taken at its word only while the marker is trusted.
        """
        signals = pages.directory_signals(response.selector, response.url)
        self.measure_directory(response, signals)
        for url in pages.member_links(response.selector, response.url):
            uid = pages.member_id(url)
            if not uid:
                continue
            sig = signals.get(uid)
            if not self.incremental:
                yield self._collection_request(uid)
                continue
            known = self.known.members.get(uid)
            marked = sig is not None and sig.private
            if marked and self.trust("private_marker"):
                if self.known.knows_member(uid):
                    yield from self._collection_read(uid, "private", None, incremental=False,
                                                     priority=PRIORITY_SIGNALS)
                else:
                    self._count("skipped/private")
                continue
            if known is None or not known.complete:
                yield from self._collection_read(uid, "new" if known is None else "retry", None, incremental=False)
                continue
            expect = sig.count if sig is not None and self.trust("directory_counts") else None
            trusted = all(self.trust(n) for n in ("directory_counts", "directory_updates", "private_marker"))
            if not marked and trusted and _row_unchanged(sig, known):
                self._count("skipped/collections")
                self.skipped[uid] = sig
                yield ListingCrawl(listing="collection", key=uid, status="unchanged", n_entries=known.n_entries,
                                   n_pages=0)
                continue
            changed = marked or _row_shows_change(sig, known)
            if not changed:
                self._count("collections/page1_checks")  # no change shown, but the signals cannot vouch
            yield from self._collection_read(uid, "changed" if changed else "check", expect,
                                             incremental=not marked and self.trust("sort_order"))

    def incremental_page(self, response: Response, rows: list[Any], callback: Any) -> Iterator[Any]:
        """A collection page in incremental mode: new cards up to the first known one."""
        meta = response.meta
        key, page, seen = meta["listing_key"], meta["listing_page"], meta["listing_seen"]
        if "listing_known" not in meta:
            meta["listing_known"] = self.known.entries(key)
        known_cards: dict[str, str | None] = meta["listing_known"]
        # Stop at the first known card only on a page in 更新順 while the order is trusted.
        may_stop = self.trust("sort_order") and meta.get("check_page_ordered", False)
        fresh = []
        stopped = False
        for row in rows:
            if may_stop and row.game_id in known_cards and known_cards[row.game_id] == row.updated_at:
                stopped = True
                break
            fresh.append(row)
        n_new = meta["listing_new"] + sum(1 for r in fresh if r.game_id not in known_cards)
        stated = meta.get("check_stated") if self.trust("listing_totals") else None
        total = stated if stated is not None else meta.get("listing_expect")
        known = self.known.members[key]
        if stopped and total is not None and total == known.n_entries + n_new:
            self.measure_stop(key, stated, meta)
            yield from fresh
            unchanged = n_new == 0 and not fresh
            self._count("collections/confirmed_unchanged" if unchanged else "collections/updated")
            yield ListingCrawl(listing="collection", key=key, status="unchanged" if unchanged else "updated",
                               n_entries=total, n_pages=page)
            return
        # Whole from here: all of this page's cards, and every later page (the outcome may delete).
        yield from rows
        mode = "incremental" if not stopped else "full"
        if stopped:
            self._count("collections/read_whole")
        for item in self._listing_next(response, "collection", key, page, seen + len(rows), callback):
            if isinstance(item, scrapy.Request):
                item = item.replace(meta={**item.meta, "listing_mode": mode, "listing_known": known_cards,
                                          "listing_new": n_new, "listing_total": total,
                                          "listing_expect": meta.get("listing_expect")})
            yield item

    def _absolute(self, url: str) -> str:
        return url if "://" in url else f"{self.base_url}{url}"


def _row_unchanged(sig: DirectorySignal | None, known: KnownMember) -> bool:
    """Whether a directory row shows the count and newest update the warehouse holds."""
    return (sig is not None and sig.count is not None and sig.count == known.n_entries
            and sig.updated_at == known.newest and (sig.updated_at is not None or sig.count == 0))


def _row_shows_change(sig: DirectorySignal | None, known: KnownMember) -> bool:
    """Whether a directory row shows a count or an update time other than the warehouse's."""
    if sig is None:
        return False
    return (sig.count is not None and sig.count != known.n_entries) or \
        (sig.updated_at is not None and sig.updated_at != known.newest)


def _sha(response: Response) -> str:
    return hashlib.sha256(response.body).hexdigest()


def _text(value: bytes | None) -> str | None:
    return value.decode("latin-1") if value else None


def _summary(row: Any) -> tuple[Any, ...]:
    return (row.name_ja, row.name_en, row.min_players, row.max_players, row.min_minutes, row.max_minutes,
            row.min_age, row.year)


def _post_id(url: str) -> str | None:
    tail = urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
    return tail if tail.isdigit() else None
