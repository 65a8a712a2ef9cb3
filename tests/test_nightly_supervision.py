"""`bodoge run` with nobody watching: signals, bad settings, a thin crawl (crashes: test_nightly_crashes).

Real processes, real signals, a real sample site over HTTP and the real Dagster instance:
- a run waiting for a live run's lock says so and obeys SIGTERM;
- a malformed --base-url or --push is one line before anything starts (an unreachable site is a
  failed night, a down endpoint a pending delivery: tests/test_failed_nights.py, test_delivery.py);
- a crawl far thinner than the last good nights stops the night before it publishes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from samplesite.server import SampleSiteServer
from tests.support.nightly_process import BODOGE, NightlyProcess, one_error_line, processes_mentioning
from tests.support.nightly_process import site, site_url  # noqa: F401 - module-scoped fixtures
from warehouse.export import verify_bundle


def test_bad_base_url_and_push_are_one_line_before_anything_starts(tmp_path, site_url) -> None:
    """Malformed flags only: whether the site or the endpoint answers is the night's to find out."""
    for args, needle in (
        (["--base-url", "ftp://example.org"], "--base-url: not an http(s) base URL"),
        (["--base-url", "nonsense"], "--base-url: not an http(s) base URL"),
        (["--base-url", site_url, "--push", "mailto:x@example.org"], "--push: not an http(s) URL"),
        (["--base-url", site_url, "--push", "ftp:/x"], "--push: not an http(s) URL"),
    ):
        done = subprocess.run([*BODOGE, "run", "--data-dir", str(tmp_path), *args],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], done.stderr
    assert not (tmp_path / "dagster_home").exists() and not (tmp_path / "logs").exists()


def test_a_bad_floor_setting_is_one_line(tmp_path, site_url) -> None:
    done = subprocess.run([*BODOGE, "run", "--data-dir", str(tmp_path), "--base-url", site_url],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "BODOGE_CRAWL_FLOOR": "lots"})
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [
        "bodoge: error: BODOGE_CRAWL_FLOOR must be a number between 0 and 1, not 'lots'"]


def test_a_waiting_run_says_so_and_obeys_sigterm(tmp_path, site_url) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from ops.lock import acquire; "
         f"acquire(Path({str(tmp_path)!r})); print('held', flush=True); time.sleep(120)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        waiting = NightlyProcess(tmp_path, site_url)
        line = waiting.wait_for(lambda ln: "waiting for the nightly run" in ln, timeout=60)
        assert f"pid {holder.pid}" in line
        started = time.monotonic()
        waiting.signal(signal.SIGTERM)
        code, lines = waiting.finish(timeout=20)
        assert code == 143 and time.monotonic() - started < 10
        assert "interrupted by SIGTERM while waiting" in one_error_line(lines)
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow
def test_a_thin_crawl_stops_the_night_and_publishes_nothing_but_privacy_still_holds(tmp_path, site, site_url) -> None:
    """A night whose crawl brings in far less than the last good nights fails before the marts
    and the export; a member who turned private that night still leaves every old bundle."""
    code, lines = NightlyProcess(tmp_path, site_url).finish(timeout=400)
    assert code == 0, "\n".join(lines)
    latest = (tmp_path / "exports" / "LATEST").read_text().strip()
    bundle = tmp_path / "exports" / latest
    gone_private = json.loads((bundle / "recommendations.jsonl").read_text().splitlines()[0])["user_id"]
    tonight = dataclasses.replace(
        site, members=tuple(dataclasses.replace(m, private=True) if m.user_id == gone_private else m for m in site.members)
    )
    with SampleSiteServer(tonight) as server:
        with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as con:
            # Three earlier incremental nights of the same site that accounted for ten times as many pages.
            stats = json.dumps({"bodoge/mode": "incremental", "bodoge/skipped/collections": 10 * 100_000,
                                "bodoge/written": {"collection_entry": 10 * 100_000}})
            for day in (1, 2, 3):
                con.execute(
                    "INSERT INTO raw.crawl_runs (run_id, base_url, started_at, finished_at, status, stats) "
                    "VALUES (?, ?, ?, ?, 'finished', ?)",
                    [f"2026110{day}T030000Z-earlier", server.base_url, f"2026-11-0{day} 03:00:00+00",
                     f"2026-11-0{day} 04:00:00+00", stats],
                )
            recs_before = con.execute("SELECT max(generated_at) FROM marts.recommendations").fetchone()[0]
        code, lines = NightlyProcess(tmp_path, server.base_url).finish(timeout=400)
    assert code != 0
    last = one_error_line(lines)
    assert "blocking check crawl_volume_floor failed" in last and "nothing was published" in last, last
    log_path = Path(last.rsplit("(log: ", 1)[1].rstrip(")"))
    assert log_path.exists() and log_path.parent == tmp_path / "logs"
    assert (tmp_path / "exports" / "LATEST").read_text().strip() == latest
    with duckdb.connect(str(tmp_path / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("SELECT max(generated_at) FROM marts.recommendations").fetchone()[0] == recs_before
    verify_bundle(bundle)
    users = {json.loads(ln)["user_id"] for ln in (bundle / "recommendations.jsonl").read_text().splitlines()}
    assert gone_private not in users and len(users) > 10
    assert gone_private not in log_path.read_text()
    assert not processes_mentioning(str(tmp_path))
