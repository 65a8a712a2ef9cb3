"""exports/LATEST and published.duckdb name the same night, whatever step a night is killed at.

Why: LATEST used to move when the bundle was written, before the published night; a night
killed (or out of disk) at publish left the site on a night the readers never saw. Real
`bodoge run` processes are killed with kill -9 of their whole process group: right after
the export step, and, through the test hook BODOGE_TEST_PAUSE_AT, between the two
os.replace calls (published.duckdb replaced, LATEST not yet); the next night repairs at
start-up and publishes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.support.nightly_process import FirstNight, NightlyProcess

ROOT = Path(__file__).resolve().parents[2]


def _released(data: Path) -> tuple[str | None, str | None]:
    """(the bundle the published night names, the bundle LATEST names)."""
    with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
        named = con.execute("SELECT export_run_id FROM marts.publication").fetchone()[0]
    latest = data / "exports" / "LATEST"
    return named, latest.read_text(encoding="utf-8").strip() if latest.exists() else None


def _bundles(data: Path) -> set[str]:
    return {p.name for p in (data / "exports").iterdir() if p.is_dir() and not p.name.startswith(".")}


def _killed_at(data: Path, url: str, line_starts: str, pause: str | None = None) -> list[str]:
    env = {"BODOGE_TEST_PAUSE_AT": pause} if pause else None
    run = NightlyProcess(data, url, env=env)
    run.wait_for(lambda ln: ln.startswith(line_starts), timeout=300)
    run.kill_group()
    run.finish(timeout=60)
    return run.lines


def test_latest_and_the_published_night_move_together_and_a_killed_release_is_repaired(
    crash_night: FirstNight,
) -> None:
    data, site_url = crash_night.data, crash_night.url
    night_1, latest = _released(data)
    assert night_1 == latest and _bundles(data) == {night_1}

    # Killed right after the bundle was written: the site and the readers both stay on night 1.
    _killed_at(data, site_url, "nightly: done export__site_bundle", pause="publish")
    assert _released(data) == (night_1, night_1)
    unreleased = _bundles(data) - {night_1}
    assert len(unreleased) == 1  # written, never named

    # Killed between the two replaces: published.duckdb is night 3, LATEST still night 1.
    lines = _killed_at(data, site_url, "nightly: paused at latest", pause="latest")
    assert any(f"removed export bundle {next(iter(unreleased))}" in ln for ln in lines)  # repaired at start-up
    night_3, latest = _released(data)
    assert latest == night_1 and night_3 not in (None, night_1) and night_3 in _bundles(data)

    # The next night points LATEST at night 3 before anything else, then publishes night 4.
    night = NightlyProcess(data, site_url)
    night.wait_for(lambda ln: f"LATEST now names {night_3}" in ln, timeout=120)
    code, lines = night.finish(timeout=400)
    assert code == 0, "\n".join(lines[-10:])
    night_4, latest = _released(data)
    assert night_4 == latest and night_4 not in (night_1, night_3)
    assert _bundles(data) == {night_1, night_3, night_4}


@pytest.mark.parametrize("step", ["publish", "latest", "prune"])
def test_a_release_killed_at_any_step_is_repaired_by_the_next_start(tmp_path: Path, step: str) -> None:
    """The release alone, in a real process killed with kill -9 at each step; then the start-up repair."""
    from tests.support.warehouse_fixtures import make_warehouse
    from warehouse.db import connect
    from warehouse.release.export import export_bundle
    from warehouse.release.release import release_night, repair_release

    wh = tmp_path / "warehouse.duckdb"
    for run in ("run-1", "run-2"):
        make_warehouse(wh, run)
        with connect(wh) as con:
            export_bundle(con, tmp_path / "exports")
            if run == "run-1":
                release_night(con, tmp_path, run_id="night-1", bundle_run_id="run-1")
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from warehouse.db import connect; "
         "from warehouse.release.release import release_night; con = connect(sys.argv[1]); "
         "release_night(con, Path(sys.argv[2]), run_id='night-2', bundle_run_id='run-2')", str(wh), str(tmp_path)],
        cwd=ROOT, env={**os.environ, "BODOGE_TEST_PAUSE_AT": step}, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    assert f"paused at {step}" in child.stderr.readline()
    child.kill()
    child.wait(timeout=30)
    child.stderr.close()
    expected = {"publish": ("run-1", "run-1"), "latest": ("run-2", "run-1"), "prune": ("run-2", "run-2")}[step]
    assert _released(tmp_path) == expected  # the state kill -9 left (between the two replaces for `latest`)
    said = repair_release(tmp_path)
    named, latest = _released(tmp_path)
    assert named == latest == ("run-1" if step == "publish" else "run-2"), said
    assert _bundles(tmp_path) == ({"run-1"} if step == "publish" else {"run-1", "run-2"})
    assert repair_release(tmp_path) == []  # nothing left to repair
