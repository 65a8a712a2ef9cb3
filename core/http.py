"""HTTP helpers shared by the crawler and the export push: who we are, how we back off.

Why here: the crawler's retry middleware and the bundle push must identify themselves
the same way and wait the same way between retries (exponential backoff honouring
Retry-After, capped), and the warehouse must not import the crawler to get either.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

USER_AGENT = "bodoge-pipeline/0.1 (+https://github.com/bodoge-pipeline; crawler of public board game pages)"


def backoff_delay(attempt: int, *, base: float, cap: float, retry_after: str | None = None) -> float:
    """Seconds to wait before retry number `attempt` (0-based): base·2^attempt, capped.

    A server's Retry-After (seconds or an HTTP date) wins when it asks for longer,
    still within the cap, so one bad header cannot stall the crawl for hours.
    """
    delay = base * (2**attempt)
    if retry_after:
        asked = _retry_after_seconds(retry_after)
        if asked is not None:
            delay = max(delay, asked)
    return max(0.0, min(delay, cap))


def _retry_after_seconds(value: str) -> float | None:
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class PostRefused(Exception):
    """The endpoint answered a final 4xx (anything but 429): retrying cannot help."""

    def __init__(self, url: str, status: int) -> None:
        super().__init__(f"{url} refused the request: HTTP {status}")
        self.status = status


class PostGaveUp(Exception):
    """Every attempt ended in 429/5xx or a connection error; `last` says how the last one did."""

    def __init__(self, url: str, attempts: int, last: str) -> None:
        super().__init__(f"{url} did not answer successfully after {attempts} attempts (last: {last})")
        self.attempts, self.last = attempts, last


@dataclass(frozen=True, slots=True)
class PostAnswer:
    """A successful POST: its HTTP status and how many attempts it took."""

    status: int
    attempts: int


@dataclass(frozen=True, slots=True)
class Retry:
    """How hard to try: attempts, backoff base and cap (seconds), each attempt's timeout, and
    `deadline`: seconds after the first attempt past which none starts (None: attempts alone bound it).

    Why a deadline: the export's delivery runs at the end of an unattended night and must
    end in bounded time whatever the endpoint does; what it could not deliver waits for the
    next night (`warehouse.delivery`).
    """

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    timeout: float = 30.0
    deadline: float | None = None


def post_with_retry(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    retry: Retry = Retry(),
    sleep: Callable[[float], None] = time.sleep,
) -> PostAnswer:
    """POST `body` to `url` (with our User-Agent), retrying 429, 5xx and connection errors.

    Raises PostRefused on any other 4xx (at once) and PostGaveUp after the last attempt, or
    when the next one could not start before `retry.deadline`. `sleep` is injectable so
    tests can check the backoff schedule without waiting.
    """
    headers = {"User-Agent": USER_AGENT, **headers}
    last = ""
    started = time.monotonic()
    for attempt in range(retry.attempts):
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        retry_after = None
        timeout = retry.timeout
        if retry.deadline is not None:
            timeout = max(1.0, min(timeout, retry.deadline - (time.monotonic() - started)))
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return PostAnswer(status=response.status, attempts=attempt + 1)
        except urllib.error.HTTPError as exc:
            if exc.code != 429 and exc.code < 500:
                raise PostRefused(url, exc.code) from exc
            last, retry_after = f"HTTP {exc.code}", exc.headers.get("Retry-After")
        except (urllib.error.URLError, OSError) as exc:
            last = str(getattr(exc, "reason", exc))
        if attempt + 1 < retry.attempts:
            delay = backoff_delay(attempt, base=retry.base_delay, cap=retry.max_delay, retry_after=retry_after)
            if retry.deadline is not None and time.monotonic() - started + delay >= retry.deadline:
                raise PostGaveUp(url, attempt + 1, f"{last}; gave up at the {retry.deadline:g} s deadline")
            sleep(delay)
    raise PostGaveUp(url, retry.attempts, last)
