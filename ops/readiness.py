"""Waiting until a server we started answers, and not a moment past its death.

Why one loop: `bodoge dashboard` waits for Streamlit's health endpoint and `bodoge serve`
for the Dagster web UI's code location; each used to hand-write the same loop (poll,
swallow the connection errors of a server still starting, give up at a deadline). Two
rules hold for both: a child that has exited fails the wait at once (a port already in
use is said now, not after the timeout), and nothing is guessed with a fixed sleep.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable


def wait_until(
    ready: Callable[[], bool],
    *,
    timeout: float,
    interval: float,
    gave_up: Callable[[], str],
    exited: Callable[[], str | None] = lambda: None,
) -> None:
    """Call `ready()` every `interval` seconds until it returns True.

    `ready` may raise OSError (a connection refused, reset or timed out while the server
    starts; urllib's errors are OSErrors) or ValueError (an answer not understood yet):
    both count as not ready. Raises RuntimeError with the line `exited()` returns as soon
    as it returns one (the server's process has ended), and TimeoutError with the line
    `gave_up()` returns once `timeout` seconds have passed.
    """
    deadline = time.monotonic() + timeout
    while True:
        dead = exited()
        if dead:
            raise RuntimeError(dead)
        try:
            if ready():
                return
        except (OSError, ValueError):
            pass
        if time.monotonic() >= deadline:
            raise TimeoutError(gave_up())
        time.sleep(interval)


def answers(url: str, *, body: bytes | None = None, timeout: float = 2.0) -> bool:
    """True when a GET of `url` answers 200 (with exactly `body`, stripped, when given).

    Raises OSError while nothing listens (see `wait_until`).
    """
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status == 200 and (body is None or response.read().strip() == body)
