"""HTTP helpers shared by the crawler and the export push: who we are, how we back off.

Why here: the crawler's retry middleware and the bundle push must identify themselves
the same way and wait the same way between retries (exponential backoff honouring
Retry-After, capped), and the warehouse must not import the crawler to get either.

The POST's retry policy is urllib3's `Retry` (which statuses and errors to retry, how many
times, the backoff, Retry-After parsed and capped by `retry_after_max`). What urllib3
cannot express stays here, in `post_with_retry`'s short loop: a total deadline past which
no attempt starts, each attempt's timeout shortened to the time left, and a `sleep` a
test can replace. Scrapy's retry has no backoff, so the crawler asks `backoff_delay`.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import urllib3
from urllib3.exceptions import HTTPError, InvalidHeader, MaxRetryError

USER_AGENT = "bodoge-pipeline/0.1 (+https://github.com/bodoge-pipeline; crawler of public board game pages)"
#: Answers worth another try: too many requests, and every server error.
RETRY_STATUSES = frozenset({429, *range(500, 600)})


def backoff_delay(attempt: int, *, base: float, cap: float, retry_after: str | None = None) -> float:
    """Seconds to wait before retry number `attempt` (0-based): base·2^attempt, capped.

    A server's Retry-After (seconds or an HTTP date) wins when it asks for longer,
    still within the cap, so one bad header cannot stall the crawl for hours.
    """
    delay = base * (2**attempt)
    if retry_after:
        try:
            # urllib3 annotates retry_after_max as int but only compares with it: a float cap is kept exact
            delay = max(delay, urllib3.Retry(retry_after_max=cap).parse_retry_after(retry_after))  # type: ignore[arg-type]
        except InvalidHeader:
            pass  # a header we cannot read asks for nothing
    return max(0.0, min(delay, cap))


class _Backoff(urllib3.Retry):
    """urllib3's Retry with our first step: base·2^n before retry n (0-based), where urllib3
    retries the first failure at once. Every other rule is urllib3's."""

    def get_backoff_time(self) -> float:
        failures = len(self.history)
        if failures == 0:
            return 0.0
        return float(max(0.0, min(self.backoff_max, self.backoff_factor * 2 ** (failures - 1))))


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
    next night (`warehouse.release.delivery`).
    """

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    timeout: float = 30.0
    deadline: float | None = None

    def policy(self) -> urllib3.Retry:
        """These settings as urllib3's Retry: `attempts - 1` retries of a POST (any method),
        on RETRY_STATUSES and connection or read errors, backoff and Retry-After both capped
        at `max_delay`."""
        return _Backoff(total=self.attempts - 1, allowed_methods=None, status_forcelist=RETRY_STATUSES,
                        backoff_factor=self.base_delay, backoff_max=self.max_delay,
                        retry_after_max=self.max_delay,  # type: ignore[arg-type]  # a float, as above
                        raise_on_status=False, redirect=False)


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
    tests can check the backoff schedule without waiting. Before each retry it waits the
    backoff, or what the server's Retry-After asks when that is longer (both capped).
    """
    headers = {"User-Agent": USER_AGENT, **headers}
    policy = retry.policy()
    started = time.monotonic()
    while True:
        attempt = len(policy.history) + 1
        timeout = retry.timeout
        if retry.deadline is not None:
            timeout = max(1.0, min(timeout, retry.deadline - (time.monotonic() - started)))
        response, error = None, None
        try:
            response = _pool(url).request("POST", url, body=body, headers=headers, timeout=timeout, retries=False)
        except (HTTPError, OSError) as exc:  # refused, reset, timed out: urllib3 wraps most
            error, last = exc, _reason(exc)
        else:
            if response.status < 400:
                return PostAnswer(status=response.status, attempts=attempt)
            if not policy.is_retry("POST", response.status):
                raise PostRefused(url, response.status)
            last = f"HTTP {response.status}"
        try:
            policy = policy.increment("POST", url, response=response, error=error)
        except MaxRetryError:
            raise PostGaveUp(url, attempt, last) from None
        delay = policy.get_backoff_time()
        if response is not None:
            try:
                delay = max(delay, policy.get_retry_after(response) or 0.0)
            except InvalidHeader:
                pass  # a header we cannot read asks for nothing
        if retry.deadline is not None and time.monotonic() - started + delay >= retry.deadline:
            raise PostGaveUp(url, attempt, f"{last}; gave up at the {retry.deadline:g} s deadline")
        sleep(delay)


def _pool(url: str) -> urllib3.PoolManager:
    """A connection pool for `url`, through the proxy the environment names for it (as
    urllib.request would: `https_proxy`, `http_proxy`, `no_proxy`)."""
    scheme, _, rest = url.partition("://")
    proxy = urllib.request.getproxies().get(scheme)
    if proxy and not urllib.request.proxy_bypass(rest.split("/", 1)[0]):
        return urllib3.ProxyManager(proxy)
    return urllib3.PoolManager()


def _reason(exc: Exception) -> str:
    """What went wrong on the wire, as the socket said it (`[Errno 111] Connection refused`,
    `timed out`), without urllib3's wrapping of the connection object."""
    cause = exc.__cause__ or exc.__context__
    return str(cause) if isinstance(cause, OSError) and str(cause) else str(exc)
