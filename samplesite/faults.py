"""Which URLs of a sample site misbehave, and how.

Why a module of its own: the faults are part of the contract between the sample site
and the crawler's tests. Permanent faults change the ground truth (the page is listed in
truth `quarantine` and missing from `games`/`posts`); transient faults must not (a
crawler that retries recovers them). Tests and benchmarks find the faulty URLs here
instead of guessing.

Rules (only when the site was generated with faults=True):
- permanent: game pages with `Game.malformed` (HTTP 200, no title/spec in games-show);
  post pages with `Post.http500` (HTTP 500 every time).
- transient: a URL target (path + "?" + query, exactly as requested) whose
  sha256("<seed>|<target>") falls in the first 2% answers 503 on its first request to a
  server instance, the next 1% answers 429 with `Retry-After: 1`; both answer normally
  afterwards. /robots.txt never faults, and neither does a URL whose page is not a
  normal 200 (404s, the HTTP 500 posts): the server draws the fault after rendering.
"""

from __future__ import annotations

import hashlib
import threading

from samplesite.model import Site

TRANSIENT_503_SHARE = 0.02
TRANSIENT_429_SHARE = 0.01
MALFORMED_REASON = "malformed game page: games-show lacks title and spec"
HTTP500_REASON = "http 500"


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
    out = [(g.url, MALFORMED_REASON) for g in site.games if g.malformed]
    out += [(p.url, HTTP500_REASON) for p in site.posts if p.http500]
    return sorted(out)


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
