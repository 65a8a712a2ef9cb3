"""Descriptions of every table and column, declared beside each table's SQL and written
into DuckDB as comments (`COMMENT ON TABLE/VIEW/COLUMN`).

Why in the SQL files: the file that creates a table is where a reader (and a reviewer of
a change to it) already looks, so a column cannot be added or renamed without its
description in view. Why also in the database: analysts open the published night in any
DuckDB client, and `duckdb_tables().comment` / `duckdb_columns().comment` are what those
clients show. `docs/warehouse.md` and the Dagster asset descriptions are generated from
the same text (`warehouse.dictionary`, `pipelines/defs/*/assets.py`).

The format, in `--` comment lines anywhere in a file of `warehouse/sql/{raw,staging,marts,snapshot}`::

    -- @table marts.games: what the table is, which night its rows belong to.
    --   A tag's text goes on over the next comment lines; a bare `--` line or a
    --   line of SQL ends it.
    -- @key game_id
    -- @inherit staging.stg_games
    -- @join game_id -> marts.collections
    -- @join similar_game_id -> marts.games(game_id)
    -- @column n_have: how many members set 持ってる (have), private ones included.

* `@table` (once per file) names the table the file creates and describes it.
* `@column` describes one column; `@inherit` takes the description of every column not
  described here from the same-named column of the named tables (in order), so a column
  passed through from raw is described once, where it first appears.
* `@key` names the columns that identify a row; `@join` says which columns join which
  table (its key, or the named columns).

A described column the table does not have is stale: `validate` reports it, and the
dictionary generator and the tests fail on it. Applying comments to a live warehouse
skips it (debug log) instead: a night is never failed over a description.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import duckdb

from warehouse.ddl import SQL_DIR

log = logging.getLogger("bodoge.warehouse")

DESCRIBED_FOLDERS = ("raw", "staging", "marts", "snapshot")
"""The folders of `warehouse/sql/` whose files each create one described table or view."""

_TAG = re.compile(r"^\s*--\s*@(table|column|key|inherit|join)\b\s*(.*)$")
_COMMENT = re.compile(r"^\s*--(.*)$")
_NAMED = re.compile(r"^([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)\s*:\s*(.*)$")
_JOIN = re.compile(r"^([\w\s,]+?)\s*->\s*(\w+\.\w+)\s*(?:\(([\w\s,]+)\))?\s*$")
_CREATES = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?(TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+\.\w+)", re.I)


class DescriptionError(ValueError):
    """A description source that is malformed or does not match its table (stale docs)."""


@dataclass(frozen=True, slots=True)
class Join:
    """Columns of this table that join `table` (on `to`, its same-named columns by default)."""

    columns: tuple[str, ...]
    table: str
    to: tuple[str, ...]


@dataclass(slots=True)
class TableDoc:
    """One file's descriptions: its table, kind (table/view), key, joins and columns."""

    table: str
    kind: str
    description: str
    path: Path
    key: tuple[str, ...] = ()
    inherit: tuple[str, ...] = ()
    joins: list[Join] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)

    @property
    def schema(self) -> str:
        return self.table.split(".")[0]

    @property
    def name(self) -> str:
        return self.table.split(".")[1]


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def parse_text(text: str, path: Path) -> TableDoc:
    """The descriptions of one SQL file; a DescriptionError names what is wrong and where."""
    created = _CREATES.search(text)
    if created is None:
        raise DescriptionError(f"{path.name}: creates no table or view")
    tags: list[tuple[str, str, int]] = []
    open_tag = False
    for number, line in enumerate(text.splitlines(), start=1):
        tag = _TAG.match(line)
        comment = _COMMENT.match(line)
        if tag:
            tags.append((tag[1], tag[2].strip(), number))
            open_tag = True
        elif comment and open_tag and comment[1].strip():
            kind, body, at = tags[-1]
            tags[-1] = (kind, f"{body} {comment[1].strip()}".strip(), at)
        else:
            open_tag = False
    doc: TableDoc | None = None
    rest: list[tuple[str, str, int]] = []
    for kind, body, number in tags:
        if kind == "table":
            match = _NAMED.match(body)
            if doc is not None or not match or not match[2]:
                raise DescriptionError(f"{path.name}:{number}: one `@table schema.name: description` per file")
            if match[1].lower() != created[2].lower():
                raise DescriptionError(f"{path.name}:{number}: @table names {match[1]}, the file creates {created[2]}")
            doc = TableDoc(table=match[1], kind=created[1].upper(), description=match[2], path=path)
        else:
            rest.append((kind, body, number))
    if doc is None:
        raise DescriptionError(f"{path.name}: no `-- @table {created[2]}: …` line")
    for kind, body, number in rest:
        where = f"{path.name}:{number}"
        if kind == "column":
            match = _NAMED.match(body)
            if not match or not match[2] or "." in match[1]:
                raise DescriptionError(f"{where}: expected `@column name: description`")
            if match[1] in doc.columns:
                raise DescriptionError(f"{where}: column {match[1]} is described twice")
            doc.columns[match[1]] = match[2]
        elif kind == "key":
            doc.key = _split(body)
        elif kind == "inherit":
            doc.inherit = _split(body)
        else:
            match = _JOIN.match(body)
            if not match:
                raise DescriptionError(f"{where}: expected `@join col[, col] -> schema.table[(col, …)]`")
            columns = _split(match[1])
            to = _split(match[3]) if match[3] else columns
            if len(to) != len(columns):
                raise DescriptionError(f"{where}: @join pairs {len(columns)} columns with {len(to)}")
            doc.joins.append(Join(columns, match[2], to))
    return doc


