"""`bodoge crawl --probe`: a few dozen polite requests that say which site signals a night can lean on.

Why: several signals the incremental night uses are our reconstruction of the real site
(`scrapers.signals`). Before the first night, or after the site changes its markup, an
operator wants to know, in a minute and without a warehouse, what the site shows: the
directory's counts, update times and 非公開 marker, the collections' 更新順 order and
stated totals, validators on game pages, a cafe listing's total. The probe reads the same
pages a night would (with the spiders' own parsers), judges each signal the way the night
does (`Tally`), and prints per signal what it saw and the strategy a night would use on
that evidence. A night still measures for itself; the probe changes nothing.

Politeness: robots.txt is read first and obeyed (a disallowed page is reported, not
fetched), every request carries the crawler's User-Agent, and requests are spaced by
robots.txt's Crawl-delay (at least one second on a remote site). Plain urllib, one page at
a time: a few dozen pages need no Scrapy reactor.
"""

from __future__ import annotations

import hashlib
import re
import time
import unicodedata
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from typing import TextIO

from parsel import Selector
from protego import Protego

from core.http import USER_AGENT, backoff_delay
from scrapers import pages
from scrapers.signals import STRATEGIES, SignalBook, Tally

DIRECTORY_PAGES = 2
COLLECTIONS = 16
GAMES = 3
RETRIES = 3


class ProbeError(Exception):
    """The site could not be probed at all (unreachable, robots.txt forbids the directory)."""


@dataclass
class Answer:
    """One fetched page: status, headers, body."""

    url: str
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def selector(self) -> Selector:
        return Selector(text=self.body.decode("utf-8", errors="replace"))


@dataclass
class Probe:
    """A polite fetcher over one site, and what it has seen so far."""

    base_url: str
    delay: float
    robots: Protego | None = None
    fetched: int = 0
    refused: list[str] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=lambda: {name: Tally() for name in STRATEGIES})
    notes: dict[str, list[str]] = field(default_factory=dict)
    refused_pages: list[str] = field(default_factory=list)  # pages the spiders' parsers reject
    one_page_pagination: bool | None = None  # report only: the completeness rule is scrapers/pages/complete.py
    _last: float = 0.0

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer | None:
        """GET a path of the site (None when robots.txt disallows it); 4xx/5xx are answers too.

        429 and 5xx are retried (RETRIES times) after the crawler's backoff, Retry-After honoured.
        """
        url = path if "://" in path else f"{self.base_url}{path}"
        if self.robots is not None and not self.robots.can_fetch(url, USER_AGENT):
            self.refused.append(url)
            return None
        for attempt in range(RETRIES + 1):
            answer = self._fetch(url, headers)
            if answer.status != 429 and answer.status < 500 or attempt == RETRIES:
                return answer
            time.sleep(backoff_delay(attempt, base=0.2 if self.delay == 0 else 2.0, cap=30.0,
                                     retry_after=answer.headers.get("Retry-After")))
        return None

    def _fetch(self, url: str, headers: dict[str, str] | None) -> Answer:
        wait = self._last + self.delay - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = Answer(url, response.status, dict(response.headers.items()), response.read())
        except urllib.error.HTTPError as exc:
            answer = Answer(url, exc.code, dict(exc.headers.items()), exc.read() if exc.fp else b"")
        except (urllib.error.URLError, OSError) as exc:
            raise ProbeError(f"cannot reach {self.base_url}: {getattr(exc, 'reason', exc)}") from exc
        finally:
            self._last = time.monotonic()
        self.fetched += 1
        return answer

    def note(self, signal: str, what: str, text: str | None = None) -> None:
        setattr(self.tallies[signal], what, getattr(self.tallies[signal], what) + 1)
        if text and len(self.notes.setdefault(signal, [])) < 2 and what in ("contradict", "missing"):
            self.notes[signal].append(text)


