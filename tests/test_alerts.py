"""Alerts: a failed night POSTs one JSON alert (retried if the endpoint is down), never two."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from pipelines import alerts
from tests.support.http_stubs import Receiver, broken_site  # noqa: F401 - a fixture
from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.db import connect
from warehouse.publish import publish_snapshot


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    r = Receiver(fail_first=1)
    yield r
    r.close()


def test_an_alert_is_retried_while_the_endpoint_is_down_and_sent_once(tmp_path: Path, receiver: Receiver) -> None:
    sent = alerts.night_failed(tmp_path, receiver.url, run_id="r1", step="raw_tables", cause="boom",
                               log_path="/x.log", base_delay=0.01)
    again = alerts.night_failed(tmp_path, receiver.url, run_id="r1", step="raw_tables", cause="boom",
                                log_path="/x.log", base_delay=0.01)
    assert (sent, again) == (True, False)
    assert receiver.requests == 2  # one 503, then the delivery; the repeat sent nothing
    assert [b["run_id"] for b in receiver.bodies] == ["r1"]
    assert receiver.bodies[0]["failed_step"] == "raw_tables" and receiver.bodies[0]["kind"] == "night_failed"


def test_an_alert_that_never_got_through_is_tried_again_next_time(tmp_path: Path) -> None:
    down = Receiver(fail_first=10**6)
    try:
        with pytest.raises(alerts.AlertUndelivered, match="did not take the alert"):
            alerts.night_failed(tmp_path, down.url, run_id="r2", step=None, cause="x", log_path=None,
                                attempts=2, base_delay=0.01)
        down.fail_first = 0
        assert alerts.night_failed(tmp_path, down.url, run_id="r2", step=None, cause="x", log_path=None)
        assert len(down.bodies) == 1
    finally:
        down.close()


def test_freshness_is_missed_after_26_hours_once(tmp_path: Path, receiver: Receiver) -> None:
    with connect(build_small_warehouse(tmp_path / "warehouse.duckdb")) as con:
        publish_snapshot(con, tmp_path, run_id="night-1")
    now = datetime.now(timezone.utc)
    assert not alerts.freshness_missed(tmp_path, receiver.url, now=now + timedelta(hours=25))
    assert alerts.freshness_missed(tmp_path, receiver.url, now=now + timedelta(hours=27), base_delay=0.01)
    assert not alerts.freshness_missed(tmp_path, receiver.url, now=now + timedelta(hours=40))
    assert [(b["kind"], b["run_id"]) for b in receiver.bodies] == [("freshness_missed", "night-1")]


def test_a_bad_alert_url_is_one_line_before_anything_starts(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bodoge.cli", "run", "--base-url", "http://127.0.0.1:9", "--data-dir", str(tmp_path),
         "--alert-url", "mailto:ops@example.com"],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2 and run.stderr.strip().count("\n") == 0
    assert "--alert-url: not an http(s) URL" in run.stderr
    assert not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_a_failing_night_delivers_exactly_one_alert_and_exits_non_zero(tmp_path: Path, broken_site: str,
                                                                        receiver: Receiver) -> None:
    data = tmp_path / "data"
    run = subprocess.run(
        [sys.executable, "-m", "bodoge.cli", "run", "--base-url", broken_site, "--data-dir", str(data),
         "--alert-url", receiver.url],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert run.returncode != 0, run.stderr
    assert "Traceback" not in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "failed" in last and "nothing was published" in last
    assert len(receiver.bodies) == 1, receiver.bodies
    alert = receiver.bodies[0]
    assert alert["kind"] == "night_failed" and alert["run_id"] in last
    assert alert["failed_step"] and alert["cause"] and alert["cause"] in last
    assert Path(alert["log_path"]).is_file() and alert["log_path"] in last
    assert receiver.requests == 2  # the endpoint was down once: retried, delivered once
    assert not (data / "published.duckdb").exists()


def test_the_daemons_alert_names_the_failed_step_and_its_root_cause() -> None:
    import dagster as dg

    from pipelines.defs.schedules import failed_step

    @dg.op
    def crawl_site() -> None:
        try:
            raise OSError("connection refused")
        except OSError as exc:
            raise RuntimeError("the crawl could not start") from exc

    @dg.job
    def night() -> None:
        crawl_site()

    with dg.DagsterInstance.ephemeral() as instance:
        result = night.execute_in_process(instance=instance, raise_on_error=False)
        step, cause = failed_step(result.get_step_failure_events(), fallback="failed")
    assert step == "crawl_site"
    assert cause == "connection refused"


def test_the_ui_calls_a_night_late_when_the_alert_does() -> None:
    """published_night's freshness policy fails at the alert's 26 hours (one number), warns an hour before."""
    import dagster as dg

    from pipelines.alerts import FRESHNESS
    from pipelines.definitions import defs

    key = dg.AssetKey(["export", "published_night"])
    policy = defs().resolve_assets_def(key).specs_by_key[key].freshness_policy
    assert policy.fail_window.to_timedelta() == FRESHNESS
    assert policy.warn_window.to_timedelta() == FRESHNESS - timedelta(hours=1)
