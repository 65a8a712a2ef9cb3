"""How every reader opens the published night: the CLI, the dashboard, the alerts, analysts.

The rule: readers never write. They open DATA_DIR/published.duckdb read-only, and nothing
on their path rewrites, cuts or republishes it.

Why: the published night is replaced only by writers, whole, under `published_lock`
(`warehouse.release.publish`); a reader that rewrote it (to cut the members an erasure
journal names) made every `bodoge collection`, every dashboard page and every freshness
alert a writer racing the night, and one that may not write the data dir (a read-only
mount) failed for every member. Members a crawl found private are cut by the writers, at
once (`warehouse.privacy.erasure`).

But a reader still leaves them out. If the crawl, the process that ran it and the night's
supervisor were all killed between the journal's line and the cut, the published night
holds members journalled private until the next night starts. So while the journal beside
the file (`DATA_DIR/erasures.pending`) names anyone, a reader answers from an in-memory
copy of the night without them (`COPY FROM DATABASE`, then the writers' own row cut,
`drop_members`), and everyone else as usual; the file is only read. The copy costs about
as much memory as the file, and only in that window (`bodoge sql --db` on a data
directory's published night gets the same).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from warehouse.db import WarehouseError, connect, first_line
from warehouse.release.publish import PUBLISHED_NAME, drop_members, published_path


def require_published(data_dir: Path) -> Path:
    """The published night's file; a one-line WarehouseError when no night was published yet."""
    path = published_path(data_dir)
    if not path.is_file():
        raise WarehouseError(
            f"no night has been published in {Path(data_dir)} yet "
            "(run `bodoge run`, `bodoge demo` or `bodoge build` first)"
        )
    return path


def open_published(data_dir: Path) -> duckdb.DuckDBPyConnection:
    """The published night, read-only, without members an erasure journal names (see `open_reader`)."""
    return open_reader(require_published(data_dir))


def pending_beside(path: Path) -> set[str]:
    """Members the erasure journal beside `path` names (a data directory's published night or
    warehouse; empty for any other file and without a journal). Only read, never written.

    A journal this user may not read is a one-line WarehouseError: who must be left out is then
    unknown, and answering anyway could show them.
    """
    from warehouse.journal import pending

    path = Path(path)
    if path.name != PUBLISHED_NAME and not (path.parent / PUBLISHED_NAME).exists():
        return set()
    try:
        return pending(path.parent)
    except OSError as exc:
        raise WarehouseError(f"members found private are being erased in {path.parent}, and its journal "
                             f"cannot be read ({first_line(exc)}): try again after the next night") from exc


def open_reader(path: Path, *, config: dict[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
    """`path` read-only; while the erasure journal beside it names members, an in-memory copy
    without them (module docstring). `config` (e.g. `enable_external_access: False`, which
    `bodoge sql` wants) holds for the connection returned either way."""
    path = Path(path)
    hidden = pending_beside(path)
    if not hidden:
        if not config:
            return connect(path, read_only=True)
        if not path.exists():
            raise WarehouseError(f"no warehouse at {path} (run `bodoge run` or `bodoge demo` first)")
        try:
            return duckdb.connect(str(path), read_only=True, config=config)
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot open {path}: {first_line(exc)}") from exc
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"ATTACH '{_quoted(path)}' AS night (READ_ONLY)")
        con.execute("COPY FROM DATABASE night TO memory")
        con.execute("DETACH night")
        drop_members(con, hidden)
        for key, value in (config or {}).items():
            con.execute(f"SET {key} = {_literal(value)}")
    except duckdb.Error as exc:
        con.close()
        raise WarehouseError(f"cannot open {path}: {first_line(exc)}") from exc
    return con


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"
