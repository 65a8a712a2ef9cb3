"""The erasure journal: a member found private leaves the published night and the bundles at once,
and a crawl that dies before the cut is finished by the writers (the crawl's parent, the next
night); readers never write.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_erasure.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from warehouse.privacy.erasure import note, pending
from warehouse.release.publish import published_path
from tests.support.erasure_night import MEMBER, _rows_of, night  # noqa: F401 - night is a fixture

BODOGE = [sys.executable, "-m", "bodoge.cli"]


def _file_state(path: Path) -> tuple[str, int, int]:
    """A file's sha256, mtime and inode: a rewrite (even to the same bytes) or a swap changes one."""
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns, path.stat().st_ino


def test_no_reader_writes_the_published_night_even_with_an_erasure_pending(night: Path) -> None:
    """Issue 38: every reader opened the published night through a path that first cut the
    members the journal names, rewriting the file. Readers never write: the CLI's readers,
    the dashboard and the alerts leave the file and the journal as they are."""
    from dashboards.ui import Warehouse
    from pipelines.alerts import published_at
    from warehouse.readers import open_published

    note(night, [MEMBER])  # what the crawl writes the moment it reads the login page, then kill -9
    before = _file_state(published_path(night))
    done = subprocess.run([*BODOGE, "collection", "500", "--data-dir", str(night)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    open_published(night).close()
    assert published_at(night)[0] == "night-1"  # the freshness alert's read
    Warehouse(published_path(night)).close()
    assert _file_state(published_path(night)) == before
    assert pending(night) == {MEMBER}  # the writers' to cut (the crawl's parent, the next night)


def test_readers_on_a_read_only_mount_leave_out_the_journals_members_and_answer_everyone_else(
        night: Path, tmp_path: Path) -> None:  # noqa: F811 - a fixture
    """Issue 39 (cases 6 and 7): with an erasure pending (the crawl, its parent and the supervisor
    all killed between the journal's line and the cut), readers showed the member; a reader that
    may not write the data dir failed for everyone. Now every reader leaves out the journal's
    members, read-only, on a read-only mount of the data dir, `bodoge sql --db` on its
    published night included, and answers everyone else."""
    import pytest

    note(night, [MEMBER])
    before = _file_state(published_path(night))
    ro = tmp_path / "ro"
    ro.mkdir()
    made = subprocess.run(["mount", "--bind", "-o", "ro", str(night), str(ro)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot make a read-only bind mount here: {made.stderr.strip()}")
    try:
        assert subprocess.run(["touch", str(ro / "probe")], capture_output=True).returncode != 0  # really read-only

        def bodoge(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run([*BODOGE, *args], capture_output=True, text=True, timeout=60)

        for command in (["collection", MEMBER], ["recommend", MEMBER]):
            done = bodoge(*command, "--data-dir", str(ro))
            assert done.returncode != 0 and done.stdout == "", (command, done.stdout)
            assert done.stderr.count("\n") == 1 and "unknown user" in done.stderr, done.stderr
        done = bodoge("collection", "500", "--data-dir", str(ro))
        assert done.returncode == 0 and done.stdout, done.stderr
        count = f"SELECT count(*) FROM marts.members WHERE user_id = '{MEMBER}'"
        for where in (["--data-dir", str(ro)], ["--db", str(ro / "published.duckdb")]):
            done = bodoge("sql", count, "--format", "csv", *where)
            assert done.returncode == 0 and done.stdout.splitlines()[1] == "0", (where, done.stderr, done.stdout)
        done = bodoge("sql", "SELECT count(*) FROM marts.members", "--format", "csv", "--data-dir", str(ro))
        assert int(done.stdout.splitlines()[1]) > 0
        done = bodoge("sql", f"ATTACH '{ro / 'published.duckdb'}' AS again", "--data-dir", str(ro))
        assert done.returncode == 2  # the copy is as sealed as the file: no way round it to the file
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)
    assert _file_state(published_path(night)) == before
    assert pending(night) == {MEMBER}  # readers never settle it: the next night's writer does
