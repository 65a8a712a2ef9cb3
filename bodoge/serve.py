"""`bodoge serve`: the Dagster daemon and web UI on the data directory's instance, in one command.

Why: the `nightly_at_3am_jst` schedule only fires while a Dagster daemon runs on the
instance that holds it (DATA_DIR/dagster_home). This command sets the same settings
`bodoge run` sets (data dir, warehouse, site, alert endpoint), starts one code server
(`dagster api grpc`, which loads `pipelines.definitions` and launches the runs), then
`dagster-daemon` and `dagster-webserver` on a workspace naming that server, each child in a
process group of its own, and stops them all — with whatever they started (a running
night) — on Ctrl-C or SIGTERM, exiting 130 or 143. If any child dies, the others are
stopped too and the command fails in one line, so a service manager (deploy/bodoge.service)
restarts them. One code server for both, as in deploy/docker-compose.yml: left to
themselves the daemon and the web UI each start and load their own (~4 s of CPU and
~240 MB each).
Each child runs under `ops.tether`, so a `bodoge serve` killed with SIGKILL (no handler
runs) still takes its whole tree with it.

Runs the daemon launches take the nightly lock themselves (pipelines/run_guard.py), so
they never overlap a `bodoge run` on the same data directory.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from core.settings import Paths, Settings
from bodoge.jobs import night_environment
from ops.readiness import wait_until

REPO_ROOT = Path(__file__).resolve().parents[1]
LOCATION = "pipelines.definitions"
CODE_SERVER_SECONDS = 300.0
"""How long the code server may take to load the definitions before serve gives up."""


def code_socket(run_dir: Path) -> Path:
    """The Unix socket the one code server listens on, in serve's run folder."""
    return run_dir / "code.sock"


def commands(*, host: str, port: int, run_dir: Path) -> dict[str, list[str]]:
    """The three processes: the code server (on a socket in `run_dir`), the daemon (schedules,
    sensors, run queue) and the web UI, both on `run_dir`'s workspace; each tethered to this
    process (`ops.tether`: they and all they start die with it)."""
    tether = [sys.executable, "-m", "ops.tether", "--parent-pid", str(os.getpid()), "--"]
    workspace = ["-w", str(run_dir / "workspace.yaml")]
    return {
        "code server": [*tether, sys.executable, "-m", "dagster", "api", "grpc", "--socket", str(code_socket(run_dir)),
                        "-m", LOCATION, "-d", str(REPO_ROOT), "--location-name", LOCATION, "--lazy-load-user-code"],
        "daemon": [*tether, sys.executable, "-m", "dagster._daemon", "run", *workspace],
        "webserver": [*tether, sys.executable, "-m", "dagster_webserver", *workspace, "-h", host, "-p", str(port)],
    }


def write_workspace(run_dir: Path) -> Path:
    """The workspace the daemon and the web UI share: the one code server on its socket."""
    path = run_dir / "workspace.yaml"
    path.write_text(json.dumps({"load_from": [{"grpc_server": {"socket": str(code_socket(run_dir)),
                                                               "location_name": LOCATION}}]}), encoding="utf-8")
    return path  # JSON is YAML: no yaml writer needed


def prepare(settings: Settings) -> tuple[Path, dict[str, str]]:
    """The log path, and the variables both children (and the runs they launch) read on top
    of this process's environment: every setting (`bodoge.jobs.night_environment`), which
    came from serve's flags, then its environment (a unit file's BODOGE_PUSH_URL etc.)."""
    env = night_environment(settings)
    storage = create_storage(Path(env["DAGSTER_HOME"]))
    logs = settings.paths.logs
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"serve-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}.log"
    line = f"serve: Dagster instance {storage}"  # which storage, never its password (pipelines.instance)
    print(line, file=sys.stderr, flush=True)
    with open(log_path, "a", encoding="utf-8") as log:
        log.write(line + "\n")
    return log_path, env


def create_storage(home: Path) -> str:
    """Create the instance's storage (runs, events, schedules; SQLite or PostgreSQL) before the
    children start; returns which storage it is, without a password.

    Why: on a fresh data directory the daemon and the web UI's code server would create it
    at the same moment, both stamping its migration table; the table then has two heads
    ("alembic_version has more than one head present"), every later load of the code
    location fails, and the nightly job is never found (CI saw it). Opening the instance
    once here creates and stamps each database by one process; the children find them made.
    """
    import dagster as dg

    from pipelines.instance import describe

    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.get_runs(limit=1)
        return describe(instance)


