"""The site spider: selects and follows links; all parsing lives in `scrapers.pages`.

Sections (any subset, comma separated):
- `games`: the catalogue (`/games?page=N`) and every game page;
- `posts`: rule and review posts linked from game pages (needs `games`);
- `members`: the member directory (`/friends?page=N`), and the collection of every
  member found there or as a post author, or of the members given as `users`;
- `cafes`: the cafe index (`/spaces`) and every cafe's games, plus cafes linked from
  game pages.

A paginated listing (a collection, a cafe's games) is walked page after page; after
its last page (the first without a next link) the spider yields a `ListingCrawl` saying
whether it was complete, empty or private, so that the warehouse can replace that
listing safely. A listing whose rows over all its pages disagree with the total it
states is `incomplete` (`scrapers.spiders.totals`); the catalogue and the directory are
checked the same way, and a disagreement is counted and logged.

A page the parsers reject, a cut one (`truncated`) included, is quarantined and yields
nothing, so it never overwrites what the warehouse holds; a listing with such a page
is `incomplete` (the warehouse then deletes nothing of it). Only a whole login page
makes a collection private.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from functools import cache
from typing import Any
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy.http import Response
from twisted.python.failure import Failure

from core.settings import default
from scrapers import pages
from scrapers.pages.source import page_selector
from scrapers.items import ListingCrawl, Quarantined
from scrapers.kinds import ALL_SECTIONS
from scrapers.spiders.increments import PRIORITY_SIGNALS, IncrementalMixin
from scrapers.spiders.totals import (
    LISTING_KEYS,
    LISTING_STATED,
    TALLY_KEYS,
    TALLY_PAGE,
    TALLY_ROWS,
    TALLY_STATED,
    add_total,
    describe,
    tally_meta,
    total_problem,
)

_FRIEND = re.compile(r"/friends/(\d+)")
_SPACE = re.compile(r"/spaces/([^/?#]+)")


class SiteSpider(IncrementalMixin, scrapy.Spider):
    """Crawls one site (a base URL) section by section, never leaving its host.

    Full, or incremental once the warehouse holds a complete crawl (`full=True` forces
    a full one): see `scrapers.spiders.increments`.
    """

    name = "site"

    def __init__(
        self,
        base_url: str = "",
        sections: str | list[str] = ",".join(ALL_SECTIONS),
        users: str | list[str] | None = None,
        full: bool | str = False,
        max_age_days: float | str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not base_url:
            raise ValueError("base_url is required")
        self.base_url = base_url.rstrip("/")
        self.sections = set(_as_list(sections))
        unknown = self.sections - set(ALL_SECTIONS)
        if unknown:
            raise ValueError(f"unknown sections: {', '.join(sorted(unknown))}")
        self.users = _as_list(users) if users else []
        host = urlsplit(self.base_url).hostname or ""
        self.allowed_domains = [host]
        self.ok_urls: set[str] = set()
        self.full = full in (True, "1", "true", "True")
        self.max_age_days = float(default("max_age_days") if max_age_days is None else max_age_days)
        self.complete_scope = self.sections == set(ALL_SECTIONS) and not self.users
        #: マイボードゲーム N of each directory row: a collection's total where its pages state none.
        self.directory_counts: dict[str, int] = {}

    # -- start ------------------------------------------------------------------------
    async def start(self) -> AsyncIterator[Any]:
        if self.incremental:
            for item in self.leftover_requests():
                yield item
        if "games" in self.sections:
            yield self._get("/games", self.parse_catalog).replace(priority=PRIORITY_SIGNALS)
        if "members" in self.sections:
            if self.users:
                for user_id in self.users:
                    yield self._collection_request(user_id)
            else:
                yield self._get("/friends", self.parse_directory).replace(priority=PRIORITY_SIGNALS)
        if "cafes" in self.sections:
            yield self._get("/spaces", self.parse_space_index)

    # -- games and posts --------------------------------------------------------------
    def parse_catalog(self, response: Response) -> Iterator[Any]:
        rows = list(self._items(response, pages.catalog_items))
        yield from rows
        parsed = [r for r in rows if not isinstance(r, Quarantined)]
        yield from self.plan_catalog_rows(response, parsed)
        following = self._walk_next(response, self.parse_catalog, "catalogue", [r.game_id for r in parsed])
        for request in following:
            yield request.replace(priority=PRIORITY_SIGNALS)
        if not following:
            yield from self.missing_games(response)

    def parse_game(self, response: Response) -> Iterator[Any]:
        # Parsed from the bytes with a kept parser: Scrapy's `response.selector` cost a third
        # of parsing a game page (`page_selector`: Scrapy's only where it alone is exact).
        # Built once, and only for a page that is parsed (not a 304 or an unchanged body).
        selector = cache(lambda: page_selector(response))
        if (yield from self._page(response, pages.game_item, selector)) is None:
            return
        if "posts" in self.sections:
            for url in pages.post_links(selector(), response.url):
                if self.wanted_post(url):
                    yield from self._page_request("post", url.rstrip("/").rsplit("/", 1)[-1],
                                                  response.urljoin(url), "new", 20)
        if "cafes" in self.sections:
            yield from self._space_requests(response, selector())

    def parse_post(self, response: Response) -> Iterator[Any]:
        if (yield from self._page(response, pages.post_item)) is None:
            return
        if "members" in self.sections and not self.incremental:
            for url in pages.author_links(response.selector, response.url):
                match = _FRIEND.search(url)
                if match:
                    yield self._collection_request(match.group(1))

    # -- members and collections ------------------------------------------------------
    def parse_directory(self, response: Response) -> Iterator[Any]:
        rows = list(self._items(response, pages.member_items))
        yield from rows
        for uid, signal in pages.directory_signals(response.selector, response.url).items():
            if signal.count is not None:
                self.directory_counts[uid] = signal.count
        yield from self.plan_directory(response)
        yield from self.fallbacks()
        members = [r.user_id for r in rows if not isinstance(r, Quarantined)]
        for request in self._walk_next(response, self.parse_directory, "member directory", members):
            yield request.replace(priority=PRIORITY_SIGNALS)

    def parse_collection(self, response: Response) -> Iterator[Any]:
        yield from self._listing_page(response, pages.collection_items, self.parse_collection)
        yield from self.fallbacks()

    # -- cafes ------------------------------------------------------------------------
    def parse_space_index(self, response: Response) -> Iterator[Any]:
        yield from self._space_requests(response)
        yield from self._next(response, self.parse_space_index)

    def parse_space_games(self, response: Response) -> Iterator[Any]:
        yield from self._listing_page(response, pages.space_items, self.parse_space_games)

    def _listing_page(self, response: Response, parse: Any, callback: Any) -> Iterator[Any]:
        """One page of a paginated listing: its rows, then the next page or the listing's outcome."""
        meta = response.meta
        listing, key, page, seen = meta["listing"], meta["listing_key"], meta["listing_page"], meta["listing_seen"]
        try:
            rows = parse(response.selector, response.url)  # a cut page (login page too) raises
        except pages.PageParseError as exc:
            yield self._quarantine(response, exc)
            yield ListingCrawl(listing=listing, key=key, status="incomplete", n_entries=seen, n_pages=page)
            return
        self.ok_urls.add(response.url)
        if listing == "collection":
            login = pages.is_login_page(response.selector)
            if page == 1:
                self.measure_first_page(response, key, login=login)
            if login:
                yield ListingCrawl(listing=listing, key=key, status="private", n_entries=0, n_pages=page)
                return
            meta["check_page_ordered"] = self.measure_cards(response, rows)
        meta.setdefault(LISTING_KEYS, set()).update(row.game_id for row in rows)  # read, in either mode
        if meta.get("listing_mode") == "incremental":
            yield from self.incremental_page(response, rows, callback)
            return
        yield from rows
        yield from self._listing_next(response, listing, key, page, seen + len(rows), callback)

    # -- errors -----------------------------------------------------------------------
    def on_error(self, failure: Failure) -> Iterator[Any]:
        """A page that could not be fetched is quarantined; a listing it belonged to is incomplete."""
        request = failure.request  # type: ignore[attr-defined]
        if failure.check(scrapy.exceptions.IgnoreRequest) and not hasattr(failure.value, "response"):
            self.crawler.stats.inc_value("bodoge/ignored")  # robots.txt or offsite: by design
            return
        response = getattr(failure.value, "response", None)
        status = response.status if response is not None else None
        reason = f"http {status}" if status else f"fetch failed: {failure.type.__name__}"
        yield Quarantined(
            url=request.url,
            reason=reason,
            body_sha256=hashlib.sha256(response.body).hexdigest() if response is not None else None,
            http_status=status,
        )
        listing = request.meta.get("listing")
        if listing:
            yield ListingCrawl(
                listing=listing,
                key=request.meta["listing_key"],
                status="incomplete",
                n_entries=request.meta["listing_seen"],
                n_pages=request.meta["listing_page"],
            )

    # -- helpers ----------------------------------------------------------------------
    def _get(self, path: str, callback: Any) -> scrapy.Request:
        return scrapy.Request(urljoin(self.base_url + "/", path.lstrip("/")), callback, errback=self.on_error)

    def _collection_request(self, user_id: str) -> scrapy.Request:
        return self._listing_request(
            f"{self.base_url}/friends/{user_id}/boardgames", "collection", user_id, self.parse_collection
        )

    def _space_games_request(self, url: str) -> scrapy.Request | None:
        match = _SPACE.search(urlsplit(url).path)
        if match is None:
            return None
        slug = match.group(1)
        return self._listing_request(f"{self.base_url}/spaces/{slug}/games", "space", slug, self.parse_space_games)

    def _space_requests(self, response: Response, selector: Any = None) -> Iterator[scrapy.Request]:
        for url in pages.space_links(response.selector if selector is None else selector, response.url):
            request = self._space_games_request(url)
            if request is not None:
                yield request

    def _listing_request(self, url: str, listing: str, key: str, callback: Any, page: int = 1, seen: int = 0,
                         carry: dict[str, Any] | None = None) -> scrapy.Request:
        """A listing page; `carry` holds what the signal checks keep across its pages (`check_*`)."""
        return scrapy.Request(
            url,
            callback,
            errback=self.on_error,
            meta={**(carry or {}), "listing": listing, "listing_key": key, "listing_page": page, "listing_seen": seen},
        )

    def _listing_next(self, response: Response, listing: str, key: str, page: int, seen: int, callback: Any) -> Iterator[Any]:
        """The listing's next page, or after its last page (no next link) its outcome.

        `seen` counts the rows of every page read, this one included; the totals the
        pages stated travel with the requests. Public (or empty) only when the rows agree
        with the stated total, else `incomplete`, which deletes nothing.
        """
        stated = add_total(response.meta.get(LISTING_STATED, ()), pages.stated_total(response.selector))
        keys: set[str] = response.meta.get(LISTING_KEYS, set())
        empty_page = pages.is_empty_listing(response.selector)
        next_url = None if empty_page else pages.next_page_url(response.selector, response.url)
        if next_url:
            carry = {k: v for k, v in response.meta.items() if k.startswith("check_") and k != "check_page_ordered"}
            request = self._listing_request(next_url, listing, key, callback, page + 1, seen, carry)
            yield request.replace(meta={**request.meta, LISTING_STATED: stated, LISTING_KEYS: keys})
            return
        expect = response.meta.get("listing_expect")
        if expect is None and listing == "collection":
            expect = self.directory_counts.get(key)
        if self._off_total(f"{listing} {key}", seen, len(keys), page, stated, expect):
            status = "incomplete"
        else:
            status = "public" if seen else "empty"
            if listing == "collection":
                self.measure_whole(key, seen, response.meta)
        yield ListingCrawl(listing=listing, key=key, status=status, n_entries=seen, n_pages=page)

    def _walk_next(self, response: Response, callback: Any, what: str, keys: list[str]) -> list[scrapy.Request]:
        """The next page of the catalogue or directory, carrying the rows counted so far.

        After the last page the count is checked against the stated total (counted and
        logged when they disagree: neither walk deletes anything).
        """
        meta = tally_meta(response.meta, keys, pages.stated_total(response.selector))
        next_url = pages.next_page_url(response.selector, response.url)
        if next_url:
            return [response.follow(next_url, callback, errback=self.on_error, meta=meta)]
        self._off_total(what, meta[TALLY_ROWS], len(meta[TALLY_KEYS]), meta[TALLY_PAGE] - 1, meta[TALLY_STATED], None)
        return []

    def _off_total(self, what: str, rows: int, distinct: int, n_pages: int, stated: tuple[int, ...],
                   expect: int | None) -> str | None:
        """How the rows read disagree with the listing's total (counted, logged), None when they agree."""
        problem = total_problem(rows, distinct, stated, expect)
        if problem is not None:
            self.crawler.stats.inc_value(f"bodoge/listings/{problem}")
            self.logger.warning("%s: %s", describe(what, rows, distinct, n_pages, stated, expect), problem)
        return problem

    def _next(self, response: Response, callback: Any) -> Iterator[scrapy.Request]:
        next_url = pages.next_page_url(response.selector, response.url)
        if next_url:
            yield response.follow(next_url, callback, errback=self.on_error)

    def _page(self, response: Response, parse: Any, selector: Callable[[], Any] | None = None,
              ) -> Generator[Any, None, Any]:
        """One page of its own (a game, a post): yields what the page state answers (a 304,
        a 404 gone, the same body as last time) or the quarantine row, else the parsed item
        and the page's visit; returns the item, or None when there are no links to follow.
        ``selector`` builds the page's tree when the caller wants its own (default: `response.selector`)."""
        answered = self.page_answer(response)  # measures the page's validators
        yield from self.fallbacks()  # what a contradicted validator takes back tonight
        if answered is not None:
            yield answered
            return None
        try:
            item = parse(response.selector if selector is None else selector(), response.url)
        except pages.PageParseError as exc:
            yield self._quarantine(response, exc)
            return None
        self.ok_urls.add(response.url)
        yield item
        yield self.visit(response)
        return item

    def _items(self, response: Response, parse: Any) -> Iterator[Any]:
        try:
            items = parse(response.selector, response.url)
        except pages.PageParseError as exc:
            yield self._quarantine(response, exc)
            return
        self.ok_urls.add(response.url)
        yield from items

    def _quarantine(self, response: Response, exc: pages.PageParseError) -> Quarantined:
        """The page as a quarantine row; its reason is the parser's (`truncated` for a cut page)."""
        self.logger.warning("quarantined %s: %s", response.url, exc)
        return Quarantined(
            url=response.url,
            reason=exc.reason,
            body_sha256=hashlib.sha256(response.body).hexdigest(),
            http_status=response.status,
        )


def _as_list(value: str | list[str]) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]
