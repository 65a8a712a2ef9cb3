"""dashboards.launch without a browser: the command line, and waiting that fails clearly.

Why: `bodoge dashboard` relies on these two functions; a server that dies at start (a
port in use) must surface at once as an error, not as a wait that ends in a timeout.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from dashboards.launch import APP, command, url_for, wait_until_ready


def test_command_runs_the_app_headless_on_the_port() -> None:
    cmd = command(8765)
    assert cmd[:7] == [sys.executable, "-m", "dashboards.server", "--parent-pid", str(os.getpid()), "--", "run"]
    assert cmd[7] == str(APP) and APP.is_file()
    flags = dict(zip(cmd[8::2], cmd[9::2]))
    assert flags["--server.port"] == "8765"
    assert flags["--server.headless"] == "true"
    assert flags["--browser.gatherUsageStats"] == "false"
    assert flags["--server.address"] == "127.0.0.1"
    assert dict(zip(command(1, headless=False)[8::2], command(1, headless=False)[9::2]))["--server.headless"] == "false"


def test_url_for_reaches_a_wildcard_address_locally() -> None:
    assert url_for(8501) == "http://127.0.0.1:8501"
    assert url_for(8501, "0.0.0.0") == "http://127.0.0.1:8501"


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
