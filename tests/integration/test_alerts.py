"""Alerts: a failed night POSTs one JSON alert (retried if the endpoint is down), never two."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from pipelines import alerts
from tests.support.http_stubs import Receiver  # noqa: F401 - a fixture
from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.db import connect
from warehouse.release.publish import publish_snapshot


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


def test_the_freshness_alert_never_writes_the_published_night(tmp_path: Path, receiver: Receiver) -> None:
    """Issue 38: the alert opened the published night through a reader that cut the members
    the erasure journal names, rewriting the file; readers never write, writers cut."""
    from warehouse.privacy.erasure import note, pending
    from warehouse.release.publish import published_path

    with connect(build_small_warehouse(tmp_path / "warehouse.duckdb")) as con:
        publish_snapshot(con, tmp_path, run_id="night-1")
    night = published_path(tmp_path)

    def state() -> tuple[str, int, int]:
        return hashlib.sha256(night.read_bytes()).hexdigest(), night.stat().st_mtime_ns, night.stat().st_ino

    before = state()
    note(tmp_path, ["17406"])  # a crawl found them private and was killed before its cut
    now = datetime.now(timezone.utc)
    assert alerts.freshness_missed(tmp_path, receiver.url, now=now + timedelta(hours=27), base_delay=0.01)
    assert state() == before
    assert pending(tmp_path) == {"17406"}  # still the writers' to cut
    assert [(b["kind"], b["run_id"]) for b in receiver.bodies] == [("freshness_missed", "night-1")]

