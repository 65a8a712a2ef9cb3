"""Starting the dashboard as a server process, for `bodoge dashboard` and the browser tests.

Why a subprocess rather than Streamlit's in-process bootstrap: Streamlit owns the
process it runs in (signal handlers, event loop, its own config), so the CLI and the
tests start `python -m streamlit run` with the file to read in its environment
(BODOGE_DASHBOARD_DB, written by `core.settings.Settings.to_env` and read back by
`dashboards.ui.warehouse_path`), and wait on the health endpoint rather than guessing
with a sleep.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

from core.settings import Settings
from ops.readiness import answers, wait_until

APP = Path(__file__).resolve().parent / "app.py"
REPO_ROOT = APP.parents[1]


def command(port: int, *, headless: bool = True, address: str = "127.0.0.1") -> list[str]:
    """The `streamlit run` command line for the dashboard on `port`, in a process that stops
    when this one dies, even by SIGKILL (`dashboards.server`)."""
    return [
        sys.executable, "-m", "dashboards.server", "--parent-pid", str(os.getpid()), "--", "run", str(APP),
        "--server.port", str(port),
        "--server.address", address,
        "--server.headless", "true" if headless else "false",
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "minimal",  # no "Deploy" button for analysts
    ]


def launch(
    warehouse: Path,
    port: int,
    headless: bool = True,
    *,
    address: str = "127.0.0.1",
    log: IO[bytes] | IO[str] | None = None,
) -> subprocess.Popen:
    """Start the dashboard on `warehouse` (read-only) at http://address:port; returns the process.

    Listens on localhost by default (the pages show member data); pass address="0.0.0.0"
    to serve other machines. Output goes to `log` when given, else to this process's.
    The caller owns the process: terminate() it, or wait() for it.
    """
    env = {**os.environ, **Settings(dashboard_db=Path(warehouse)).to_env()}
    return subprocess.Popen(
        command(port, headless=headless, address=address),
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT if log is not None else None,
    )


def url_for(port: int, address: str = "127.0.0.1") -> str:
    """The dashboard's base URL for a port (0.0.0.0 is reached as localhost)."""
    host = "127.0.0.1" if address in ("0.0.0.0", "") else address
    return f"http://{host}:{port}"


def wait_until_ready(url: str, timeout: float = 30.0, *, process: subprocess.Popen | None = None) -> None:
    """Poll `<url>/_stcore/health` until it answers "ok" (`ops.readiness.wait_until`).

    Raises TimeoutError after `timeout` seconds, or RuntimeError at once if `process`
    (the server, when given) has exited — a port already in use, for instance.
    """
    health = url.rstrip("/") + "/_stcore/health"

    def exited() -> str | None:
        if process is not None and process.poll() is not None:
            return f"the dashboard exited with code {process.returncode} before it was ready"
        return None

    wait_until(lambda: answers(health, body=b"ok"), timeout=timeout, interval=0.2, exited=exited,
               gave_up=lambda: f"the dashboard did not answer at {health} within {timeout:.0f} s")
