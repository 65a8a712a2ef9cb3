"""dashboards.launch without a browser: the command line, and waiting that fails clearly.

Here: the tests that start real processes; the rest of this subject:
tests/unit/dashboards/test_dashboard_launch.py.
"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from dashboards.launch import url_for, wait_until_ready


def test_wait_gives_up_after_the_timeout() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TimeoutError, match="_stcore/health"):
        wait_until_ready(url_for(port), timeout=0.5)


def test_wait_stops_at_once_when_the_server_died() -> None:
    dead = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    dead.wait()
    with pytest.raises(RuntimeError, match="code 3"):
        wait_until_ready("http://127.0.0.1:9", timeout=30, process=dead)
