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
