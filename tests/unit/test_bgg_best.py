"""`--best` / `--recommended` beside `--players N`: one macro, marts.bgg_poll_says, answered per the poll rule."""

from __future__ import annotations


import duckdb
import pytest

from warehouse.db import SQL_DIR


@pytest.mark.parametrize(("n", "how", "says"), [
    (3, "best", True), (4, "best", False), (4, "recommended", True), (5, "recommended", False),
    (1, "best", False),
])
def test_the_macro_reads_the_lists(n: int, how: str, says: bool) -> None:
    con = duckdb.connect()
    con.execute((SQL_DIR / "macros.sql").read_text(encoding="utf-8"))
    assert con.execute("SELECT marts.bgg_poll_says([3], [2, 3, 4], ?, ?)", [n, how]).fetchall() == [(says,)]
    assert con.execute("SELECT marts.bgg_poll_says(NULL::INTEGER[], NULL::INTEGER[], 3, 'best')").fetchall() == [(None,)]
