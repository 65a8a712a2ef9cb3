"""What every page shares: where the warehouse is, how it is read, and how a page degrades.

The pages read the published night (`DATA_DIR/published.duckdb`), which the nightly job
swaps in whole with `os.replace` and never opens for writing, so the dashboard and the
night never wait for each other. Connections still live for one page run at most, and
only when a query is not already cached: a new night is then a new file, opened on the
next page load, and a dashboard pointed at a live warehouse (`--warehouse`) does not hold
its lock. Results are cached with `st.cache_data`, keyed on the query, its parameters and
the file's version (mtime and size of the file and its WAL), so a newly published night
is picked up on the next page load while repeated loads and widget changes cost no
database work at all.

A page never shows a traceback for a state the warehouse can legitimately be in: no
file yet, a file being written, a table the nightly job has not created yet, or an
empty one — each gets a short note instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import streamlit as st

from core.ages import ago, took  # noqa: F401 - the pages call ui.ago and ui.took
from core.settings import Settings, spec
from dashboards import sql
from dashboards.charts import FONT_FAMILY
from dashboards.views import page_spec

CACHE_TTL_SECONDS = 3600

Version = tuple[int, ...]


class WarehouseBusy(Exception):
    """Another process holds the warehouse for writing (the nightly job, usually)."""


def warehouse_path() -> Path:
    """The file the pages read: $BODOGE_DASHBOARD_DB (set by `bodoge dashboard`), else the
    published night DATA_DIR/published.duckdb, never the file the nightly job writes
    (docs/interface.md, "Readers"); read with `core.settings`, as every child process does."""
    return Settings.load(only=("data_dir", "dashboard_db")).dashboard_file.expanduser()


def file_version(path: Path) -> Version:
    """Changes whenever the warehouse (or its write-ahead log) is written, or the erasure
    journal beside it (`warehouse.readers`) comes, changes or goes: cached answers must not
    outlive a member's erasure."""
    from warehouse.journal import JOURNAL_NAME

    stamps: list[int] = []
    for candidate in (path, path.with_name(path.name + ".wal"), path.with_name(JOURNAL_NAME)):
        try:
            stat = candidate.stat()
            stamps += [stat.st_mtime_ns, stat.st_size]
        except FileNotFoundError:
            stamps += [0, 0]
    return tuple(stamps)


def last_written(path: Path) -> datetime | None:
    """When the warehouse file (or its WAL) was last written; None without a file."""
    version = file_version(path)
    newest = max(version[0], version[2])
    return datetime.fromtimestamp(newest / 1e9, tz=timezone.utc) if newest else None


class Warehouse:
    """A read-only view of the warehouse for one page run; opens DuckDB only on a cache miss."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.version = file_version(path)
        self._con: duckdb.DuckDBPyConnection | None = None

    def connection(self) -> duckdb.DuckDBPyConnection:
        """The page run's connection, opened read-only on first use."""
        if self._con is None:
            from warehouse.readers import open_reader, pending_beside

            try:
                if pending_beside(self.path):  # members found private left out, the file only read
                    self._con = open_reader(self.path)
                else:
                    self._con = duckdb.connect(str(self.path), read_only=True)
            except duckdb.IOException as exc:
                if "lock" in str(exc).lower():
                    raise WarehouseBusy(str(exc).splitlines()[0]) from exc
                raise
        return self._con

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def query(self, fn: sql.Query, **params: Any) -> pl.DataFrame:
        """`fn(con, **params)`, a page's `@query`, cached on (warehouse version, query, params)."""
        if not isinstance(fn, sql.Query) or fn.key not in sql.REGISTRY:
            raise ValueError(f"{getattr(fn, '__name__', fn)!r} is not a dashboard query (see dashboards.sql)")
        return _cached_query(self, str(self.path), self.version, fn.key, params)

    def tables(self) -> dict[str, int]:
        """Row counts of the known tables that exist."""
        frame = self.query(sql.table_rows)
        return dict(zip(frame["table_name"].to_list(), frame["n_rows"].to_list()))

    def rows(self, table: str) -> int | None:
        """Rows in `table`, or None when it does not exist."""
        return self.tables().get(table)

    def require(self, *tables: str, what: str) -> bool:
        """True when every table exists and has rows; otherwise a note saying what is missing."""
        known = self.tables()
        missing = [t for t in tables if t not in known]
        empty = [t for t in tables if known.get(t) == 0]
        if missing:
            st.info(
                f"**{what}** will appear here once {_names(missing)} "
                f"{'exists' if len(missing) == 1 else 'exist'} — the nightly job (`bodoge run`) creates "
                f"{'it' if len(missing) == 1 else 'them'}.",
                icon=":material/hourglass_empty:",
            )
            return False
        if empty:
            st.info(
                f"**{what}**: {_names(empty)} {'is' if len(empty) == 1 else 'are'} empty so far.",
                icon=":material/inbox:",
            )
            return False
        return True


