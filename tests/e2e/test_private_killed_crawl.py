"""A member found private by a crawl that is then killed leaves the published night and every bundle at once.

Why a test of its own: the warehouse forgot a private member during the crawl, but the
published night and the export bundles were cut only after the crawl had finished, so a
crawl killed in between left the member's name, collection and recommendations readable
until a later crawl finished. Here a real `bodoge run` is killed (kill -9 of its whole
process group) right after the site answered the member's collection page with the login
page, and the crawl has moved on a few pages (so it has read that page).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from samplesite.server import SampleSiteServer
from tests.support.nightly_process import FirstNight, NightlyProcess, processes_mentioning, wait_until_gone, wait_until_unlocked
from tests.support.night_checks import models_naming
from warehouse.release.publish import published_path

BODOGE = [sys.executable, "-m", "bodoge.cli"]
PAGES_AFTER = 3  # pages the crawl fetched after the login page before the kill


def _members_in(path: Path) -> dict[str, set[str]]:
    """Every member id in each member column of a DuckDB file, read directly (not through a reader path)."""
    with duckdb.connect(str(path), read_only=True) as con:
        columns = con.execute("SELECT schema_name, table_name, column_name FROM duckdb_columns() "
                              "WHERE column_name IN ('user_id', 'author_user_id')").fetchall()
        return {f"{s}.{t}.{c}": {r[0] for r in con.execute(f"SELECT DISTINCT {c} FROM {s}.{t}").fetchall()}
                for s, t, c in columns}


def _bundle_users(exports: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for bundle in sorted(p for p in exports.iterdir() if p.is_dir()):
        for file in bundle.glob("*.jsonl"):
            found[f"{bundle.name}/{file.name}"] = {
                str(json.loads(line).get("user_id")) for line in file.read_text(encoding="utf-8").splitlines()}
    return found


def _kill_after_login_page(run: NightlyProcess, server: SampleSiteServer, user: str, timeout: float = 240) -> None:
    """kill -9 the night once `user`'s collection answered and PAGES_AFTER more pages were fetched."""
    page = re.compile(rf"^/friends/{user}/boardgames\b")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert run.proc.poll() is None, "the night ended before it could be killed mid-crawl"
        log = list(server.requests)
        hits = [i for i, (_, target, _) in enumerate(log) if page.match(target)]
        if hits and len(log) - hits[0] - 1 >= PAGES_AFTER:
            # The crawler runs in a process group of its own: kill -9 it first (no graceful
            # stop), then the night's group, so no code of the night runs after this instant.
            for pid in processes_mentioning(f"--stats-file {run.data_dir}"):  # the crawler's command line
                os.kill(pid, signal.SIGKILL)
            run.kill_group()
            run.proc.wait(timeout=30)
            assert not wait_until_gone(str(run.data_dir), timeout=10)
            wait_until_unlocked(run.data_dir / "warehouse.duckdb")  # the killed still let go of it
            return
        time.sleep(0.02)
    pytest.fail(f"member {user}'s collection page was never fetched")


def test_a_member_found_private_by_a_killed_crawl_is_gone_from_the_published_night_and_exports(
    crash_night: FirstNight,
) -> None:
    data, server = crash_night.data, crash_night.server
    site = server.site
    before = _members_in(published_path(data))
    shown = set.intersection(*(before[k] for k in ("marts.members.user_id", "marts.collections.user_id",
                                                     "marts.recommendations.user_id")))
    gone = sorted(shown)[0]
    assert any(gone in users for users in _bundle_users(data / "exports").values())

    # Tonight the member's collection is private; a slow site keeps the crawl going after it.
    server.site = dataclasses.replace(site, members=tuple(
        dataclasses.replace(m, private=True) if m.user_id == gone else m for m in site.members))
    server.crawl_delay = 0.2
    server.requests.clear()
    night = NightlyProcess(data, server.base_url)
    _kill_after_login_page(night, server, gone)

    con = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM raw.crawl_runs WHERE status = 'running'").fetchone()[0] == 1
    finally:
        con.close()  # precondition: the crawl was killed mid-way, its run still open

    after = _members_in(published_path(data))
    assert {table for table, users in after.items() if gone in users} == set()
    assert after["marts.members.user_id"] == before["marts.members.user_id"] - {gone}
    assert {file for file, users in _bundle_users(data / "exports").items() if gone in users} == set()
    assert models_naming(data / "models", gone) == []  # the models' files too, champion included
    assert not (data / "erasures.pending").exists()  # the cut is done: the id is written nowhere any more

    done = subprocess.run([*BODOGE, "collection", gone, "--data-dir", str(data)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "unknown user" in done.stderr, done.stderr
