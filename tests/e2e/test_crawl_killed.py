"""A real crawl subprocess killed with SIGKILL mid-way: no private member left behind, run closed next time.

The member directory lists private members too; their privacy shows only when their
collection answers with the login page. The crawl below is killed after the whole
directory was seen and written item by item (batch size 1) but before most collections
were fetched, the window in which a directory row used to sit in raw.members.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.settings import Settings
from samplesite.generator import generate_site
from samplesite.server import SampleSiteServer
from scrapers.crawl_setup import child_environment
from warehouse.db import connect
from warehouse.raw import RawWriter

ROOT = Path(__file__).resolve().parents[2]
N_USERS = 150
# The real crawl entry point, with every item written at once and a slow, steady pace so
# that the kill lands between the directory and the collections.
DRIVER = """
import sys
import scrapers.crawl_child as crawl
base = crawl.crawl_settings
crawl.crawl_settings = lambda **kw: {**base(**kw), "BODOGE_BATCH_SIZE": 1, "BODOGE_PROGRESS_SECONDS": 0.2,
                                     "CONCURRENT_REQUESTS": 1, "DOWNLOAD_DELAY": 0.15}
sys.exit(crawl.main(sys.argv[1:]))
"""
_PAGES = re.compile(r"^crawl: ([\d,]+) pages")
_MEMBERS = re.compile(r"\bmember ([\d,]+)")


def crawl_until_killed(base_url: str, warehouse: Path, tmp_path: Path) -> int:
    """Start the crawl, SIGKILL it once the directory is written and ~15 collections are in."""
    cmd = [sys.executable, "-c", DRIVER,
           "--run-id", "killed-run", "--sections", "members", "--stats-file", str(tmp_path / "stats.json")]
    settings = Settings(base_url=base_url, warehouse=warehouse, data_dir=warehouse.parent)
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                            env=child_environment(settings))
    deadline = time.monotonic() + 90
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            pages, members = _PAGES.search(line), _MEMBERS.search(line)
            if pages and members and int(members.group(1).replace(",", "")) >= N_USERS \
                    and int(pages.group(1).replace(",", "")) >= 20:
                proc.send_signal(signal.SIGKILL)
                break
            assert time.monotonic() < deadline, "the crawl never reached the point to kill it"
        else:
            pytest.fail("the crawl ended before it could be killed mid-way")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        proc.stderr.close()
    return proc.returncode


def test_a_crawl_killed_mid_way_leaves_no_private_member(tmp_path: Path) -> None:
    site = generate_site(n_games=20, n_users=N_USERS, seed=11)
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(site, transient_faults=False) as server:
        base_url = server.base_url
        code = crawl_until_killed(base_url, warehouse, tmp_path)
        answered = {re.search(r"/friends/(\d+)/boardgames", t).group(1)
                    for _, t, _ in server.requests if re.search(r"/friends/(\d+)/boardgames", t)}
    assert code == -signal.SIGKILL
    private = {m.user_id: m.name for m in site.members if m.private}
    private_names = set(private.values()) - {m.name for m in site.members if not m.private}
    assert set(private) - answered, "precondition: some private member's login page never came"

    with connect(warehouse) as con:
        members = dict(con.execute("SELECT user_id, name FROM raw.members").fetchall())
        assert members, "the killed crawl wrote the members whose collection it saw"
        assert not set(members) & set(private)
        assert not set(members.values()) & private_names
        assert set(members) <= answered  # only members whose collection came back
        for table, col in (("raw.collection_entries", "user_id"), ("raw.posts", "author_user_id")):
            ids = {r[0] for r in con.execute(f"SELECT DISTINCT {col} FROM {table}").fetchall()}
            assert not ids & set(private), table
        listed = {r[0] for r in con.execute("SELECT key FROM raw.listing_crawls").fetchall()}
        assert not listed & set(private)
        assert con.execute("SELECT status FROM raw.crawl_runs").fetchall() == [("running",)]

        RawWriter(con, run_id="next-night").start_run(base_url=base_url)  # the next crawl
        runs = con.execute("SELECT run_id, status FROM raw.crawl_runs ORDER BY run_id").fetchall()
        assert runs == [("killed-run", "interrupted"), ("next-night", "running")]
