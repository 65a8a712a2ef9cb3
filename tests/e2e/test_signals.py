"""`ops.signals.held_off` with a real child: a stop signal held off while the child is polled
leaves the child's wait lock free, so the child can still be reaped.

Why: `bodoge serve` polls its children once a second; a SIGTERM raised inside `Popen.poll`
between its lock's acquire and its `try` left the lock held, and serve then hung for ever
reaping that child. The rest of this subject: tests/unit/test_signals.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from ops.signals import Interrupted, held_off, signals_raise


def test_polls_held_off_leave_the_childs_wait_lock_free() -> None:
    """The `bodoge serve` hang: however the signal falls, the child can be waited for after it."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with signals_raise(), pytest.raises(Interrupted):
            with held_off():
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):
                    assert child.poll() is None
        child.kill()
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