def start(paths: Paths, *, host: str, port: int, log: IO[bytes], settings: dict[str, str], run_dir: Path,
          processes: dict[str, subprocess.Popen]) -> None:
    """Start the code server, wait until it serves, then the daemon and the web UI, each in its
    own session (so each can be stopped whole), into `processes` as each starts: on a failure
    on the way the caller stops what has started."""
    env = {**os.environ, **settings, "PYTHONUNBUFFERED": "1"}
    write_workspace(run_dir)
    cmds = commands(host=host, port=port, run_dir=run_dir)

    def launch(name: str) -> None:
        processes[name] = subprocess.Popen(cmds[name], cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, start_new_session=True)

    launch("code server")
    wait_until(lambda: serving(code_socket(run_dir)), timeout=CODE_SERVER_SECONDS, interval=0.2,
               exited=lambda: died(processes),
               gave_up=lambda: f"the code server did not serve within {CODE_SERVER_SECONDS:.0f} s")
    launch("daemon")
    launch("webserver")


def serving(path: Path) -> bool:
    """Whether a server accepts connections on the Unix socket at `path`."""
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def wait_until_ready(url: str, processes: dict[str, subprocess.Popen], timeout: float = 300.0) -> None:
    """Until the web UI answers on `url` with the code location loaded; RuntimeError at once if
    a child exits first.

    Why the location too: the web UI answers `/server_info` before its code server has loaded
    `pipelines.definitions`, and a load that fails (a code server slow to start on a busy
    machine) stays failed until someone reloads it, so a night submitted then finds no job.
    A failed load is reloaded here, every RELOAD_SECONDS, until it loads or time runs out.
    """
    last_error, reloaded = "the web UI did not answer", 0.0

    def ready() -> bool:
        nonlocal last_error, reloaded
        state, message = location_state(url)
        if state == "error":
            last_error = f"the code location failed to load: {message}"
            if time.monotonic() - reloaded > RELOAD_SECONDS:
                _graphql(url, RELOAD, {"name": LOCATION})
                reloaded = time.monotonic()
        elif state != "loaded":
            last_error = "the code location is still loading"
        return state == "loaded"

    wait_until(ready, timeout=timeout, interval=1.0, exited=lambda: died(processes),
               gave_up=lambda: f"the Dagster web UI at {url} was not ready within {timeout:.0f} s: {last_error}")


RELOAD_SECONDS = 20.0
WORKSPACE = """{ workspaceOrError { __typename ... on Workspace { locationEntries {
  name loadStatus locationOrLoadError { __typename ... on PythonError { message } } } } } }"""
RELOAD = """mutation ($name: String!) { reloadRepositoryLocation(repositoryLocationName: $name) { __typename } }"""


def location_state(url: str) -> tuple[str, str]:
    """("loaded" | "loading" | "error", the error's first line) of the nightly's code location."""
    data = _graphql(url, WORKSPACE, {})
    entries = (data.get("workspaceOrError") or {}).get("locationEntries") or []
    for entry in entries:
        if entry.get("name") != LOCATION:
            continue
        loaded = entry.get("locationOrLoadError") or {}
        if loaded.get("__typename") == "PythonError":
            lines = (loaded.get("message") or "").strip().splitlines()
            return "error", lines[0] if lines else "(no message)"
        if entry.get("loadStatus") == "LOADED" and loaded.get("__typename") == "RepositoryLocation":
            return "loaded", ""
    return "loading", ""


def _graphql(url: str, query: str, variables: dict) -> dict:
    """One GraphQL call to the web UI; its `data` (ValueError when the answer has none)."""
    body = json.dumps({"query": query, "variables": variables}).encode()
    request = urllib.request.Request(f"{url}/graphql", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        data = json.loads(response.read()).get("data")
    if not isinstance(data, dict):
        raise ValueError("no data in the GraphQL answer")
    return data


def died(processes: dict[str, subprocess.Popen]) -> str | None:
    """A line naming the first child that has exited, or None while all run."""
    for name, proc in processes.items():
        if proc.poll() is not None:
            return f"the Dagster {name} exited with code {proc.returncode}"
    return None
