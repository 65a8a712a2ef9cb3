"""A push endpoint that is down never stops the night; the bundle goes when the endpoint is back.

Here: the tests that start real processes; the rest of this subject:
tests/integration/test_delivery.py, tests/unit/test_delivery.py.
"""

from __future__ import annotations

import json
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path


from tests.support.nightly_process import NightlyProcess
from tests.support.nightly_process import site, site_url  # noqa: F401 - module-scoped fixtures
from tests.support.http_stubs import Receiver
from warehouse.release import delivery
from warehouse.release.export import verify_bundle
from warehouse.release.push import idempotency_key


def refusing_port() -> socket.socket:
    """A port held without listening: every connection to it is refused until it is closed."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    return held


def _age(data: Path, run_id: str, hours: float) -> None:
    """Move a pending record's clock back, so the test need not wait 26 hours."""
    path = data / "deliveries" / f"{run_id}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["since"] = (datetime.now(timezone.utc) - timedelta(hours=hours)).isoformat(timespec="seconds")
    path.write_text(json.dumps(record), encoding="utf-8")


def test_nights_with_the_push_endpoint_down_publish_and_deliver_once_it_is_back(tmp_path: Path, site_url: str) -> None:
    """Night 1: endpoint down, the night publishes and exits 0, one push_pending alert. Night 2:
    still down and night 1's bundle 27 h old: one push_overdue alert. Night 3: the endpoint is
    back; its start delivers night 2's bundle (superseding night 1's), its end night 3's."""
    data = tmp_path / "data"
    held = refusing_port()
    port = held.getsockname()[1]
    push = f"http://127.0.0.1:{port}/api/recommendations"
    receiver = Receiver()
    env = {"BODOGE_PUSH_RETRY_SECONDS": "2"}
    bundles, lines_by_night = [], []
    try:
        for night in (1, 2, 3):
            if night == 3:
                held.close()
                endpoint = Receiver(port=port)
            code, lines = NightlyProcess(data, site_url, "--push", push, "--alert-url", receiver.url,
                                         env=env).finish(timeout=400)
            assert code == 0, "\n".join(lines)
            assert not any("Traceback" in ln for ln in lines)
            bundles.append((data / "exports" / "LATEST").read_text(encoding="utf-8").strip())
            lines_by_night.append(lines)
            assert (data / "published.duckdb").is_file() and (data / "exports" / bundles[-1]).is_dir()
            if night == 1:
                assert [b["kind"] for b in receiver.bodies] == ["push_pending"]
                _age(data, bundles[0], hours=27)
    finally:
        receiver.close()
        if "endpoint" in locals():
            endpoint.close()
        held.close()
    warning = [ln for ln in lines_by_night[0] if "WARNING" in ln]
    assert len(warning) == 1 and f"bundle {bundles[0]} is published locally but not delivered" in warning[0]
    assert [(b["kind"], b["run_id"]) for b in receiver.bodies] == [
        ("push_pending", bundles[0]), ("push_overdue", bundles[0]), ("push_pending", bundles[1])]
    assert all(b["push_url"] == push for b in receiver.bodies)
    keys = [idempotency_key(verify_bundle(data / "exports" / b)) for b in bundles[1:]]
    assert list(endpoint.stored) == keys and len(endpoint.posts) == 2  # night 2's, then night 3's, once each
    assert any(f"delivered pending bundle {bundles[1]}" in ln for ln in lines_by_night[2])
    assert not delivery.pending(data) and not list((data / "deliveries").glob("*.json"))