def run_probe(base_url: str, *, out: TextIO, local: bool) -> int:
    """Probe `base_url` and print one line per signal; returns the pages fetched."""
    started = time.monotonic()
    probe = Probe(base_url, delay=0.0 if local else 1.0)
    robots = probe.get("/robots.txt")
    if robots is not None and robots.status == 200:
        probe.robots = Protego.parse(robots.body.decode("utf-8", errors="replace"))
        asked = probe.robots.crawl_delay(USER_AGENT)
        probe.delay = max(probe.delay, float(asked or 0))
    rows = _directory(probe)
    _collections(probe, rows)
    _games(probe)
    cafe_total = _cafe(probe)
    seconds = time.monotonic() - started
    print(f"probe of {base_url}: {probe.fetched} pages in {seconds:.1f}s, robots.txt obeyed "
          f"({len(probe.refused)} disallowed), {probe.delay:g}s between requests", file=out)
    for name, tally in probe.tallies.items():
        print(f"  {name:<18} {_seen(tally)} → the night uses {_strategy(probe, name)}"
              + "".join(f"; {n}" for n in probe.notes.get(name, [])), file=out)
    shown = {True: "yes", False: "no (the completeness rule must not require it)",
             None: "not seen"}[probe.one_page_pagination]
    print(f"  {'one-page listings':<18} show a pagination block: {shown}", file=out)
    print(f"  {'cafe listing':<18} " + ("states its total (N個)" if cafe_total else "no stated total seen"), file=out)
    if probe.refused_pages:
        print(f"  {'parsers refused':<18} {len(probe.refused_pages)} page(s), e.g. {probe.refused_pages[0]}", file=out)
    return probe.fetched


def _seen(t: Tally) -> str:
    return f"{t.state} (shown {t.seen}, missing {t.missing}, agree {t.agree}, contradict {t.contradict})"


def _strategy(probe: Probe, name: str) -> str:
    """The strategy a night would use if its own measurement matched the probe's: the
    night's own rule (`SignalBook.strategy`), the probe's verdicts as what it remembers."""
    verdicts = {signal: tally.state for signal, tally in probe.tallies.items()}
    return SignalBook(verdicts, incremental=True).strategy(name)


def _directory(probe: Probe) -> dict[str, pages.DirectorySignal]:
    """The directory's first pages: each row's count, update time and marker."""
    rows: dict[str, pages.DirectorySignal] = {}
    for n in range(1, DIRECTORY_PAGES + 1):
        answer = probe.get(f"/friends?page={n}" if n > 1 else "/friends")
        if answer is None:
            raise ProbeError(f"robots.txt of {probe.base_url} disallows the member directory (/friends)")
        if answer.status != 200:
            if n == 1:
                raise ProbeError(f"{answer.url} answered HTTP {answer.status}: not the member directory")
            break
        for uid, sig in pages.directory_signals(answer.selector, answer.url).items():
            rows[uid] = sig
            if sig.private:
                probe.note("private_marker", "seen")
                continue
            probe.note("directory_counts", "seen" if sig.count is not None else "missing", f"member {uid}: no count")
            if sig.count != 0:
                probe.note("directory_updates", "seen" if sig.updated_at else "missing",
                           f"member {uid}: no data-updated-at")
        if pages.next_page_url(answer.selector, answer.url) is None:
            break
    if not rows:
        raise ProbeError(f"{probe.base_url}/friends shows no member rows (.friends-list-item)")
    return rows


