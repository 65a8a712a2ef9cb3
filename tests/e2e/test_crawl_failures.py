"""A crawl that cannot do its job says so: one line, a non-zero exit, an honest run record.

Real processes throughout: `bodoge crawl` as a subprocess against the sample site over
HTTP, a second process holding the warehouse's DuckDB lock, a local server answering 500
to everything, and real signals (SIGTERM to the crawler, SIGKILL to its parent).
"""

from __future__ import annotations

import logging
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from samplesite.generator import generate_site
from samplesite.server import SampleSiteServer
from scrapers.crawl import CrawlError, run_crawl
from ops.procs import process_alive
from warehouse.db import connect
from tests.support.http_stubs import broken_site  # noqa: F401 - a fixture

REPO = Path(__file__).resolve().parents[2]


def bodoge(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=REPO, timeout=timeout)


def assert_one_error_line(run: subprocess.CompletedProcess, *fragments: str, progress: bool = False) -> str:
    """Non-zero exit, one error line on stderr, no traceback; nothing else but, with
    `progress`, the periodic `crawl: ...` lines of a crawl that ran for a while."""
    assert run.returncode != 0, run
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.splitlines()
    errors = [ln for ln in lines if ln.startswith("bodoge: error: ")]
    others = [ln for ln in lines if not ln.startswith("bodoge: error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], run.stderr
    assert (not others) if not progress else all(ln.startswith("crawl: ") for ln in others), run.stderr
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    return errors[0]


def runs(warehouse: Path) -> list[tuple[str, str]]:
    with connect(warehouse, read_only=True) as con:
        return con.execute("SELECT run_id, status FROM raw.crawl_runs ORDER BY started_at").fetchall()


@pytest.fixture(scope="module")
def site():
    return generate_site(n_games=20, n_users=20, seed=1)


@pytest.fixture(scope="module")
def served(site) -> Iterator[SampleSiteServer]:
    with SampleSiteServer(site, transient_faults=False) as server:
        yield server


@pytest.fixture()
def slow_site(site) -> Iterator[SampleSiteServer]:
    """The same site asking for a Crawl-delay: a crawl still running when signalled.

    Scrapy's graceful stop lets the requests already queued in the downloader finish (up
    to CONCURRENT_REQUESTS of them, 32 on a local site, one per delay), so the delay is short:
    ~3 s of stopping at 0.1 s (10 s at 0.25 s), and the whole crawl still lasts several seconds.
    """
    with SampleSiteServer(site, transient_faults=False, crawl_delay=0.1) as server:
        yield server


@pytest.fixture()
def lock_holder(tmp_path) -> Iterator[Path]:
    """A warehouse whose DuckDB write lock another live process holds."""
    warehouse = tmp_path / "data" / "warehouse.duckdb"
    warehouse.parent.mkdir()
    duckdb.connect(str(warehouse)).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); "
         "time.sleep(120)", str(warehouse)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield warehouse
    finally:
        holder.kill()
        holder.wait()


def test_a_warehouse_locked_by_another_process_fails_the_crawl_in_one_line(served, lock_holder) -> None:
    data = lock_holder.parent
    run = bodoge("crawl", "--base-url", served.base_url, "--data-dir", str(data))
    assert_one_error_line(run, f"cannot open warehouse {lock_holder}", "lock")
    assert run.stdout == ""
    assert list((data / "tmp").iterdir()) == []  # the scratch dir went with the crawl


def test_a_warehouse_that_cannot_be_created_fails_the_crawl_in_one_line(served, tmp_path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a regular file where the warehouse's folder should be", encoding="utf-8")
    warehouse = blocker / "warehouse.duckdb"
    run = bodoge("crawl", "--base-url", served.base_url, "--data-dir", str(tmp_path / "data"),
                 "--warehouse", str(warehouse))
    assert_one_error_line(run, f"cannot open warehouse {warehouse}")


def test_a_site_answering_500_everywhere_fails_and_the_run_says_failed(broken_site, tmp_path) -> None:
    data = tmp_path / "data"
    run = bodoge("crawl", "--base-url", broken_site, "--data-dir", str(data), "--sections", "games")
    assert_one_error_line(run, "the site answered no page successfully", "all HTTP 500", progress=True)
    assert [status for _, status in runs(data / "warehouse.duckdb")] == ["failed"]


def test_run_crawl_raises_one_line_for_a_locked_warehouse(served, lock_holder) -> None:
    with pytest.raises(CrawlError, match="cannot open warehouse .*lock") as caught:
        run_crawl(base_url=served.base_url, warehouse=lock_holder, progress=None)
    assert "\n" not in str(caught.value)


def _child_of(pid: int, timeout: float = 30) -> int:
    """The crawl subprocess of a `bodoge crawl` (`python -m scrapers.crawl_child`), not any
    short-lived helper the parent may start first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="utf-8").split():
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue  # already gone
            if b"scrapers.crawl" in cmdline:
                return int(child)
        time.sleep(0.05)
    raise AssertionError(f"process {pid} started no crawler")


def _wait_for_pages(server: SampleSiteServer, n: int, timeout: float = 60) -> None:
    """Until the crawler has fetched `n` pages besides robots.txt: its reactor is running."""
    deadline = time.monotonic() + timeout
    while sum(1 for _, target, _ in list(server.requests) if target != "/robots.txt") < n:
        assert time.monotonic() < deadline, "the crawl never started fetching"
        time.sleep(0.05)


def _wait_gone(pid: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while process_alive(pid):
        assert time.monotonic() < deadline, f"process {pid} is still alive"
        time.sleep(0.05)


def _start_cli_crawl(base_url: str, data: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bodoge.cli", "crawl", "--base-url", base_url, "--data-dir", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", cwd=REPO,
    )


def test_sigterm_to_the_crawler_stops_it_gracefully_and_the_run_says_interrupted(slow_site, tmp_path) -> None:
    data = tmp_path / "data"
    cli = _start_cli_crawl(slow_site.base_url, data)
    crawler = _child_of(cli.pid)
    _wait_for_pages(slow_site, 2)
    os.kill(crawler, signal.SIGTERM)
    out, err = cli.communicate(timeout=60)
    assert_one_error_line(subprocess.CompletedProcess(cli.args, cli.returncode, out, err),
                          "crawl interrupted by signal 15", progress=True)
    assert [status for _, status in runs(data / "warehouse.duckdb")] == ["interrupted"]
    assert list((data / "tmp").iterdir()) == []


def test_sigterm_to_bodoge_crawl_stops_its_crawler_first(slow_site, tmp_path) -> None:
    data = tmp_path / "data"
    cli = _start_cli_crawl(slow_site.base_url, data)
    crawler = _child_of(cli.pid)
    _wait_for_pages(slow_site, 2)
    cli.send_signal(signal.SIGTERM)
    out, err = cli.communicate(timeout=90)
    assert cli.returncode == 143, err
    assert_one_error_line(subprocess.CompletedProcess(cli.args, 1, out, err), "SIGTERM", progress=True)
    assert not process_alive(crawler)
    assert [status for _, status in runs(data / "warehouse.duckdb")] == ["interrupted"]
    assert list((data / "tmp").iterdir()) == []


def test_the_crawler_dies_with_its_parent_and_the_next_crawl_sweeps_its_litter(
    slow_site, served, tmp_path, caplog
) -> None:
    data = tmp_path / "data"
    cli = _start_cli_crawl(slow_site.base_url, data)
    crawler = _child_of(cli.pid)
    _wait_for_pages(slow_site, 2)
    cli.kill()  # SIGKILL: no handler runs in the parent; the kernel tells the child
    cli.communicate(timeout=30)
    time.sleep(0.5)  # its graceful stop is under way
    with contextlib.suppress(ProcessLookupError):  # what the kernel does when a threaded parent dies:
        os.kill(crawler, signal.SIGTERM)  # the parent-death signal again, once per exiting thread
    _wait_gone(crawler)
    assert [status for _, status in runs(data / "warehouse.duckdb")] == ["interrupted"]
    litter = list((data / "tmp").iterdir())
    assert len(litter) == 1 and litter[0].name.startswith("crawl-")

    with caplog.at_level(logging.WARNING, logger="bodoge.crawl"):
        result = run_crawl(base_url=served.base_url, warehouse=data / "warehouse.duckdb", progress=None)
    assert result.pages > 0
    assert not litter[0].exists() and list((data / "tmp").iterdir()) == []
    swept = [r.getMessage() for r in caplog.records if "leftover" in r.getMessage()]
    assert len(swept) == 1 and "removed 1 leftover" in swept[0], caplog.text


def test_a_live_crawls_scratch_dir_is_not_swept(tmp_path) -> None:
    from ops.scratch import remove_stale, scratch_dir

    with scratch_dir(tmp_path, run_id="live") as live:
        dead = tmp_path / "crawl-dead"
        dead.mkdir()
        finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True, check=True)
        (dead / "owner").write_text(finished.stdout, encoding="utf-8")
        assert remove_stale(tmp_path) == [dead]
        assert live.is_dir() and (live / "owner").read_text(encoding="utf-8").split(":")[0] == str(os.getpid())
    assert not live.exists()
