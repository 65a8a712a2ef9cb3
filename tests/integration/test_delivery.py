"""A push endpoint that is down never stops the night; the bundle goes when the endpoint is back.

Why these tests: the night used to refuse to start when `--push` did not accept a
connection, and a push that failed at the end of the export failed the whole night, so a
site outage cost us the night's data as well. Now the night publishes locally, delivery is
retried for a bounded time, recorded as pending, retried at the next night's start and
end, and alerted on once when pending and once more when overdue (26 h). The endpoint in
these tests is real: a local HTTP server, or a port that refuses connections.
"""

from __future__ import annotations

import json
import shutil
import socket
import time
from datetime import timedelta
from pathlib import Path

import pytest

from core.http import PostGaveUp, Retry, post_with_retry
from pipelines import alerts
from tests.support.nightly_process import site  # noqa: F401 - module-scoped fixtures
from tests.support.http_stubs import Receiver
from tests.support.warehouse_fixtures import make_warehouse
from warehouse.release import delivery
from warehouse.db import connect
from warehouse.release.export import export_bundle, verify_bundle
from warehouse.release.push import idempotency_key


def refusing_port() -> socket.socket:
    """A port held without listening: every connection to it is refused until it is closed."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    return held


def make_bundle(tmp_path: Path, run_id: str) -> Path:
    make_warehouse(tmp_path / f"{run_id}.duckdb", run_id)
    with connect(tmp_path / f"{run_id}.duckdb") as con:
        return export_bundle(con, tmp_path / "data" / "exports").path


def test_a_post_gives_up_at_its_deadline() -> None:
    """Backoff 0.2, 0.4, 0.8 … s would go on for 100 attempts; the 1 s deadline ends it first."""
    down = Receiver(fail_first=10**6)
    try:
        started = time.monotonic()
        with pytest.raises(PostGaveUp, match="deadline") as gave_up:
            post_with_retry(down.url, b"{}", {}, retry=Retry(attempts=100, base_delay=0.2, deadline=1.0))
        took = time.monotonic() - started
    finally:
        down.close()
    assert took < 1.5 and 2 <= gave_up.value.attempts <= 4 and len(down.posts) == gave_up.value.attempts


def test_a_bundle_the_endpoint_did_not_take_stays_pending_then_goes_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bundle = make_bundle(tmp_path, "night-1")
    held = refusing_port()
    url = f"http://127.0.0.1:{held.getsockname()[1]}/api/recommendations"
    started = time.monotonic()
    missed = delivery.deliver(data, url, bundle=bundle, seconds=2.0)
    assert time.monotonic() - started < 5  # bounded: the night does not hang on a down endpoint
    assert missed.delivered is None and [p.run_id for p in missed.pending] == ["night-1"]
    record = json.loads((data / "deliveries" / "night-1.json").read_text(encoding="utf-8"))
    assert record["url"] == url and "refused" in record["last_error"].lower() and record["tries"] == 1

    held.close()
    endpoint = Receiver(port=int(url.split(":")[2].split("/")[0]))
    try:
        sent = delivery.deliver(data, None, seconds=2.0)  # the next night: to the URL it was meant for
        again = delivery.deliver(data, None, seconds=2.0)  # nothing left to send
    finally:
        endpoint.close()
    assert sent.delivered == "night-1" and sent.idempotency_key == idempotency_key(verify_bundle(bundle))
    assert list(endpoint.stored) == [sent.idempotency_key] and len(endpoint.posts) == 1
    assert again.delivered is None and not delivery.pending(data)


def test_the_newest_bundle_supersedes_older_undelivered_ones_and_pruned_ones_are_dropped(tmp_path: Path) -> None:
    """Each bundle is the site's whole state: once a newer one is delivered, older ones are never sent."""
    data = tmp_path / "data"
    held = refusing_port()
    down = f"http://127.0.0.1:{held.getsockname()[1]}/api"
    first, second = make_bundle(tmp_path, "night-1"), make_bundle(tmp_path, "night-2")
    delivery.deliver(data, down, bundle=first, seconds=1.0)
    delivery.deliver(data, down, bundle=second, seconds=1.0)
    assert [p.run_id for p in delivery.pending(data)] == ["night-1", "night-2"]
    held.close()
    endpoint = Receiver()
    try:
        said: list[str] = []
        sent = delivery.deliver(data, endpoint.url, seconds=2.0, say=said.append)  # tonight's URL wins
    finally:
        endpoint.close()
    assert sent.delivered == "night-2" and sent.dropped == ("night-1",) and not delivery.pending(data)
    assert list(endpoint.stored) == [idempotency_key(verify_bundle(second))]
    assert said == ["bundle night-2 supersedes undelivered night-1"]

    third = make_bundle(tmp_path, "night-3")
    delivery.record(data, third, endpoint.url)
    shutil.rmtree(third)  # pruned by the export's retention before it was ever delivered
    gone = delivery.deliver(data, endpoint.url, seconds=1.0)
    assert gone.dropped == ("night-3",) and gone.delivered is None and not delivery.pending(data)


def test_a_pending_bundle_alerts_once_and_once_more_when_overdue(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bundle = make_bundle(tmp_path, "night-1")
    held = refusing_port()
    delivery.deliver(data, f"http://127.0.0.1:{held.getsockname()[1]}/api", bundle=bundle, seconds=1.0)
    since = delivery.pending(data)[0].since
    receiver = Receiver()
    try:
        first = alerts.deliveries_pending(data, receiver.url, now=since + timedelta(hours=1))
        repeat = alerts.deliveries_pending(data, receiver.url, now=since + timedelta(hours=25))
        overdue = alerts.deliveries_pending(data, receiver.url, now=since + timedelta(hours=27), base_delay=0.01)
        later = alerts.deliveries_pending(data, receiver.url, now=since + timedelta(hours=50))
    finally:
        receiver.close()
        held.close()
    assert (first, repeat, overdue, later) == (["push-pending-night-1"], [], ["push-overdue-night-1"], [])
    assert [(b["kind"], b["run_id"]) for b in receiver.bodies] == [("push_pending", "night-1"),
                                                                  ("push_overdue", "night-1")]
    assert "27 h" in receiver.bodies[1]["cause"] and "refused" in receiver.bodies[1]["cause"].lower()


def test_the_daemons_sensor_says_a_bundle_is_pending_once(tmp_path: Path) -> None:
    """Under `bodoge serve` nobody runs `bodoge run`: the freshness sensor (every 10 min) sends the same alert, once."""
    import dagster as dg

    from pipelines.defs.resources import AlertSettings, SiteSettings
    from pipelines.defs.schedules import nightly_freshness

    data = tmp_path / "data"
    held = refusing_port()
    try:
        delivery.deliver(data, f"http://127.0.0.1:{held.getsockname()[1]}/api", bundle=make_bundle(tmp_path, "n-1"),
                         seconds=1.0)
    finally:
        held.close()
    receiver = Receiver()
    try:
        context = dg.build_sensor_context(resources={"site": SiteSettings(data_dir=str(data)),
                                                     "alerts": AlertSettings(alert_url=receiver.url)})
        said = [nightly_freshness(context).skip_message for _ in range(2)]
    finally:
        receiver.close()
    assert [(b["kind"], b["run_id"]) for b in receiver.bodies] == [("push_pending", "n-1")]
    assert said == ["fresh, or already alerted; push-pending-n-1 sent", "fresh, or already alerted"]
