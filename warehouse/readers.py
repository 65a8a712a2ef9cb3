"""How every reader opens the published night: the CLI, the dashboard, the alerts, analysts.

The rule: readers never write. They open DATA_DIR/published.duckdb as it is, read-only,
and nothing on their path rewrites, cuts or republishes it.

Why: the published night is replaced only by writers, whole, under `published_lock`
(`warehouse.release.publish`); a reader that rewrote it (to cut the members an erasure
journal names) made every `bodoge collection`, every dashboard page and every freshness
alert a writer racing the night. Members a crawl found private are cut by the writers,
at once (`warehouse.privacy.erasure`).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.db import WarehouseError, connect
from warehouse.release.publish import published_path


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
    """The published night, read-only (see `require_published`)."""
    return connect(require_published(data_dir), read_only=True)
