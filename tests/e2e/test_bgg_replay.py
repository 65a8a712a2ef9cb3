"""The BGG replay server: real HTTP answers from the project's fixtures (and ../shared/bgg-xml when present).

Here: the tests that start real processes; the rest of this subject:
tests/integration/test_bgg_replay.py.
"""

from __future__ import annotations

import urllib.error
import urllib.request



TOKEN = "replay-test-token-3f9a"


def _get(url: str, *, token: str | None = TOKEN) -> tuple[int, bytes, dict[str, str]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as resp:
            return resp.status, resp.read(), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


def test_bodoge_bgg_replay_serves_until_stopped(tmp_path) -> None:  # noqa: ANN001
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_BGG")} | {"BODOGE_BGG_TOKEN": TOKEN}
    proc = subprocess.Popen([sys.executable, "-m", "bodoge.cli", "bgg", "replay", "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/xmlapi2" in first and TOKEN not in first
        status, body, _ = _get(f"http://127.0.0.1:{port}/xmlapi2/thing?id=900002")
        assert status == 200 and b"River Traders" in body
    finally:
        proc.terminate()
        proc.wait(timeout=10)
