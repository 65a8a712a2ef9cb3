"""Checking the site's signals on the pages the spider reads anyway, and falling back at once.

Why a module of its own: `increments` decides what a night fetches on the word of the
site's signals (`scrapers.signals`); this mixin is where each signal is held against a
page that can tell whether it was right, and where a signal contradicted mid-night
takes back what was decided on its word earlier that night:

- directory rows (`マイボードゲーム N`, `data-updated-at`, 非公開) against the member's
  collection read the same night: the login page on an unmarked row, or a real page on
  a marked one, contradicts the marker; a whole read whose count differs from the row,
  or a card newer than the row's update time, contradicts those. A card updated after
  the directory page was served (its `Date`) changed during the crawl: no verdict.
- the collection's sort (更新順): the cards read must come newest update first, across
  pages; an undated card makes the order unknowable (`missing`).
- the listing's stated total (全N個) against the cards of a whole read.
- validators: a 304 agrees; a 200 carrying the validator stored for the page but
  another body contradicts (the server would have answered 304 to a changed page).

On a lost signal (`SignalBook.note` returns True) the members skipped as unchanged
tonight get page 1 read after all, collections read only to their first known card are
read whole, and pages answered 304 tonight are fetched again: `fallbacks()` hands the
spider these requests, which every collection, directory and page callback yields.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

import scrapy
from scrapy.http import Response

from scrapers import pages
from scrapers.pages import DirectorySignal
from scrapers.signals import STRATEGIES, SignalBook


class SignalChecks:
    """Measurement and mid-night fallback for `SiteSpider` (with `IncrementalMixin`)."""

    signal_book: SignalBook | None = None

    def open_signals(self, con: Any, *, incremental: bool) -> None:
        """Tonight's book: what earlier nights of this site concluded, and empty tallies."""
        run_id = self.crawler.settings.get("BODOGE_RUN_ID")
        self.signal_book = SignalBook.load(con, base_url=self.base_url, run_id=run_id, incremental=incremental)
        self.dir_rows: dict[str, tuple[DirectorySignal, datetime | None]] = {}
        self.skipped: dict[str, DirectorySignal] = {}
        self.stopped_early: set[str] = set()
        self.not_modified: list[tuple[str, str, str]] = []
        self._rereads: list[Any] = []
        book = self.signal_book
        self.logger.info("signals remembered: %s; tonight: %s",
                         book.remembered, {n: book.strategy(n) for n in STRATEGIES})

    def trust(self, name: str) -> bool:
        """Whether the fast way may be used for signal `name` right now."""
        return self.signal_book is not None and self.signal_book.trusted(name)

    def _note(self, name: str, what: str, example: str | None = None) -> None:
        if self.signal_book is not None and self.signal_book.note(name, what, example):
            self._fall_back(name)

    # -- directory ------------------------------------------------------------------
    def measure_directory(self, response: Response, signals: dict[str, DirectorySignal]) -> None:
        """Each row: is its count shown, its update time (a public non-empty row), its marker."""
        served = _served_at(response)
        for uid, sig in signals.items():
            self.dir_rows[uid] = (sig, served)
            if sig.private:
                self._note("private_marker", "seen")
                continue
            self._note("directory_counts", "seen" if sig.count is not None else "missing", f"member {uid}")
            if sig.count != 0:
                self._note("directory_updates", "seen" if sig.updated_at else "missing", f"member {uid}")

    # -- collections ----------------------------------------------------------------
    def measure_first_page(self, response: Response, key: str, *, login: bool) -> None:
        """Page 1 of a collection: the marker's word against the page, and the stated total."""
        row = self.dir_rows.get(key)
        if row is not None:
            marked = row[0].private
            if login:
                self._note("private_marker", "agree" if marked else "contradict",
                           None if marked else f"{response.url} is the login page, its directory row had no 非公開")
            elif marked:
                self._note("private_marker", "contradict", f"{response.url} is public, its directory row said 非公開")
        if login:
            return
        stated = pages.collection_total(response.selector)
        response.meta["check_stated"] = stated
        if not pages.is_empty_listing(response.selector):
            self._note("listing_totals", "seen" if stated is not None else "missing", response.url)

    def measure_cards(self, response: Response, rows: list[Any]) -> bool:
        """The cards' order (newest update first, also across pages); True when it held on this page."""
        meta = response.meta
        dates = [r.updated_at for r in rows]
        if not rows:
            return True
        if any(d is None for d in dates):
            self._note("sort_order", "missing", f"{response.url} has a card without an update time")
            return False
        times = [_iso(d) for d in dates]
        last = meta.get("check_last_at")
        chain = ([_iso(last)] if last else []) + times
        ordered = all(a >= b for a, b in zip(chain, chain[1:]))
        if len(set(chain)) > 1:
            self._note("sort_order", "agree" if ordered else "contradict",
                       None if ordered else f"{response.url} is not in 更新順 (newest update first)")
        meta["check_last_at"] = dates[-1]
        newest = max(times)
        before = meta.get("check_newest")
        meta["check_newest"] = newest.isoformat() if before is None or newest > _iso(before) else before
        return ordered

    def measure_whole(self, key: str, n_entries: int, meta: dict[str, Any]) -> None:
        """A collection read whole: its stated total, and the directory's count and update time."""
        stated = meta.get("check_stated")
        if stated is not None:
            self._note("listing_totals", "agree" if stated == n_entries else "contradict",
                       f"member {key}: 全{stated}個 stated, {n_entries} cards read")
        self._check_row(key, n_entries, meta.get("check_newest"), whole=True)

    def measure_stop(self, key: str, total: int | None, meta: dict[str, Any]) -> None:
        """A collection read to its first known card: the row's update time against page 1's newest."""
        self.stopped_early.add(key)
        self._check_row(key, total, meta.get("check_newest"), whole=False)

    def _check_row(self, key: str, n_entries: int | None, newest: str | None, *, whole: bool) -> None:
        row = self.dir_rows.get(key)
        if row is None or row[0].private:
            return
        sig, served = row
        if newest is not None and served is not None and _iso(newest) > served:
            return  # the collection changed after the directory page was served: no verdict
        if sig.count is not None and n_entries is not None:
            self._note("directory_counts", "agree" if sig.count == n_entries else "contradict",
                       f"member {key}: マイボードゲーム {sig.count} in the directory, {n_entries} in the collection")
        if sig.updated_at is None or (newest is None and not whole):
            return
        same = newest is not None and _iso(newest) == _iso(sig.updated_at)
        newer = newest is not None and _iso(newest) > _iso(sig.updated_at)
        if same or newer or whole:
            self._note("directory_updates", "agree" if same else "contradict",
                       f"member {key}: directory says {sig.updated_at}, newest card {newest}")

    # -- game and post pages --------------------------------------------------------
    def measure_page(self, response: Response, stored: Any, sha: str) -> None:
        """Validators: shown on a 200? A 304 agrees; the stored validator with another body contradicts."""
        if response.status == 304:
            self._note("validators", "agree")
            self.not_modified.append((response.meta["page_kind"], response.meta["page_key"], response.url))
            return
        if response.status != 200:
            return
        etag, modified = _header(response, "ETag"), _header(response, "Last-Modified")
        self._note("validators", "seen" if etag or modified else "missing", response.url)
        if stored is None or stored.http_status == 404 or stored.body_sha256 is None:
            return
        same_tag = etag is not None and etag == stored.etag
        same_date = etag is None and modified is not None and modified == stored.last_modified
        if same_tag or same_date:
            self._note("validators", "agree" if sha == stored.body_sha256 else "contradict",
                       f"{response.url}: the same validator came with another body")

    # -- falling back ---------------------------------------------------------------
    def _fall_back(self, name: str) -> None:
        """Signal `name` lost tonight: re-read what was decided on its word (see module docstring)."""
        self.logger.warning("signal %s contradicted tonight: falling back to %s", name, STRATEGIES[name][1])
        if name in ("directory_updates", "private_marker", "directory_counts"):
            self.crawler.stats.inc_value("bodoge/collections/rechecked", len(self.skipped))
            for uid, sig in sorted(self.skipped.items()):
                expect = sig.count if self.trust("directory_counts") else None
                self._rereads.extend(self._collection_read(uid, "recheck", expect, incremental=self.trust("sort_order"),
                                                           priority=50, reread=True))
            self.skipped.clear()
        if name in ("sort_order", "listing_totals", "directory_counts"):
            for uid in sorted(self.stopped_early):
                self._rereads.extend(self._collection_read(uid, "recheck", None, incremental=False, priority=50,
                                                           reread=True))
            self.stopped_early.clear()
        if name == "validators":
            for kind, key, url in self.not_modified:
                for item in self._page_request(kind, key, url, "recheck", 50):
                    self._rereads.append(item.replace(dont_filter=True) if isinstance(item, scrapy.Request) else item)
            self.not_modified.clear()

    def fallbacks(self) -> Iterator[Any]:
        """The re-reads a signal lost since the last callback asks for (yielded by every callback)."""
        pending, self._rereads = self._rereads, []
        yield from pending


def _served_at(response: Response) -> datetime | None:
    """When the server answered (its `Date` header), for telling a change during the crawl."""
    value = _header(response, "Date")
    try:
        return parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError):
        return None


def _header(response: Response, name: str) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


def _iso(value: str) -> datetime:
    return datetime.fromisoformat(value)
