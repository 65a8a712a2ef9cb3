"""Game night (`recommend --group`) and play next (`recommend --owned-unplayed`) on a demo warehouse.

Here: the tests that start real processes; the rest of this subject:
tests/integration/test_discovery_modes.py.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.discovery_warehouse import shared_discovery_warehouse


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return shared_discovery_warehouse(tmp_path_factory)  # read only; a test that writes copies it


def test_group_from_a_real_process(demo: dict) -> None:
    users = demo["collections"].get_column("user_id").unique().sort().to_list()
    run = subprocess.run(
        [sys.executable, "-m", "bodoge.cli", "recommend", "--group", f"{users[0]},{users[1]}", "-n", "3",
         "--data-dir", str(demo["paths"].data_dir)],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert run.returncode == 0, run.stderr
    assert "のゲーム会" in run.stdout and "brought by" in run.stdout
