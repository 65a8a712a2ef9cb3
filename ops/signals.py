"""Stop signals (SIGTERM, Ctrl-C) for a command that owns a child process: it stops the child first.

Why: Python's default SIGTERM ends the process on the spot: a `bodoge dashboard` killed
that way left its Streamlit server serving the port, and a `bodoge crawl` left its
scratch directory behind. Two ways, by who does the stopping:

- `signals_raise()`: the first SIGTERM or SIGINT raises `Interrupted` where the command is
  waiting; it stops its child (`ops.children.stop`) and ends with the shell's exit code,
  128 + the signal. Further signals are noted but do not interrupt that clean-up.
- `forwarded_signals()`: a supervisor whose child stops its own work cleanly (`bodoge
  run`'s night worker) passes the signal on at once and keeps reading the child's output
  until it ends; SIGKILL follows after a grace period.

`held_off()` keeps `signals_raise`'s exception out of a block that calls into library code
holding a lock (polling children): the signal raises as the block ends.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT)

# `held_off` blocks open in the main thread (where Python runs signal handlers), and the stop
# signal one of them is holding back.
_hold: dict[str, int] = {"depth": 0}


class Interrupted(BaseException):
    """A stop signal arrived. A BaseException, like KeyboardInterrupt: `except Exception` lets it pass."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(f"stopped by {self.name}")

    @property
    def name(self) -> str:
        """SIGTERM, SIGINT, ..."""
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """128 + the signal number: 143 for SIGTERM, 130 for SIGINT."""
        return 128 + self.signum


@contextmanager
def signals_raise(signums: tuple[signal.Signals, ...] = STOP_SIGNALS) -> Iterator[list[int]]:
    """Within the block, the first of `signums` raises Interrupted; later ones are only recorded.

    Yields the list of signals received. Outside the main thread (where Python cannot set
    handlers) it changes nothing. The previous handlers come back on exit.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        if len(received) == 1:
            if _hold["depth"]:
                _hold["pending"] = signum  # raised as the `held_off` block ends
                return
            raise Interrupted(signum)

    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield received
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


@contextmanager
def held_off() -> Iterator[None]:
    """Within the block, a stop signal that `signals_raise` would raise is only noted; it
    raises `Interrupted` as the block ends, so never inside library code the block calls.

    Why: `Popen.poll` takes the child's wait lock; an `Interrupted` raised by the handler
    between that lock's acquire and its `try` leaves the lock held, and every later `wait()`
    on that child blocks for ever. `bodoge serve`, SIGTERMed while it polled its children,
    hung so once (in `stop_groups`, reaping the child whose lock it was). Not a signal mask:
    a mask is per thread, and another thread of the process (execnet's, a server's) would
    take the signal and Python would still run the handler in the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _hold["depth"] += 1
    try:
        yield
    finally:
        _hold["depth"] -= 1
        pending = _hold.pop("pending", None)
        if pending is not None:
            if _hold["depth"]:
                _hold["pending"] = pending  # an outer block raises it
            else:
                raise Interrupted(pending)


class Forwarding:
    """The first stop signal a supervisor received, and the child (`proc`) to pass it on to.

    Before a child runs (waiting for the nightly lock, say) a signal raises
    KeyboardInterrupt where the supervisor waits; `signum` says which signal it was.
    """

    def __init__(self, grace: float) -> None:
        self.grace = grace
        self.signum: int | None = None
        self.proc: subprocess.Popen | None = None
        self.timer: threading.Timer | None = None

    def __call__(self, signum: int, _frame: Any) -> None:
        if self.signum is None:
            self.signum = signum
        proc = self.proc
        if proc is None or proc.poll() is not None:
            raise KeyboardInterrupt  # nothing running yet (e.g. waiting for the lock)
        proc.send_signal(signal.SIGTERM if signum == signal.SIGTERM else signal.SIGINT)
        if self.timer is None:
            self.timer = threading.Timer(self.grace, proc.kill)
            self.timer.daemon = True
            self.timer.start()


@contextmanager
def forwarded_signals(*, grace: float) -> Iterator[Forwarding]:
    """Within the block, SIGTERM and SIGINT go on to `forwarding.proc` once it is set (SIGKILL
    `grace` seconds later). Outside the main thread it changes nothing; the previous
    handlers come back on exit."""
    forwarding = Forwarding(grace)
    if threading.current_thread() is not threading.main_thread():
        yield forwarding
        return
    previous = {s: signal.signal(s, forwarding) for s in STOP_SIGNALS}
    try:
        yield forwarding
    finally:
        if forwarding.timer is not None:
            forwarding.timer.cancel()
        for s, handler in previous.items():
            signal.signal(s, handler)