def doc_files(sql_dir: Path = SQL_DIR) -> list[Path]:
    """Every SQL file that creates a described table, folder by folder, in name order."""
    return [path for folder in DESCRIBED_FOLDERS for path in sorted((sql_dir / folder).glob("*.sql"))]


def load_docs(sql_dir: Path = SQL_DIR) -> dict[str, TableDoc]:
    """Every file's descriptions by `schema.table`, with inherited column descriptions resolved."""
    docs: dict[str, TableDoc] = {}
    for path in doc_files(sql_dir):
        doc = parse_text(path.read_text(encoding="utf-8"), path)
        if doc.table in docs:
            raise DescriptionError(f"{path.name}: {doc.table} is also described in {docs[doc.table].path.name}")
        docs[doc.table] = doc
    for doc in docs.values():
        for source in doc.inherit:
            if source not in docs:
                raise DescriptionError(f"{doc.path.name}: @inherit {source}, which no file describes")
        for join in doc.joins:
            if join.table not in docs:
                raise DescriptionError(f"{doc.path.name}: @join to {join.table}, which no file describes")
    return docs


@lru_cache(maxsize=1)
def table_docs() -> dict[str, TableDoc]:
    """The project's descriptions (`load_docs` of `warehouse/sql/`), read once per process."""
    return load_docs()


def column_description(docs: dict[str, TableDoc], table: str, column: str, _seen: frozenset[str] = frozenset()) -> str | None:
    """The column's own description, else the first inherited one, else None."""
    doc = docs.get(table)
    if doc is None or table in _seen:
        return None
    if column in doc.columns:
        return doc.columns[column]
    for source in doc.inherit:
        found = column_description(docs, source, column, _seen | {table})
        if found is not None:
            return found
    return None


def table_description(schema: str, name: str) -> str:
    """One table's description (for the orchestrator's asset descriptions)."""
    return table_docs()[f"{schema}.{name}"].description


def column_descriptions(schema: str, name: str, columns: list[str]) -> dict[str, str | None]:
    """These columns' descriptions (own or inherited; None where there is none)."""
    docs = table_docs()
    return {column: column_description(docs, f"{schema}.{name}", column) for column in columns}


def live_columns(con: duckdb.DuckDBPyConnection, database: str | None = None) -> dict[str, list[str]]:
    """Every table's and view's columns in `database` (the connection's own by default), in order."""
    return _live_columns(con, database)[0]


def _live_columns(con: duckdb.DuckDBPyConnection, database: str | None, tables: list[str] | None = None,
                  ) -> tuple[dict[str, list[str]], dict[tuple[str, str | None], str | None]]:
    """`live_columns` (of `tables` only, when named), and each column's comment: one read of
    `duckdb_columns()`, which lists the whole catalogue whatever it is asked (~4 ms on a
    night's warehouse, and a night ensures a table a hundred times)."""
    rows = con.execute(
        "SELECT schema_name || '.' || table_name AS t, column_name, comment FROM duckdb_columns() "
        "WHERE database_name = coalesce(?, current_database()) AND NOT internal "
        "AND (?::VARCHAR[] IS NULL OR list_contains(?::VARCHAR[], t)) "
        "ORDER BY schema_name, table_name, column_index",
        [database, tables, tables],
    ).fetchall()
    found: dict[str, list[str]] = {}
    for table, column, _ in rows:
        found.setdefault(table, []).append(column)
    return found, {(table, column): comment for table, column, comment in rows}


