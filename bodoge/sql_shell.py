"""`bodoge sql`: the analysts' read-only SQL shell on the published night.

Why our own shell: the warehouse is written by DuckDB 2.0 (storage version 69), and the
DuckDB shell a fresh clone can install (PyPI's `duckdb-cli` 1.5.6) refuses such a file
("can only read versions between 64 and 68"). This one runs on the project's own DuckDB,
so it reads whatever the night wrote.

Why sealed: it opens `DATA_DIR/published.duckdb` (or `--db FILE`) read-only and with
`enable_external_access = false`, which DuckDB will not let a statement turn back on. So
no statement can write the file, ATTACH the night's warehouse (an open reader there makes
the night fail), or read and write other files: to keep a result, use `--format csv` and
redirect it. Temporary tables and `SET VARIABLE` still work (they live in memory). The
configuration is locked (`lock_configuration`): a statement cannot turn on logging to a
file, profiling output or anything else the shell did not choose; DuckDB's own
`PermissionException` from `CALL enable_logging(storage='file', …)` aborted the process
(rc 134, no `bodoge:` line) before it was locked.

Every failure (SQL, a missing file, a write) is one line `bodoge: error: …`: exit 2 for a
command, the line then the next prompt for the interactive shell.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

FORMATS = ("table", "csv", "json")
TABLE_ROWS = 1000  # a table beyond this is cut (with a note); csv and json print every row
BATCH = 10_000
# Statements whose result is the answer; others (SET, CREATE TEMP …) print nothing on success.
SHOWN_TYPES = frozenset({"SELECT", "PRAGMA", "EXPLAIN", "CALL", "EXECUTE", "RELATION"})
HISTORY_NAME = ".bodoge_sql_history"  # in the home folder, as other shells keep theirs
HELP = """\
Statements end with ;  Commands:
  .tables              the tables and views of the night, with what each holds
  .schema TABLE        a table's columns, types and descriptions (also .describe)
  .format table|csv|json
  .help                this text
  .quit                leave (also Ctrl-D)
The data dictionary is docs/warehouse.md; worked queries are in docs/analysts.md."""


class SqlError(Exception):
    """A statement or command the shell could not run, as one line."""


def register_sql(sub: Any) -> None:
    from bodoge.args import setting_flag

    p = sub.add_parser("sql", help="a read-only SQL shell on the published night (analysts)")
    p.add_argument("query", nargs="?", metavar="QUERY",
                   help="SQL to run (or a .command); without it: -f FILE, SQL on stdin, or an interactive prompt")
    p.add_argument("-f", "--file", help="run the SQL in this file")
    p.add_argument("--db", metavar="PATH", help="a DuckDB file to read instead of DATA_DIR/published.duckdb "
                   "(a backup, a copy); never the warehouse the night writes")
    setting_flag(p, "data_dir", help="where the published night lives (env BODOGE_DATA_DIR, default ./data)")
    p.add_argument("--format", default="table", choices=FORMATS, help="how results print (default table)")
    p.set_defaults(handler=cmd_sql)


def cmd_sql(args: argparse.Namespace) -> int:
    if args.query is not None and args.file is not None:
        raise ValueError("give either QUERY or -f FILE, not both")
    script = args.query
    if args.file is not None:
        script = Path(args.file).read_text(encoding="utf-8")
    elif script is None and not sys.stdin.isatty():
        script = sys.stdin.read()
    con = open_night(args)
    try:
        if script is None:
            return interactive(con, args.format, night_banner(con, args))
        run_script(con, script, args.format, sys.stdout)
    finally:
        con.close()
    return 0


def night_path(args: argparse.Namespace) -> Path:
    """`--db PATH`, else the published night (as every reader: `warehouse.readers.require_published`).

    The warehouse the night writes is refused by name: a reader holding it open makes the
    next night fail, and the published night holds every mart of it.
    """
    from core.config import resolve_paths
    from warehouse.readers import require_published

    paths = resolve_paths(data_dir=args.data_dir)
    if args.db is None:
        return require_published(paths.data_dir)
    path = Path(args.db).resolve()
    if not path.is_file():
        raise FileNotFoundError(2, "no such file", str(args.db))
    from ops.lock import LOCK_NAME
    from warehouse.release.publish import PUBLISHED_NAME

    night_writes = (path.parent / LOCK_NAME).exists() and path.name != PUBLISHED_NAME  # any data dir's, not only ours
    if night_writes or path == paths.warehouse or (paths.warehouse.exists() and path.samefile(paths.warehouse)):
        data_dir = path.parent if night_writes else paths.data_dir
        raise SqlError(f"{args.db} is the warehouse the night writes: open the published night instead "
                       f"(bodoge sql --data-dir {data_dir} reads {data_dir / PUBLISHED_NAME})")
    return path


def open_night(args: argparse.Namespace) -> Any:
    """The night's file, read-only and without access to any other file."""
    from warehouse.readers import open_reader

    con = open_reader(night_path(args), config={"enable_external_access": False})  # honours the erasure journal
    con.execute("SET lock_configuration = true")
    return con


