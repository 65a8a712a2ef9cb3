"""The export bundle: complete, checksummed, atomically published; the push: idempotent, retried.

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/unit/test_export.py.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from core.http import Retry
from warehouse.db import connect
from warehouse.release.export import export_bundle
from warehouse.release.push import PushError, push_bundle
from tests.support.http_stubs import Receiver
from tests.support.warehouse_fixtures import make_warehouse


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    make_warehouse(tmp_path / "wh.duckdb", "run-9")
    con = connect(tmp_path / "wh.duckdb")
    path = export_bundle(con, tmp_path / "exports").path
    con.close()
    return path


def test_push_retries_with_backoff_then_delivers_once(bundle: Path) -> None:
    receiver = Receiver(fail_first=2)
    waits: list[float] = []
    try:
        result = push_bundle(bundle, receiver.url, retry=Retry(base_delay=0.5), sleep=waits.append)
        again = push_bundle(bundle, receiver.url, sleep=waits.append)
    finally:
        receiver.close()
    assert result.status == 200 and result.attempts == 3
    assert waits == [0.5, 1.0]  # exponential backoff between the failed attempts
    assert again.idempotency_key == result.idempotency_key and len(receiver.stored) == 1
    assert len(receiver.posts) == 4
    with tarfile.open(fileobj=io.BytesIO(next(iter(receiver.stored.values()))), mode="r:gz") as tar:
        sent = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    on_disk = {f"run-9/{p.relative_to(bundle).as_posix()}": p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    assert sent == on_disk and "run-9/schemas/recommendations.schema.json" in sent  # the schemas travel too


def test_push_stops_on_a_client_error_and_after_the_last_attempt(bundle: Path) -> None:
    refusing = Receiver(status=400)
    try:
        with pytest.raises(PushError, match="HTTP 400"):
            push_bundle(bundle, refusing.url, sleep=lambda s: None)
        assert len(refusing.posts) == 1
    finally:
        refusing.close()
    down = Receiver(fail_first=99)
    try:
        with pytest.raises(PushError, match="after 3 attempts"):
            push_bundle(bundle, down.url, retry=Retry(attempts=3), sleep=lambda s: None)
    finally:
        down.close()
