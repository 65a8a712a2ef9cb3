"""`bodoge serve`: the Dagster daemon and web UI on the data directory's instance, in one command.

Why: the `nightly_at_3am_jst` schedule only fires while a Dagster daemon runs on the
instance that holds it (DATA_DIR/dagster_home). This command sets the same settings
`bodoge run` sets (data dir, warehouse, site, alert endpoint), starts `dagster-daemon` and
`dagster-webserver` as child processes, each in a process group of its own, and stops
both — with whatever they started (code servers, a running night) — on Ctrl-C or
SIGTERM, exiting 130 or 143. If either child dies, the other is stopped too and the
command fails in one line, so a service manager (deploy/bodoge.service) restarts both.

Runs the daemon launches take the nightly lock themselves (pipelines/run_guard.py), so
they never overlap a `bodoge run` on the same data directory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from core.config import Paths
from bodoge.jobs import night_environment

REPO_ROOT = Path(__file__).resolve().parents[1]
CODE = ["-m", "pipelines.definitions", "-d", str(REPO_ROOT)]
STOP_SECONDS = 30.0


def commands(*, host: str, port: int) -> dict[str, list[str]]:
    """The two processes: the daemon (schedules, sensors, run queue) and the web UI."""
    return {
        "daemon": [sys.executable, "-m", "dagster._daemon", "run", *CODE],
        "webserver": [sys.executable, "-m", "dagster_webserver", *CODE, "-h", host, "-p", str(port)],
    }


def prepare(paths: Paths, *, base_url: str | None, alert_url: str | None) -> tuple[Path, dict[str, str]]:
    """The log path, and the variables both children (and the runs they launch) read on top
    of this process's environment (which may carry BODOGE_PUSH_URL etc. from a unit file)."""
    env = night_environment(paths, base_url)
    if alert_url:
        env["BODOGE_ALERT_URL"] = alert_url
    logs = paths.data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    return logs / f"serve-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}.log", env


def start(
    paths: Paths, *, host: str, port: int, log: IO[bytes], settings: dict[str, str]
) -> dict[str, subprocess.Popen]:
    """Start the daemon and the web UI, each in its own session (so each can be stopped whole)."""
    env = {**os.environ, **settings, "PYTHONUNBUFFERED": "1"}
    return {
        name: subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True)
        for name, cmd in commands(host=host, port=port).items()
    }


def wait_until_ready(url: str, processes: dict[str, subprocess.Popen], timeout: float = 180.0) -> None:
    """Until the web UI answers on `url`; RuntimeError at once if a child exits first."""
    deadline = time.monotonic() + timeout
    while True:
        dead = died(processes)
        if dead:
            raise RuntimeError(dead)
        try:
            with urllib.request.urlopen(f"{url}/server_info", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"the Dagster web UI did not answer at {url} within {timeout:.0f} s")
        time.sleep(0.5)


def died(processes: dict[str, subprocess.Popen]) -> str | None:
    """A line naming the first child that has exited, or None while both run."""
    for name, proc in processes.items():
        if proc.poll() is not None:
            return f"the Dagster {name} exited with code {proc.returncode}"
    return None


def stop_all(processes: dict[str, subprocess.Popen], *, signum: int = signal.SIGTERM) -> None:
    """Signal each child's whole process group, wait, then SIGKILL what is left: no orphans."""
    for proc in processes.values():
        _signal_group(proc, signum)
    deadline = time.monotonic() + STOP_SECONDS
    for proc in processes.values():
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for proc in processes.values():
        _signal_group(proc, signal.SIGKILL)  # the group may outlive its leader (code servers, a run)
        proc.wait()


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
