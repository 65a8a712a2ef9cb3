"""`ops.signals`: a stop signal raises `Interrupted` where the command waits, and not inside a
block that holds it off (`held_off`), such as the polls of a child's wait lock.

Real signals sent to this process (the test runs in the main thread, where Python runs
handlers); no child process (a child's wait lock: tests/e2e/test_signals.py).
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from ops.signals import Interrupted, held_off, signals_raise


def test_a_signal_raises_interrupted_with_the_shells_exit_code() -> None:
    with signals_raise() as received, pytest.raises(Interrupted) as caught:
        os.kill(os.getpid(), signal.SIGTERM)
        _handled(received)  # raises from within, once the handler runs
    assert caught.value.exit_code == 143 and received == [signal.SIGTERM]


def _handled(received: list[int]) -> None:
    """Until the handler has run (Python runs it in the main thread at its next check; another
    thread of this process, execnet's under xdist, may be the one the kernel gave it to)."""
    deadline = time.monotonic() + 5
    while not received and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_signal_held_off_raises_as_the_block_ends_and_not_within() -> None:
    got_to_the_end = False
    with signals_raise() as received, pytest.raises(Interrupted) as caught:
        with held_off():
            os.kill(os.getpid(), signal.SIGTERM)
            _handled(received)
            assert received == [signal.SIGTERM]  # handled, not raised
            got_to_the_end = True
    assert got_to_the_end and caught.value.signum == signal.SIGTERM


def test_nested_blocks_raise_at_the_outermost_end() -> None:
    inner_done = False
    with signals_raise() as received, pytest.raises(Interrupted):
        with held_off():
            with held_off():
                os.kill(os.getpid(), signal.SIGINT)
                _handled(received)
            inner_done = True
    assert inner_done and received == [signal.SIGINT]


def test_a_second_signal_in_the_block_is_only_noted() -> None:
    with signals_raise() as received, pytest.raises(Interrupted) as caught:
        with held_off():
            os.kill(os.getpid(), signal.SIGTERM)
            _handled(received)
            os.kill(os.getpid(), signal.SIGINT)
            deadline = time.monotonic() + 5
            while len(received) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
    assert received == [signal.SIGTERM, signal.SIGINT] and caught.value.signum == signal.SIGTERM
