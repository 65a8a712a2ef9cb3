"""`bodoge similar`, `collection --max-minutes`, trimmed ids, the summary's counts and the
sample site that continues the demo's, on a demo warehouse (`tests/support/discovery_warehouse.py`).

Here: the tests that start real processes; the rest of this subject:
tests/integration/test_member_commands.py, tests/unit/test_member_commands.py.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import polars as pl
import pytest

from bodoge.demo import record_site
from tests.support.discovery_warehouse import shared_discovery_warehouse


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return shared_discovery_warehouse(tmp_path_factory)  # read only; a test that writes copies it


def test_similar_of_an_unknown_game_is_one_line_exit_2(demo: dict) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bodoge.cli", "similar", "no-such-game", "--data-dir", str(demo["paths"].data_dir)],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == "bodoge: error: unknown game 'no-such-game': no game with that id in the warehouse\n"


# -- bodoge site serve continues the demo's site ---------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_site_truth_follows_the_demos_note_and_flags_win(tmp_path: Path) -> None:
    data = tmp_path / "data"
    record_site(data, {"games": 40, "users": 60, "seed": 5, "faults": True, "port": _free_port()})

    def truth(*flags: str) -> pl.DataFrame:
        out = tmp_path / "-".join(flags or ("note",))
        run = subprocess.run([sys.executable, "-m", "bodoge.cli", "site", "truth", "--night", "2", "--out", str(out),
                              *flags], capture_output=True, text=True, encoding="utf-8")
        assert run.returncode == 0, run.stderr
        return pl.read_parquet(out / "games.parquet").sort("game_id")

    from_note = truth("--data-dir", str(data))
    stated = truth("--games", "40", "--users", "60", "--seed", "5")
    assert from_note.equals(stated)
    assert not truth("--data-dir", str(data), "--seed", "6").equals(stated)  # a flag wins over the note


def test_site_serve_after_the_demo_serves_the_demos_site_at_its_address(tmp_path: Path) -> None:
    data = tmp_path / "data"
    port = _free_port()
    record_site(data, {"games": 40, "users": 60, "seed": 5, "faults": False, "port": port})
    server = subprocess.Popen([sys.executable, "-m", "bodoge.cli", "site", "serve", "--night", "2",
                               "--data-dir", str(data)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, encoding="utf-8")
    try:
        first = server.stdout.readline()
        assert f"40 games, 60 members, seed 5, from the site `bodoge demo` served in {data}" in first
        assert f"night 2, on http://127.0.0.1:{port}" in first
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/robots.txt", timeout=5) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, server.stderr.read()
                time.sleep(0.3)
    finally:
        server.terminate()
        server.wait(timeout=10)