def _collections(probe: Probe, rows: dict[str, pages.DirectorySignal]) -> None:
    """Page 1 of some collections (every 非公開 row first): the marker, order, totals, the row's word."""
    marked = [uid for uid, sig in rows.items() if sig.private][:3]
    public = [uid for uid, sig in rows.items() if not sig.private and (sig.count or 0) > 0]
    step = max(1, len(public) // max(1, COLLECTIONS - len(marked)))
    for uid in marked + public[::step][: COLLECTIONS - len(marked)]:
        sig = rows[uid]
        answer = probe.get(f"/friends/{uid}/boardgames")
        if answer is None or answer.status != 200:
            continue
        selector = answer.selector
        login = pages.is_login_page(selector)
        if login or sig.private:
            probe.note("private_marker", "agree" if login == sig.private else "contradict",
                       f"{answer.url}: {'login page, row unmarked' if login else 'public page, row said 非公開'}")
        if login:
            continue
        last_page = pages.next_page_url(selector, answer.url) is None
        if last_page and not pages.is_empty_listing(selector) and probe.one_page_pagination is not True:
            probe.one_page_pagination = bool(selector.css(".pagination, a[rel~=prev]"))
        try:
            cards = pages.collection_items(selector, answer.url)
        except pages.PageParseError as exc:
            probe.refused_pages.append(f"{answer.url}: {exc}")
            continue
        stated = pages.collection_total(selector)
        probe.note("listing_totals", "seen" if stated is not None else "missing", f"{answer.url}: no 全N個")
        if stated is not None and sig.count is not None:
            probe.note("directory_counts", "agree" if stated == sig.count else "contradict",
                       f"member {uid}: directory {sig.count}, page says 全{stated}個")
        if stated is not None and last_page:
            probe.note("listing_totals", "agree" if stated == len(cards) else "contradict",
                       f"{answer.url}: 全{stated}個 but {len(cards)} cards")
        dates = [c.updated_at for c in cards]
        if any(d is None for d in dates):
            probe.note("sort_order", "missing", f"{answer.url}: a card without data-updated-at")
            continue
        times = [datetime.fromisoformat(d) for d in dates if d]
        if len(set(times)) > 1:
            ordered = all(a >= b for a, b in zip(times, times[1:]))
            probe.note("sort_order", "agree" if ordered else "contradict", f"{answer.url}: not newest first")
        if times and sig.updated_at:
            same = max(times) == datetime.fromisoformat(sig.updated_at)
            probe.note("directory_updates", "agree" if same else "contradict",
                       f"member {uid}: row {sig.updated_at}, newest card {max(times).isoformat()}")


def _games(probe: Probe) -> None:
    """A few game pages twice, the second time with the validators the first gave."""
    catalogue = probe.get("/games")
    if catalogue is None or catalogue.status != 200:
        return
    for url in pages.game_links(catalogue.selector, catalogue.url)[:GAMES]:
        first = probe.get(url)
        if first is None or first.status != 200:
            continue
        etag, modified = first.headers.get("ETag"), first.headers.get("Last-Modified")
        probe.note("validators", "seen" if etag or modified else "missing", f"{url}: no ETag or Last-Modified")
        conditional = {k: v for k, v in (("If-None-Match", etag), ("If-Modified-Since", modified)) if v}
        if not conditional:
            continue
        second = probe.get(url, conditional)
        if second is None:
            continue
        if second.status == 304:
            probe.note("validators", "agree")
        elif second.status == 200:
            same = hashlib.sha256(second.body).digest() == hashlib.sha256(first.body).digest()
            kept = second.headers.get("ETag") == etag if etag else second.headers.get("Last-Modified") == modified
            # answered in full: fine if the page changed, a contradiction if the same validator came back
            probe.note("validators", "contradict" if kept and not same else "seen",
                       f"{url}: the same validator came with another body")


def _cafe(probe: Probe) -> bool:
    """The first cafe's games listing: does it state its total (N個)?"""
    index = probe.get("/spaces")
    if index is None or index.status != 200:
        return False
    for url in pages.space_links(index.selector, index.url)[:1]:
        slug = pages.space_slug(url)
        listing = probe.get(f"/spaces/{slug}/games") if slug else None
        if listing is not None and listing.status == 200:
            text = unicodedata.normalize("NFKC", listing.body.decode("utf-8", errors="replace"))
            return re.search(r"\d[\d,]*\s*個", text) is not None
    return False
