"""Alerts: a failed night POSTs one JSON alert (retried if the endpoint is down), never two.

Here: the tests that start real processes; the rest of this subject:
tests/integration/test_alerts.py, tests/unit/test_alerts.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_stubs import Receiver, broken_site  # noqa: F401 - a fixture


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    r = Receiver(fail_first=1)
    yield r
    r.close()


def test_a_bad_alert_url_is_one_line_before_anything_starts(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bodoge.cli", "run", "--base-url", "http://127.0.0.1:9", "--data-dir", str(tmp_path),
         "--alert-url", "mailto:ops@example.com"],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2 and run.stderr.strip().count("\n") == 0
    assert "--alert-url: not an http(s) URL" in run.stderr
    assert not (tmp_path / "logs").exists()


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