@st.cache_data(ttl=CACHE_TTL_SECONDS, max_entries=2000, show_spinner=False)
def _cached_query(
    _warehouse: Warehouse, path: str, version: Version, key: str, params: dict[str, Any]
) -> pl.DataFrame:
    """The cache behind Warehouse.query: `path`, `version`, `key` and `params` are the key."""
    return sql.REGISTRY[key](_warehouse.connection(), **params)


def _names(tables: list[str]) -> str:
    return ", ".join(f"`{t}`" for t in tables)


@contextmanager
def warehouse() -> Iterator[Warehouse]:
    """The page's warehouse; stops the page with a friendly note when there is none to read."""
    path = warehouse_path()
    if not path.is_file():
        st.info(
            f"No warehouse at `{path}` yet. Run `bodoge demo` (sample data) or `bodoge run` "
            f"(the nightly job) to create it, or point `{spec('dashboard_db').env}` at an existing file.",
            icon=":material/database:",
        )
        st.stop()
    wh = Warehouse(path)
    try:
        yield wh
    except WarehouseBusy:
        st.warning(
            "The warehouse is being written right now (the nightly job holds it). "
            "Reload the page in a minute.",
            icon=":material/lock_clock:",
        )
    except duckdb.Error as exc:
        st.error(f"Could not read the warehouse at `{path}`: {str(exc).splitlines()[0]}", icon=":material/error:")
    finally:
        wh.close()


def page(
    slug: str,
    *parts: Callable[[Warehouse], None],
    requires: tuple[str, ...] = (),
    what: str = "",
) -> None:
    """The frame every page shares: its title and caption (from the page registry,
    ``dashboards.views.PAGES``, under ``slug``), the warehouse, then its parts.

    Why `requires` here: a page whose every part reads the same marts says once what
    it waits for, and shows one note instead of a column of empty sections; a page
    whose parts stand on their own (Overview, Recommendations) checks in each part.
    """
    spec = page_spec(slug)
    st.title(spec.title)
    st.caption(spec.caption)
    with warehouse() as wh:
        if requires and not wh.require(*requires, what=what):
            return
        for part in parts:
            part(wh)


@contextmanager
def section(title: str) -> Iterator[None]:
    """A titled part of a page; a query failing inside it is a note, and the page goes on."""
    st.subheader(title)
    try:
        yield
    except duckdb.Error as exc:
        st.warning(f"This part could not be read: {str(exc).splitlines()[0]}", icon=":material/warning:")


def apply_style() -> None:
    """Give text a CJK-capable font family (charts get theirs from charts.show)."""
    selectors = ", ".join(
        f".stApp {tag}" for tag in ("p", "li", "label", "h1", "h2", "h3", "h4", "td", "th", "summary", "caption")
    )
    st.html(f"<style>.stApp, {selectors} {{ font-family: {FONT_FAMILY}; }}</style>")


_MARKDOWN = re.compile(r"([!-/:-@\[-`{-~])")


def plain(value: Any) -> str:
    """Site text (a member's name, a game's or cafe's title) for a Markdown element, as text.

    Why: `st.markdown`, `st.info` and their kin read Markdown, and names come from the site.
    `**Recommended for ![x](http://…/img.png)**` drew an image the analyst's browser fetched;
    a name could as well be a link, a heading, LaTeX (`$…$`) or `:red[…]`. Every ASCII
    punctuation mark is backslash-escaped (CommonMark allows it for each), so the name is
    drawn as the site wrote it, character for character.
    """
    return _MARKDOWN.sub(r"\\\1", str(value))


def number(value: Any) -> str:
    """A count with thousands separators; '—' for a missing value."""
    return "—" if value is None else f"{int(value):,}"


def table(frame: pl.DataFrame, *, column_config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """`st.dataframe` with a human label over every column (`dashboards.labels`), index hidden.

    Why one door for every table: analysts read "Rows failing", not `n_failures`; a page
    that called st.dataframe itself showed the SQL's snake_case names. A column's own
    config (a progress bar, a number format) keeps its settings and gets the label too.
    """
    from dashboards.labels import label

    config: dict[str, Any] = dict(column_config or {})
    for column in frame.columns:
        own = config.get(column)
        if own is None:
            config[column] = label(column)
        elif isinstance(own, dict) and not own.get("label"):
            config[column] = {**own, "label": label(column)}
    kwargs.setdefault("hide_index", True)
    return st.dataframe(frame, column_config=config, **kwargs)

