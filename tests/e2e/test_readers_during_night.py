"""Readers are never blocked by the night: member commands answer all through a real `bodoge run`."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


from tests.support.nightly_process import FirstNight, NightlyProcess
from warehouse.release.publish import publication
from warehouse.readers import open_published


BODOGE = [sys.executable, "-m", "bodoge.cli"]


def _published_run(data: Path) -> str:
    con = open_published(data)
    try:
        return publication(con)["run_id"]
    finally:
        con.close()


def test_member_commands_answer_all_through_a_nightly_run(crash_night: FirstNight) -> None:
    data, site_url = crash_night.data, crash_night.url  # a published first night, a `bodoge run` before
    night_1 = _published_run(data)
    con = open_published(data)
    try:
        user = con.execute("SELECT user_id FROM marts.recommendations ORDER BY user_id LIMIT 1").fetchall()[0][0]
    finally:
        con.close()
    calls = [["recommend", user, "-n", "5", "--json"], ["collection", user, "--json"], ["cafes", user, "--json"]]

    night = NightlyProcess(data, site_url)
    failures: list[str] = []
    polls = 0
    while night.proc.poll() is None:
        for call in calls:
            done = subprocess.run([*BODOGE, *call, "--data-dir", str(data)], capture_output=True, text=True,
                                  timeout=60)
            polls += 1
            if done.returncode != 0 or not done.stdout.startswith("["):
                failures.append(f"{call[0]}: {done.stderr.strip()}")
        time.sleep(0.2)
    code, lines = night.finish()
    assert code == 0, "\n".join(lines[-10:])
    assert polls >= 9, f"only {polls} calls during the night"
    assert failures == [], failures
    assert _published_run(data) != night_1  # the second night was published when it succeeded
