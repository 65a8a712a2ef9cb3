"""How every reader opens the published night: the CLI, the dashboard, the alerts, analysts.

Why a module above `warehouse.release.publish` and `warehouse.privacy.erasure`: opening the night first
cuts out the members the erasure journal names (a crawl found them private but was
killed before it could cut them), which needs both the journal and the snapshot's cut;
neither of those modules should import the other to do it.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.db import WarehouseError, connect
from warehouse.privacy.erasure import cut_pending
from warehouse.release.publish import published_path


def require_published(data_dir: Path) -> Path:
    """The published night's file; a one-line WarehouseError when no night was published yet.

    Every reader comes through here, so members a crawl found private but could not cut
    out before it was killed (`warehouse.privacy.erasure`'s journal) are cut first.
    """
    cut_pending(Path(data_dir))
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
