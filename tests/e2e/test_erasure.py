"""The erasure journal: a member found private leaves the published night and the bundles at once,
and a crawl that dies before the cut is finished by the next reader and the next night.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_erasure.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import build_small_warehouse, create_marts
from warehouse.db import connect
from warehouse.privacy.erasure import note, pending
from warehouse.release.export import export_bundle
from warehouse.release.publish import published_path
from warehouse.release.release import release_night

BODOGE = [sys.executable, "-m", "bodoge.cli"]
MEMBER = "17406"  # the small warehouse's public member, with a collection


def _rows_of(path: Path, user: str) -> dict[str, int]:
    """Rows naming `user` in each member column of a DuckDB file (only the non-zero ones)."""
    import duckdb

    with duckdb.connect(str(path), read_only=True) as con:
        found = {}
        for s, t, c in con.execute("SELECT schema_name, table_name, column_name FROM duckdb_columns() "
                                   "WHERE column_name IN ('user_id', 'author_user_id')").fetchall():
            n = con.execute(f"SELECT count(*) FROM {s}.{t} WHERE {c} = ?", [user]).fetchone()[0]
            if n:
                found[f"{s}.{t}"] = n
        return found


@pytest.fixture()
def night(tmp_path: Path) -> Path:
    """A data dir with a published night and a released bundle in which MEMBER has recommendations."""
    import polars as pl

    wh = tmp_path / "warehouse.duckdb"
    build_small_warehouse(wh)
    create_marts(wh, {
        "recommendations": pl.DataFrame({"user_id": [MEMBER, "500"], "rank": [1, 1], "game_id": ["khora", "khora"],
                                         "score": [0.9, 0.8], "model": ["ease"] * 2, "run_id": ["run-1"] * 2,
                                         "reason": ["人気のゲーム"] * 2}),
        "similar_games": pl.DataFrame({"game_id": ["khora"], "rank": [1], "similar_game_id": ["propolis"],
                                       "score": [0.5], "run_id": ["run-1"]}),
    })
    with connect(wh) as con:
        export_bundle(con, tmp_path / "exports")
        release_night(con, tmp_path, run_id="night-1", bundle_run_id="run-1")
    assert _rows_of(published_path(tmp_path), MEMBER)
    return tmp_path


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
