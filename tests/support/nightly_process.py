"""`bodoge run` as a real process for crash tests: start it, watch its lines, signal it.

Why a helper: the crash tests kill real processes at real stages, so they need to see
the supervisor's progress lines as they come (a reader thread) and to find every
process a run left behind (by the data directory in its command line).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb

import pytest

from samplesite.generator import generate_site
from samplesite.server import SampleSiteServer

BODOGE = [sys.executable, "-m", "bodoge.cli"]


class NightlyProcess:
    """One `bodoge run` in its own session (so its whole process group can be killed)."""

    def __init__(self, data_dir: Path, base_url: str, *extra: str, env: dict | None = None) -> None:
        self.data_dir = data_dir
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.proc = subprocess.Popen(
            [*BODOGE, "run", "--base-url", base_url, "--data-dir", str(data_dir), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            text=True, encoding="utf-8", start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, predicate, timeout: float = 180.0) -> str:
        """Block until a line satisfies `predicate`; fail if the process ends first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                raise AssertionError("bodoge run ended before the line we waited for:\n" + "\n".join(self.lines))
            self.lines.append(line)
            if predicate(line):
                return line
        raise AssertionError("timed out waiting for a line:\n" + "\n".join(self.lines[-20:]))

    def finish(self, timeout: float = 300.0) -> tuple[int, list[str]]:
        """Wait for the exit; returns (code, every stderr line)."""
        code = self.proc.wait(timeout=timeout)
        while True:
            try:
                line = self._queue.get(timeout=5)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
        return code, self.lines

    def signal(self, signum: int) -> None:
        """Send `signum` to the supervisor only."""
        self.proc.send_signal(signum)

    def kill_group(self) -> None:
        """kill -9 of the whole process group: supervisor, worker and crawler at once."""
        os.killpg(self.proc.pid, signal.SIGKILL)


def processes_mentioning(text: str) -> list[int]:
    """Pids of live (non-zombie) processes whose command line contains `text`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z":
            pids.append(int(entry.name))
    return pids


def wait_until_gone(text: str, timeout: float = 30.0) -> list[int]:
    """Wait for processes mentioning `text` to end; returns those still there at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = processes_mentioning(text)
        if not left:
            return []
        time.sleep(0.2)
    return processes_mentioning(text)


def wait_until_unlocked(path: Path, timeout: float = 30.0) -> None:
    """Wait until the DuckDB file at ``path`` opens: a process killed with SIGKILL leaves the
    process list's view (its command line reads empty) while the kernel still tears it
    down, and its lock on the file goes only at the end of that; on a loaded machine, a
    few seconds later."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            duckdb.connect(str(path), read_only=True).close()
            return
        except duckdb.IOException as exc:
            if "lock" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def one_error_line(lines: list[str]) -> str:
    """The supervisor's closing line; the test fails if a traceback reached the terminal."""
    assert not any("Traceback" in ln for ln in lines), "\n".join(lines)
    assert lines, "no output"
    return lines[-1]


def crash_site():
    """The crash tests' site: 80 games, 140 members, no faults (a night ~15 s of CPU)."""
    return generate_site(n_games=80, n_users=140, seed=11, faults=False)


@pytest.fixture(scope="module")
def site():
    """A small site without planted faults: the nightly tests are about processes, not pages."""
    return crash_site()


@pytest.fixture(scope="module")
def site_url(site):
    with SampleSiteServer(site) as server:
        yield server.base_url


@pytest.fixture(scope="module")
def slow_site_url(site):
    """The same site asking for 0.05 s between requests: its crawl lasts ~20 s.

    Short, because a crawl stopped gracefully (SIGTERM, or its parent's death) first lets the
    requests already in its downloader finish, one per delay: up to CONCURRENT_REQUESTS (32 on
    a local site), 1.6 s here, 6.4 s at 0.2 s.
    """
    with SampleSiteServer(site, crawl_delay=0.05) as server:
        yield server.base_url


@dataclasses.dataclass
class FirstNight:
    """A copy of one good night's data directory, and the live server it was crawled from.

    The next night must crawl the same base URL (the crawl's signals and its volume floor
    are kept per `base_url`), so the server is the worker's one, at the same address. A test
    may change `server.site` or `server.crawl_delay` for its own next night; they are put
    back after it.
    """

    data: Path
    server: SampleSiteServer

    @property
    def url(self) -> str:
        return self.server.base_url


@pytest.fixture(scope="session")
def crash_site_server():
    """The crash site served for the whole run of this xdist worker (one idle thread)."""
    with SampleSiteServer(crash_site()) as server:
        yield server


@pytest.fixture(scope="session")
def crash_night_template(crash_site_server, tmp_path_factory) -> Path:
    """One published night of the crash site, run once per worker by a real `bodoge run`.

    Why shared: several crash tests need a good first night only as the ground their second
    night (killed, damaged, thin) stands on; each used to run its own, ~15 s of CPU apiece.
    A data directory copied elsewhere stays whole (`pipelines/instance.py`).
    """
    data = tmp_path_factory.mktemp("first-night") / "data"
    code, lines = NightlyProcess(data, crash_site_server.base_url).finish(timeout=400)
    assert code == 0, "\n".join(lines[-10:])
    return data


@pytest.fixture()
def crash_night(crash_night_template, crash_site_server, tmp_path):
    """`FirstNight`: this test's own copy of the shared first night, at `tmp_path / "data"`."""
    server = crash_site_server
    site, delay = server.site, server.crawl_delay
    server.requests.clear()
    data = shutil.copytree(crash_night_template, tmp_path / "data", symlinks=True)
    try:
        yield FirstNight(data=data, server=server)
    finally:
        server.site, server.crawl_delay = site, delay
        server.requests.clear()