def night_banner(con: Any, args: argparse.Namespace) -> str:
    """What the interactive shell says first: which night, read-only, how to get help."""
    from warehouse.release.publish import publication

    night = publication(con)
    which = (f"night {night['run_id']}, published {night['published_at']:%Y-%m-%d %H:%M} UTC"
             if night else "not a published night")
    return f"bodoge sql: {con.execute('PRAGMA database_list').fetchall()[0][2]} ({which}), read-only.\n{HELP}"


def run_script(con: Any, script: str, fmt: str, out: TextIO) -> None:
    """Run every statement and dot command of `script` in order, printing each answer.

    A dot command is a line of its own, outside a statement (after a `;`, or first); each is
    run alone, so `.tables` then `.describe marts.games` in one file are two commands, not one."""
    segments: list[str] = []
    buffer: list[str] = []
    for line in script.splitlines():
        pending = "\n".join(buffer).strip()
        if line.strip().startswith(".") and (not pending or pending.endswith(";")):
            if pending:
                segments.append(pending)
            buffer = []
            segments.append(line.strip())
        else:
            buffer.append(line)
    if "\n".join(buffer).strip():
        segments.append("\n".join(buffer))
    if not segments:
        raise SqlError("no SQL statement given")
    for segment in segments:
        if segment.startswith("."):
            out.write(dot_command(con, segment))
        else:
            _run_sql(con, segment, fmt, out)


def _run_sql(con: Any, script: str, fmt: str, out: TextIO) -> None:
    """Every SQL statement of `script`, in order, each answer printed."""
    import duckdb

    from warehouse.db import first_line

    try:
        statements = con.extract_statements(script)
    except duckdb.Error as exc:
        raise SqlError(_message(first_line(exc))) from None
    if not statements:
        raise SqlError("no SQL statement given")
    for statement in statements:
        try:
            cursor = con.execute(statement)
            if statement.type.name in SHOWN_TYPES and cursor.description is not None:
                write_result(cursor, fmt, out)
        except duckdb.Error as exc:
            raise SqlError(_message(first_line(exc))) from None


def _message(line: str) -> str:
    """DuckDB's first line, plus what the refusals mean here."""
    if "read-only mode" in line:
        return f"the night is read-only: {line}"
    if "disabled by configuration" in line:
        return f"this shell reads the night's file only (use --format csv > FILE to keep a result): {line}"
    if "configuration has been locked" in line:
        return f"this shell's settings are fixed (it reads the night, read-only): {line}"
    return line


def write_result(cursor: Any, fmt: str, out: TextIO) -> None:
    """One statement's answer as a table, CSV (header first) or a JSON array of objects."""
    columns = [d[0] for d in cursor.description]
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in _rows(cursor):
            writer.writerow(["" if v is None else _plain(v) for v in row])
    elif fmt == "json":
        out.write("[")
        for i, row in enumerate(_rows(cursor)):
            out.write(("," if i else "") + json.dumps(dict(zip(columns, row)), ensure_ascii=False, default=_json))
        out.write("]\n")
    else:
        _print_table(cursor, columns, out)


