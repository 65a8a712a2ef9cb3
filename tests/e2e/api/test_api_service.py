"""The real `bodoge api` process: the address rule, the token kept out of every output, a night
published while clients hammer it (no failure, no answer mixing two nights), a graceful SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.support.api_night import api_process, copy_night, lines, publish_second_night, read_output
from tests.support.demo_night import shared_demo_night


GRACEFUL = (0, -signal.SIGTERM)
"""How a drained `bodoge api` ends on SIGTERM: uvicorn raises the signal again once the
requests in flight are done (systemd counts that as a clean stop)."""


@pytest.fixture()
def data(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return copy_night(shared_demo_night(tmp_path_factory), tmp_path / "data")


def test_a_non_loopback_address_needs_a_token(data: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_API_TOKEN")}
    refused = subprocess.run([sys.executable, "-m", "bodoge.cli", "api", "--data-dir", str(data), "--host", "0.0.0.0"],
                             capture_output=True, text=True, env=env, timeout=60)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "without a token" in refused.stderr
    missing = subprocess.run([sys.executable, "-m", "bodoge.cli", "api", "--data-dir", str(data / "nope")],
                             capture_output=True, text=True, env=env, timeout=60)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr
    engine = subprocess.run([sys.executable, "-m", "bodoge.cli", "api", "--data-dir", str(data)],
                            capture_output=True, text=True, env={**env, "BODOGE_DISCOVERY_ENGINE": "numba"}, timeout=60)
    assert engine.returncode == 2 and engine.stderr.count("\n") == 1
    assert "BODOGE_DISCOVERY_ENGINE must be compiled or reference" in engine.stderr


def test_the_token_is_required_and_appears_in_no_output(data: Path, tmp_path: Path) -> None:
    token = "tok-" + "x7" * 12
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    with api_process(data, env={"BODOGE_API_TOKEN_FILE": str(token_file)}) as (process, url):
        assert httpx.get(url + "/v1/night").status_code == 401
        user = next(iter(lines(data)))
        answer = httpx.get(f"{url}/v1/members/{user}/discovery", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200 and token not in answer.text
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        output = read_output(process)
    assert process.returncode in GRACEFUL and token not in output and user not in output


def test_a_night_published_under_load_drops_nothing_and_mixes_nothing(data: Path) -> None:
    before = lines(data)
    users = list(before)[:50]
    with api_process(data) as (process, url):
        first = httpx.get(url + "/v1/night").json()["night_id"]
        answers: list[tuple[int, str, str, list]] = []
        failures: list[str] = []
        stop = threading.Event()

        def hammer(offset: int) -> None:
            with httpx.Client(base_url=url, timeout=30) as client:
                at = offset
                while not stop.is_set():
                    user = users[at % len(users)]
                    at += 1
                    try:
                        reply = client.get(f"/v1/members/{user}/discovery?n=100")
                    except httpx.HTTPError as error:
                        failures.append(f"{type(error).__name__}: {error}")
                        continue
                    if reply.status_code != 200:
                        failures.append(f"{reply.status_code}: {reply.text[:200]}")
                        continue
                    body = reply.json()
                    answers.append((reply.status_code, body["night_id"], user, body["items"]))

        threads = [threading.Thread(target=hammer, args=(i * 7,)) for i in range(8)]
        for thread in threads:
            thread.start()
        try:
            time.sleep(0.3)  # the clients are answered by the first night
            publish_second_night(data, "second-night")
            after = lines(data)
            deadline = time.monotonic() + 30
            while httpx.get(url + "/v1/night").json()["night_id"] != "second-night":
                assert time.monotonic() < deadline, "the service did not move to the new night"
                time.sleep(0.05)
            time.sleep(0.3)  # and then by the second
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    assert not failures, failures[:5]
    nights = {night for _, night, _, _ in answers}
    assert nights == {first, "second-night"}, nights
    for _, night, user, items in answers:  # each answer whole from one night
        expected = before if night == first else after
        assert items == expected[user]["items"], f"an answer of night {night} is not that night's list"
    assert before[users[0]]["items"] != after[users[0]]["items"]


def test_sigterm_lets_the_requests_in_flight_finish(data: Path) -> None:
    """Each client's connection is open and its fold-in request sent before the SIGTERM: the
    service finishes every one (200), then exits."""
    user = next(iter(lines(data)))
    collection = [{"game_id": g["game_id"], "have": True} for g in lines(data)[user]["items"][:20]]
    clients = 6
    ready = threading.Barrier(clients + 1)
    with api_process(data) as (process, url):
        results: list[int | str] = []

        def fold() -> None:
            with httpx.Client(base_url=url, timeout=30) as client:
                client.get("/healthz")  # the connection is accepted and kept alive
                ready.wait()
                try:
                    results.append(client.post(f"/v1/members/{user}/discovery?players=9&max_minutes=5",
                                               json={"collection": collection}).status_code)
                except httpx.HTTPError as error:
                    results.append(type(error).__name__)

        threads = [threading.Thread(target=fold) for _ in range(clients)]
        for thread in threads:
            thread.start()
        ready.wait()
        time.sleep(0.1)  # the requests are read and running
        os.killpg(process.pid, signal.SIGTERM)
        for thread in threads:
            thread.join()
        process.wait(timeout=30)
    assert process.returncode in GRACEFUL
    assert results == [200] * clients, results
