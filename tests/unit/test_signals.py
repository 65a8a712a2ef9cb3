"""`ops.signals`: a stop signal raises `Interrupted` where the command waits, and not inside a
block that holds it off (`held_off`), such as the polls of a child's wait lock.

Real signals sent to this process (the test runs in the main thread, where Python runs
handlers); no child process (a child's wait lock: tests/e2e/test_signals.py).
"""

from __future__ import annotations

import os
import signal

import pytest

from ops.signals import Interrupted, held_off, signals_raise


def test_a_signal_raises_interrupted_with_the_shells_exit_code() -> None:
    with signals_raise() as received, pytest.raises(Interrupted) as caught:
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0)  # a bytecode boundary: the handler has run by the next line
    assert caught.value.exit_code == 143 and received == [signal.SIGTERM]


def test_a_signal_held_off_raises_as_the_block_ends_and_not_within() -> None:
    got_to_the_end = False
    with signals_raise() as received, pytest.raises(Interrupted):
        with held_off():
            os.kill(os.getpid(), signal.SIGTERM)
            assert signal.SIGTERM in signal.sigpending()  # waiting, not delivered
            got_to_the_end = True
    assert got_to_the_end and received == [signal.SIGTERM]
    assert signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # unblocked again
