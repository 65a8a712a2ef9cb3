"""`bodoge sql`: `.tables` lists the views analysts query too, and a file's dot commands are each
their own command beside its SQL (issue 42: they were read as one)."""

from __future__ import annotations

import io

import duckdb

from bodoge.sql_shell import run_script


def _night() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE SCHEMA marts")
    con.execute("CREATE TABLE marts.games (game_id VARCHAR)")
    con.execute("COMMENT ON TABLE marts.games IS 'Every game. More words.'")
    con.execute("CREATE VIEW marts.nights AS SELECT 1 AS night_id")
    con.execute("COMMENT ON VIEW marts.nights IS 'One row per night.'")
    return con


def test_tables_lists_the_views_with_their_descriptions() -> None:
    out = io.StringIO()
    run_script(_night(), ".tables", "csv", out)
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["marts.games", "marts.nights"]
    assert lines[1].endswith("One row per night.")


def test_a_files_dot_commands_and_statements_each_run_in_order() -> None:
    out = io.StringIO()
    run_script(_night(), ".tables\n.describe marts.games\nSELECT 41 + 1 AS answer;\n.describe marts.nights\n",
               "csv", out)
    text = out.getvalue()
    assert text.index("marts.nights") < text.index("marts.games: Every game.") < text.index("answer\n42")
    assert text.rstrip().endswith("night_id                 INTEGER")