def validate(con: duckdb.DuckDBPyConnection, docs: dict[str, TableDoc] | None = None,
             database: str | None = None) -> list[str]:
    """What is wrong between the descriptions and the tables `con` holds, one line each:
    a described table or column that does not exist (stale), a column of a described
    table without a description, a key or join naming a column that does not exist."""
    docs = table_docs() if docs is None else docs
    live = live_columns(con, database)
    problems = []
    for table, doc in docs.items():
        columns = live.get(table)
        if columns is None:
            problems.append(f"{doc.path.name}: {table} does not exist")
            continue
        problems += [f"{doc.path.name}: @column {c} is not a column of {table} (stale)"
                     for c in doc.columns if c not in columns]
        problems += [f"{doc.path.name}: column {table}.{c} has no description"
                     for c in columns if column_description(docs, table, c) is None]
        problems += [f"{doc.path.name}: @key {c} is not a column of {table}" for c in doc.key if c not in columns]
        for join in doc.joins:
            problems += [f"{doc.path.name}: @join {c} is not a column of {table}" for c in join.columns
                         if c not in columns]
            problems += [f"{doc.path.name}: @join {join.table}({c}): no such column" for c in join.to
                         if c not in live.get(join.table, [])]
    return problems


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def apply_comments(con: duckdb.DuckDBPyConnection, database: str | None = None,
                   tables: list[str] | None = None) -> int:
    """Write the descriptions into `database` (the connection's own by default) as DuckDB
    comments, for every described table that exists there (or only `tables`,
    `schema.table` each); returns the comments changed.

    Call it after a table is (re)created: `CREATE OR REPLACE` and `CREATE TABLE … AS`
    into another database (the published night) start without comments. A comment that
    already says the same is left alone, so calling it after every write costs a catalogue
    read. A described column the table lacks is skipped (logged at debug level: a table
    made by hand or by an older version may lack one; `validate` and the tests fail on a
    description the SQL's own table does not have).
    """
    return _apply(con, database, tables)[0]


def describe_if_present(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """`apply_comments` for one `schema.table` of the connection's own database; False
    (and nothing written) when it has no such table or view.

    Why: `warehouse.db.ensure_table` runs ~100 times a night on tables that exist; the
    catalogue read that checks their comments answers whether they exist too, so their
    `CREATE … IF NOT EXISTS` (a write transaction, ~5 ms) is only sent for a missing one.
    """
    return table in _apply(con, None, [table])[1]


def _apply(con: duckdb.DuckDBPyConnection, database: str | None,
           tables: list[str] | None) -> tuple[int, set[str]]:
    """`apply_comments`, and which of the asked tables exist (all of them when none is asked)."""
    docs = table_docs()
    rows = con.execute(
        "SELECT current_database(), schema_name || '.' || table_name AS t, comment FROM duckdb_tables() "
        "WHERE database_name = coalesce(?, current_database()) "
        "UNION ALL SELECT current_database(), schema_name || '.' || view_name AS t, comment FROM duckdb_views() "
        "WHERE database_name = coalesce(?, current_database()) AND NOT internal",
        [database, database]).fetchall()
    db = database or (rows[0][0] if rows else "")
    current: dict[tuple[str, str | None], str | None] = {
        (t, None): comment for _, t, comment in rows if tables is None or t in tables}
    columns, comments = _live_columns(con, database, tables)
    current |= comments
    changed = 0
    for table in tables or list(docs):
        doc = docs.get(table)
        if doc is None or table not in columns:
            continue  # not described (validate reports it) or not in this database
        target = ".".join(_quote(part) for part in (db, doc.schema, doc.name))
        if current.get((table, None)) != doc.description:
            con.execute(f"COMMENT ON {doc.kind} {target} IS {_literal(doc.description)}")
            changed += 1
        for column in columns[table]:
            text = column_description(docs, table, column)
            if text is not None and current.get((table, column)) != text:
                con.execute(f"COMMENT ON COLUMN {target}.{_quote(column)} IS {_literal(text)}")
                changed += 1
        stale = [c for c in doc.columns if c not in columns[table]]
        if stale:
            log.debug("%s describes columns %s has not: %s", doc.path.name, table, ", ".join(stale))
    return changed, set(columns)


def undescribed(con: duckdb.DuckDBPyConnection, schemas: tuple[str, ...] = ("raw", "staging", "marts"),
                database: str | None = None) -> list[str]:
    """Tables, views and columns of these schemas that carry no comment in the database."""
    rows = con.execute(
        "SELECT schema_name || '.' || table_name FROM duckdb_tables() "
        "WHERE database_name = coalesce(?1, current_database()) AND list_contains(?2, schema_name) AND comment IS NULL "
        "UNION ALL SELECT schema_name || '.' || view_name FROM duckdb_views() "
        "WHERE database_name = coalesce(?1, current_database()) AND list_contains(?2, schema_name) "
        "AND NOT internal AND comment IS NULL "
        "UNION ALL SELECT schema_name || '.' || table_name || '.' || column_name FROM duckdb_columns() "
        "WHERE database_name = coalesce(?1, current_database()) AND list_contains(?2, schema_name) "
        "AND NOT internal AND comment IS NULL ORDER BY 1",
        [database, list(schemas)],
    ).fetchall()
    return [r[0] for r in rows]
