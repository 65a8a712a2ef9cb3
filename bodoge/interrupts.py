"""Stop signals as an exception, so a command that owns a child process can stop it first.

Why: Python's default SIGTERM ends the process on the spot: a `bodoge dashboard` killed
that way left its Streamlit server serving the port, and a `bodoge crawl` left its
scratch directory behind. Inside `signals_raise()` the first SIGTERM or SIGINT raises
`Interrupted` where the command is waiting; further signals are noted but do not
interrupt the clean-up that follows. The exit code is the shell's: 128 + the signal.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT)


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
            raise Interrupted(signum)

    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield received
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