def _print_table(cursor: Any, columns: list[str], out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    from bodoge.display import text

    rows = cursor.fetchmany(TABLE_ROWS + 1)
    table = Table(title_justify="left")
    for column in columns:
        table.add_column(text(column), overflow="fold")
    for row in rows[:TABLE_ROWS]:  # values are text, never Rich markup (a title `[/]…` is a title)
        table.add_row(*(text("NULL" if v is None else _plain(v)) for v in row))
    more = f"first {TABLE_ROWS:,} rows shown; --format csv prints all" if len(rows) > TABLE_ROWS else ""
    table.caption = more or f"{len(rows)} row{'' if len(rows) == 1 else 's'}"
    Console(file=out, soft_wrap=False, width=None if out.isatty() else 200).print(table)


def _rows(cursor: Any) -> Iterator[tuple]:
    while batch := cursor.fetchmany(BATCH):
        yield from batch


def _plain(value: Any) -> str:
    """A value as text: lists and structs as JSON, the rest as DuckDB would print it."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=_json)
    return str(value)


def _json(value: Any) -> Any:
    """JSON for what json cannot say: exact sums as numbers, times and the rest as text."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return str(value)


def dot_command(con: Any, line: str) -> str:
    """`.tables`, `.schema TABLE` / `.describe TABLE`, `.help`: their text."""
    name, _, rest = line.partition(" ")
    rest = rest.strip().rstrip(";").strip()
    if name == ".help":
        return HELP + "\n"
    if name == ".tables":  # and the views (marts.nights, marts.model_quality, …: the cookbook reads them)
        rows = con.execute(
            "SELECT name, comment FROM (SELECT schema_name, schema_name || '.' || table_name AS name, "
            "coalesce(comment, '') AS comment FROM duckdb_tables() WHERE database_name = current_database() "
            "UNION ALL SELECT schema_name, schema_name || '.' || view_name, coalesce(comment, '') FROM duckdb_views() "
            "WHERE database_name = current_database() AND NOT internal) ORDER BY schema_name <> 'marts', name"
        ).fetchall()
        return "".join(f"{table:<28} {_first_sentence(comment)}\n" for table, comment in rows)
    if name in (".schema", ".describe"):
        if not rest:
            raise SqlError(f"{name} needs a table, e.g. {name} marts.games")
        return _describe(con, rest)
    raise SqlError(f"unknown command {name} (.help lists them)")


def _describe(con: Any, table: str) -> str:
    schema, _, name = table.rpartition(".")
    rows = con.execute(
        "SELECT schema_name, column_name, data_type, coalesce(comment, '') FROM duckdb_columns() "
        "WHERE database_name = current_database() AND table_name = ? AND (? = '' OR schema_name = ?) "
        "ORDER BY schema_name <> 'marts', column_index", [name, schema, schema]).fetchall()
    if not rows:
        raise SqlError(f"no table {table} in this night (.tables lists them)")
    schema = rows[0][0]
    comment = con.execute("SELECT coalesce(comment, '') FROM duckdb_tables() WHERE database_name = "
                          "current_database() AND schema_name = ? AND table_name = ?", [schema, name]).fetchall()
    lines = [f"{schema}.{name}: {comment[0][0] if comment else ''}".rstrip(), ""]
    lines += [f"  {column:<24} {dtype:<26} {text}" for s, column, dtype, text in rows if s == schema]
    return "\n".join(lines) + "\n"


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return head + dot.strip() if len(head) < 140 else head[:139] + "…"


def interactive(con: Any, fmt: str, banner: str) -> int:
    """The prompt: statements end at `;`, `.commands` on a line of their own; errors do not end it."""
    from ops.errors import fail, one_line

    save_history = _start_history()
    print(banner)
    buffer: list[str] = []
    while True:
        try:
            line = input("   ...> " if buffer else "bodoge> ")
        except EOFError:
            print()
            break
        except KeyboardInterrupt:  # Ctrl-C drops the statement being typed
            print()
            buffer = []
            continue
        if not buffer and line.strip() in (".quit", ".exit", ".q"):
            break
        try:
            if not buffer and line.strip().startswith(".format"):
                fmt = _set_format(line, fmt)
            elif not buffer and line.strip().startswith("."):
                sys.stdout.write(dot_command(con, line.strip()))
            else:
                buffer.append(line)
                if line.rstrip().endswith(";"):
                    script, buffer = "\n".join(buffer), []
                    run_script(con, script, fmt, sys.stdout)
        except KeyboardInterrupt:
            print("\nbodoge: interrupted", file=sys.stderr)
        except Exception as exc:  # noqa: BLE001 - one line, then the next prompt
            fail(one_line(exc), 2)
        sys.stdout.flush()
    save_history()
    return 0


def _set_format(line: str, fmt: str) -> str:
    wanted = line.strip().removeprefix(".format").strip().rstrip(";").strip()
    if wanted not in FORMATS:
        raise SqlError(f".format takes one of {', '.join(FORMATS)} (now {fmt})")
    return wanted


def _start_history() -> Any:
    """Load readline's history (when there is readline); returns what saves it on the way out."""
    try:
        import readline
    except ImportError:
        return lambda: None
    history = Path.home() / HISTORY_NAME
    try:
        readline.read_history_file(history)
    except OSError:
        pass
    readline.set_history_length(1000)

    def save() -> None:
        try:
            readline.write_history_file(history)
        except OSError:
            pass

    return save
