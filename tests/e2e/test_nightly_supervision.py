"""`bodoge run` with nobody watching: killed at any stage, signals, bad settings, a thin crawl.

Real processes, real signals, a real sample site over HTTP and the real Dagster instance:
- a run killed at any stage never blocks the next: SIGTERM in the crawl, SIGINT in the
  build, kill -9 of the whole group in training, kill -9 of the supervisor alone before the
  export; then a plain `bodoge run` completes with no manual step, the dead runs are marked
  failed (INTERRUPTED where the process died), no pool slot stays claimed and nothing of a
  killed run is left running or lying around;
- a run waiting for a live run's lock says so and obeys SIGTERM;
- a malformed --base-url or --push is one line before anything starts (an unreachable site is a
  failed night, a down endpoint a pending delivery: tests/e2e/test_failed_nights.py, test_delivery.py);
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

from samplesite.server import SampleSiteServer
from tests.support.nightly_process import (  # noqa: F401 - module-scoped fixtures  # noqa: F401 - module-scoped fixtures
    BODOGE,
    NightlyProcess,
    one_error_line,
    processes_mentioning,
    site,
    site_url,
    slow_site_url,
    wait_until_gone,
    FirstNight,
)
from warehouse.release.export import verify_bundle


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


def test_a_thin_crawl_stops_the_night_and_publishes_nothing_but_privacy_still_holds(crash_night: FirstNight) -> None:
    """A night whose crawl brings in far less than the last good nights fails before the marts
    and the export; a member who turned private that night still leaves every old bundle."""
    data, crawled = crash_night.data, crash_night.server.site  # a data directory after one good night
    latest = (data / "exports" / "LATEST").read_text().strip()
    bundle = data / "exports" / latest
    gone_private = json.loads((bundle / "recommendations.jsonl").read_text().splitlines()[0])["user_id"]
    tonight = dataclasses.replace(crawled, members=tuple(
        dataclasses.replace(m, private=True) if m.user_id == gone_private else m for m in crawled.members))
    with SampleSiteServer(tonight) as server:
        with duckdb.connect(str(data / "warehouse.duckdb")) as con:
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
        code, lines = NightlyProcess(data, server.base_url).finish(timeout=400)
    assert code != 0
    last = one_error_line(lines)
    assert "blocking check crawl_volume_floor failed" in last and "nothing was published" in last, last
    log_path = Path(last.rsplit("(log: ", 1)[1].rstrip(")"))
    assert log_path.exists() and log_path.parent == data / "logs"
    assert (data / "exports" / "LATEST").read_text().strip() == latest
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("SELECT max(generated_at) FROM marts.recommendations").fetchone()[0] == recs_before
    verify_bundle(bundle)
    users = {json.loads(ln)["user_id"] for ln in (bundle / "recommendations.jsonl").read_text().splitlines()}
    assert gone_private not in users and len(users) > 10
    assert gone_private not in log_path.read_text()
    assert not processes_mentioning(str(data))


def test_a_run_killed_at_any_stage_never_blocks_the_next(tmp_path, site_url, slow_site_url) -> None:
    """SIGTERM in the crawl, SIGINT in the build, kill -9 of the group in training, kill -9 of
    the supervisor alone before the export: then a plain `bodoge run` completes."""
    stages = [
        ("crawl", lambda ln: ln.startswith("crawl:"), "SIGTERM", 143),
        ("build", lambda ln: ln.startswith("nightly: done marts__games"), "SIGINT", 130),
        ("training", lambda ln: ln.startswith("nightly: done recsys__interactions"), "KILL_GROUP", None),
        ("export", lambda ln: ln.startswith("nightly: done discovery"), "KILL_SUPERVISOR", None),
    ]
    every_line: list[str] = []
    for stage, seen, how, expected_code in stages:
        run = NightlyProcess(tmp_path, slow_site_url if stage == "crawl" else site_url)
        run.wait_for(seen)
        if how == "SIGTERM":
            run.signal(signal.SIGTERM)
        elif how == "SIGINT":
            run.signal(signal.SIGINT)
        elif how == "KILL_GROUP":
            run.kill_group()
        else:
            run.signal(signal.SIGKILL)
        code, lines = run.finish(timeout=120)
        every_line += lines
        if expected_code is not None:
            assert code == expected_code, (stage, lines)
            last = one_error_line(lines)
            assert last.startswith(f"bodoge: interrupted by {how}") and "next run starts cleanly" in last
        else:
            assert code == -signal.SIGKILL
        # Whatever was killed, nothing of that run is left running for long (the crawl of
        # this site alone takes longer than the grace given here).
        assert not wait_until_gone(str(tmp_path), timeout=8), f"{stage}: processes left behind"

    final = NightlyProcess(tmp_path, site_url)
    code, lines = final.finish(timeout=400)
    assert code == 0, "\n".join(lines)
    recovered = [ln for ln in every_line + lines if "was dead: marked failed" in ln]
    assert len(recovered) >= 1, every_line  # at least the kill -9 of the group left a STARTED run

    import dagster as dg

    with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        runs = instance.get_runs()
        statuses = sorted(r.status.value for r in runs)
        assert statuses.count("SUCCESS") == 1 and statuses.count("FAILURE") == 4, statuses
        assert not instance.event_log_storage.get_concurrency_run_ids()
    with duckdb.connect(str(tmp_path / "warehouse.duckdb"), read_only=True) as con:
        outcomes = dict(con.execute("SELECT status, count(*) FROM marts.pipeline_runs GROUP BY status").fetchall())
        running = con.execute("SELECT count(*) FROM raw.crawl_runs WHERE status = 'running'").fetchone()[0]
    assert outcomes.get("SUCCESS") == 1 and outcomes.get("INTERRUPTED", 0) >= 1, outcomes
    assert running == 0
    assert (tmp_path / "exports" / "LATEST").exists()
    assert not list((tmp_path / "exports").glob(".tmp-*"))
