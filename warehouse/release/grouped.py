"""The bundle's JSONL files as DuckDB writes them: one line per member (or game), its rows in
rank order as the line's `items`.

Why a module of its own: the whole export (`warehouse.release.export`), its per-bucket parts
(`warehouse.release.bucket_export`) and the delta bundles (`warehouse.release.delta`) write
the same lines by the same `COPY`, so the parts put together are the whole file's bytes;
none of them imports another's internals.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

PER_USER_FIELDS = {"game_id": "game_id", "score": "score", "reason": "reason"}
"""A per-member list's item fields (line field: mart column), after its `rank`."""


def marts_table(con: duckdb.DuckDBPyConnection, table: str) -> str | None:
    """``marts.<table>`` if the warehouse has it (a shelf only exists from the first night
    that wrote it), else None: its file is empty."""
    exists = con.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'marts' AND table_name = ?", [table]
    ).fetchall()
    return f"marts.{table}" if exists else None


def welcome_flag(con: duckdb.DuckDBPyConnection) -> str:
    """The line field saying whether a member's list is a welcome list (schema 1.1.0's
    `welcome`); false throughout for a warehouse whose recommendations lack the column."""
    has = con.execute(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = 'recommendations' "
        "AND column_name = 'welcome'").fetchall()
    return ", coalesce(bool_or(welcome), false) AS welcome" if has else ", false AS welcome"


def write_grouped(con: duckdb.DuckDBPyConnection, source: str | None, key: str, fields: dict[str, str],
                   path: Path, *, line: str = "") -> tuple[int, int]:
    """One line per key (in key order), its rows in rank order as the list `items` of
    objects, each with its `rank` first (the site need not count, and a gap would show),
    then the aggregates `line` adds (fixed SQL, never user text); returns (lines, items).
    An absent table gives an empty file.

    Why DuckDB writes the file: the rows stay in the database engine, which streams them
    to disk within its memory limit. Reading them into Polars first (1.2 GB of lines for
    100,000 members) made the export the night's largest process (5.9–7.3 GB at the real
    site's size), growing with the members; a Python dict per row had peaked at 9.4 GB.
    """
    if source is None:
        path.write_bytes(b"")
        return 0, 0
    items = ", ".join(f"{name} := {column}" for column, name in fields.items())
    target = str(path).replace("'", "''")
    (lines,) = con.execute(
        f"COPY (SELECT {key}, list(struct_pack(rank := rank, {items}) ORDER BY rank) AS items{line} "
        f"FROM {source} GROUP BY {key} ORDER BY {key}) TO '{target}' (FORMAT json)"
    ).fetchall()[0]  # COPY returns the rows it wrote: the lines
    (rows,) = con.execute(f"SELECT count(*) FROM {source}").fetchall()[0]
    return int(lines), int(rows)
