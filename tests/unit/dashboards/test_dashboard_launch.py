"""dashboards.launch without a browser: the command line, and waiting that fails clearly.

Why: `bodoge dashboard` relies on these two functions; a server that dies at start (a
port in use) must surface at once as an error, not as a wait that ends in a timeout.
"""

from __future__ import annotations

import os
import sys


from dashboards.launch import APP, command, url_for


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
