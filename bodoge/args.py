"""Argument types and the parser class of the `bodoge` command line.

Why a module of its own: every command that takes a count (`crawl --max-pages`,
`run --max-pages`, ...) must refuse 0 and negatives the same way, and a bad flag must end
in the same one line as any other bad input (`bodoge: error: ...`), not argparse's usage
block. Nothing here imports Scrapy, Polars or DuckDB at load time: building the parser stays
instant. The `--data-dir`/`--warehouse` pair and opening that warehouse live here too,
shared by every command that reads it. A flag that sets one of the `core.settings` fields
is declared with `setting_flag`: its check, help and variable come from that field, and it
has no default of its own (`Settings.load` falls back to the variable, then the default).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from core.settings import SettingError, default, spec
from ops.errors import error_line


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit code 2.

    Why: operators and the nightly job's log read the last line of a failed command; the
    usage block argparse prints first pushes the reason off the screen. `--help` still
    shows the full usage.
    """

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("bodoge").strip()
        where = f" (see `bodoge {command} --help`)" if command else " (see `bodoge --help`)"
        self.exit(2, error_line(f"{message}{where}") + "\n")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1.

    Why: `--max-pages 0` used to mean "no limit" through a falsy check; a budget of 0 or
    -1 is a typo, never a request for an unlimited crawl.
    """
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def an_id(text: str) -> str:
    """An argparse type: one id (a member, a game, a cafe's slug), whitespace trimmed.

    Why: ids are pasted from a spreadsheet or a page (`" 41256"`, `"41256　"` with a
    full-width space); untrimmed, the warehouse answered "unknown user ' 41256'" for a
    member it holds. Every command that takes an id reads it through here, once.
    """
    value = _text(text).strip()
    if not value:
        raise argparse.ArgumentTypeError(f"an id cannot be empty, got {text!r}")
    return value


def _text(text: str) -> str:
    """``text`` when it is valid Unicode; else an argparse error.

    Why: bytes that are not UTF-8 on the command line (a broken shell substitution, a
    Latin-1 terminal) reach Python as lone surrogates; an id holding one was passed on
    to DuckDB, whose error ("cannot encode ... surrogates not allowed") did not say
    which argument was wrong, nor why."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:  # the bytes as typed (surrogateescape gives them back), shown escaped
            shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # a surrogate that stands for no byte
            shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
        raise argparse.ArgumentTypeError(f"not valid UTF-8 text (a broken shell substitution?): {shown}") from None
    return text


def comma_list(text: str) -> list[str]:
    """An argparse type: a non-empty comma-separated list (`a,b,c`), each item trimmed, blanks dropped.

    Why: `--sections ''` used to crawl nothing and report success; an empty list is
    always a mistake on the command line. `--group "41256, 10130"` is two ids, not one
    with a leading space. Which names are valid is the command's to say.
    """
    items = [part.strip() for part in _text(text).split(",") if part.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"needs at least one name, got {text!r}")
    return items



def port_number(text: str) -> int:
    """An argparse type: a TCP port, 1–65535."""
    value = positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"not a TCP port (1-65535): {value}")
    return value


def setting_flag(p: argparse.ArgumentParser, name: str, **kwargs: Any) -> None:
    """The flag of the setting `name` (`core.settings`), checked by that setting's own check.

    Its value is None when not given, so `Settings.load(args)` can tell a flag from the
    variable and the default; a bad value is argparse's one line (`argument --flag: …`).
    """
    setting = spec(name)
    assert setting.flag, f"the setting {name} has no flag"
    fallback = default(name)
    shown = setting.derived if fallback is None else None if isinstance(fallback, bool) else \
        f"{fallback:g}" if isinstance(fallback, float) else str(fallback)
    shown = f", default {shown}" if shown else ""
    kwargs.setdefault("help", f"{setting.help} (env {setting.env}{shown})")
    if isinstance(fallback, bool):
        p.add_argument(setting.flag, dest=name, action="store_true", default=None, **kwargs)
        return

    def check(text: str) -> Any:
        try:
            return setting.parse(text)
        except SettingError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    p.add_argument(setting.flag, dest=name, type=check, **kwargs)


def add_data_dir(p: argparse.ArgumentParser, *, warehouse: bool = True) -> None:
    """`--data-dir`, and `--warehouse` for commands that only read the warehouse file."""
    setting_flag(p, "data_dir")
    if warehouse:
        setting_flag(p, "warehouse", help="the DuckDB file (writers: env BODOGE_WAREHOUSE, default "
                     "DATA_DIR/warehouse.duckdb; readers: default the published night DATA_DIR/published.duckdb)")


def reader_path(args: argparse.Namespace) -> Any:
    """The file a reader opens: `--warehouse FILE` when given, else the published night.

    Why not the warehouse: the nightly run writes it for hours and DuckDB has one writer;
    readers open DATA_DIR/published.duckdb, swapped in whole by each successful night
    (warehouse.release.publish), so they never block the night nor see half of one.
    """
    from core.config import resolve_paths
    from warehouse.readers import require_published

    if getattr(args, "warehouse", None):
        return resolve_paths(data_dir=args.data_dir, warehouse=args.warehouse).warehouse
    return require_published(resolve_paths(data_dir=args.data_dir).data_dir)


@contextmanager
def open_warehouse(args: argparse.Namespace) -> Iterator[Any]:
    """The published night (or --warehouse FILE), read-only, closed afterwards; without the
    members an erasure journal beside it names (`warehouse.readers.open_reader`)."""
    from warehouse.readers import open_reader

    con = open_reader(reader_path(args))
    try:
        yield con
    finally:
        con.close()
