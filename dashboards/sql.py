"""The one shape every dashboard query has, written once: a named, parameterized read.

Why: each page keeps its own queries beside the charts that use them
(`dashboards/views/<page>.py`), and they all share this shape —
a function returns SQL, and whatever a person types or selects reaches DuckDB as a
bound parameter (`$name`), never as SQL text. `@query` turns such a function into a
`Query`: called with a connection and keyword arguments, it binds every argument the SQL
names, runs it and returns a Polars frame. The only names a builder may put into SQL text
are constants of its module chosen from a fixed mapping (metric columns, table names).

Queries register themselves by page file and name, so `ui.Warehouse.query` can cache
their results by (warehouse version, query, parameters) and refuse anything else.
Nothing runs at import time. Queries assume their tables exist; pages check first.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

# Every table a page reads; `table_rows` reports which exist and how many rows they hold.
TABLES: tuple[str, ...] = (
    "marts.games", "marts.collections", "marts.cafe_games", "marts.members",
    "marts.game_popularity", "marts.member_profiles", "marts.cafe_coverage", "marts.play_time_buckets",
    "marts.quality_checks", "marts.pipeline_runs", "marts.model_runs",
    "marts.recommendations", "marts.next_to_play", "marts.watch_next", "marts.similar_games",
    "marts.publication", "marts.bgg_games", "marts.list_outcomes", "marts.history_nights",
    "raw.crawl_runs", "raw.quarantine", "raw.posts",
)

REGISTRY: dict[str, Query] = {}


class Query:
    """A dashboard read: `q(con, **params) -> polars.DataFrame`, registered under `key`."""

    def __init__(self, key: str, run: Callable[..., pl.DataFrame], doc: str | None) -> None:
        self.key = key
        self._run = run
        self.__doc__ = doc
        self.__name__ = key.rsplit(".", 1)[-1]

    def __call__(self, con: duckdb.DuckDBPyConnection, **params: Any) -> pl.DataFrame:
        return self._run(con, **params)

    def __repr__(self) -> str:
        return f"Query({self.key})"


def _key(fn: Callable) -> str:
    return f"{Path(fn.__code__.co_filename).stem}.{fn.__name__}"


def _register(fn: Callable, run: Callable[..., pl.DataFrame]) -> Query:
    q = Query(_key(fn), run, fn.__doc__)
    REGISTRY[q.key] = q
    return q


def query(build: Callable[..., str | tuple[str, dict[str, Any]]]) -> Query:
    """Decorator: `build(**params)` returns SQL (or SQL and constant parameters); bind and run it.

    Every argument whose `$name` the SQL mentions is bound; the others only chose
    constants for the SQL text (a metric's column).
    """
    signature = inspect.signature(build)

    def run(con: duckdb.DuckDBPyConnection, **params: Any) -> pl.DataFrame:
        bound = signature.bind(**params)
        bound.apply_defaults()
        built = build(**bound.arguments)
        sql, constants = built if isinstance(built, tuple) else (built, {})
        values = {k: v for k, v in bound.arguments.items() if re.search(rf"\${k}\b", sql)} | constants
        return con.sql(sql, params=values or None).pl()

    return _register(build, run)


def reader(fn: Callable[..., pl.DataFrame]) -> Query:
    """Decorator: a read written in Python over a connection (`fn(con, **params)`), cached like a query."""
    return _register(fn, fn)


@reader
def table_rows(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """(`table_name`, `n_rows`) for each table of TABLES that exists (views included)."""
    existing = {r[0] for r in con.execute(
        "SELECT schema_name || '.' || table_name FROM duckdb_tables() "
        "UNION ALL SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal"
    ).fetchall()}
    present = [t for t in TABLES if t in existing]
    if not present:
        return pl.DataFrame(schema={"table_name": pl.String, "n_rows": pl.Int64})
    # Table names are constants of this module, never user input.
    return con.sql(" UNION ALL ".join(f"SELECT '{t}' AS table_name, count(*) AS n_rows FROM {t}" for t in present)).pl()


def metric_columns(metric: str, mapping: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The constant columns of a chosen metric, or a ValueError naming the choices."""
    try:
        return mapping[metric]
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}: choose one of {', '.join(mapping)}") from None
