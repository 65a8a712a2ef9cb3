"""Where things live: settings from flags, then the environment, then defaults (docs/interface.md).

- `BODOGE_DATA_DIR` (default `./data`): the warehouse, exports, caches.
- `BODOGE_WAREHOUSE` (default `$BODOGE_DATA_DIR/warehouse.duckdb`).
- `BODOGE_BASE_URL`: the site to crawl (the real site's address, or the sample site's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REAL_SITE_URL = "https://bodoge.hoobby.net"


@dataclass(frozen=True, slots=True)
class Paths:
    """The data directory and everything placed in it."""

    data_dir: Path
    warehouse: Path

    # Each place docs/data.md's "Where the data goes" lists, named once.
    exports = property(lambda self: self.data_dir / "exports", doc="Export bundles and LATEST.")
    http_cache = property(lambda self: self.data_dir / "httpcache", doc="Scrapy's cache (`crawl --http-cache`).")
    models = property(lambda self: self.data_dir / "models", doc="Interactions, evaluation, the champion.")
    dagster_home = property(lambda self: self.data_dir / "dagster_home", doc="The Dagster instance.")
    logs = property(lambda self: self.data_dir / "logs", doc="What each nightly run printed.")
    tmp = property(lambda self: self.data_dir / "tmp", doc="Crawls' scratch folders.")

    @property
    def champion(self) -> Path:
        """The saved champion (the nightly writes it, `bodoge recommend` re-ranks with it)."""
        return self.models / "champion"


def resolve_paths(*, data_dir: str | Path | None = None, warehouse: str | Path | None = None) -> Paths:
    """Flags win over the environment, the environment over defaults."""
    data = Path(data_dir or os.environ.get("BODOGE_DATA_DIR") or "data")
    if warehouse is None:
        env_wh = os.environ.get("BODOGE_WAREHOUSE")
        # An explicit --data-dir keeps the warehouse inside it unless a flag says otherwise.
        warehouse = data / "warehouse.duckdb" if data_dir is not None or not env_wh else env_wh
    return Paths(data_dir=data.resolve(), warehouse=Path(warehouse).resolve())


def resolve_base_url(base_url: str | None = None) -> str | None:
    """The site to crawl: the flag, else BODOGE_BASE_URL."""
    return base_url or os.environ.get("BODOGE_BASE_URL") or None


def require_base_url(base_url: str | None = None) -> str:
    """The site to crawl, or a one-line ValueError saying how to give it (crawl, run)."""
    resolved = resolve_base_url(base_url)
    if not resolved:
        raise ValueError("no site to crawl: pass --base-url or set BODOGE_BASE_URL")
    return resolved
