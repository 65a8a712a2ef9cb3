"""A published night and a released bundle in which one member has recommendations: what
the erasure tests cut that member from (unit: the writers' cuts; e2e: the readers as processes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import build_small_warehouse, create_marts
from warehouse.db import connect
from warehouse.release.export import export_bundle
from warehouse.release.publish import published_path
from warehouse.release.release import release_night


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
