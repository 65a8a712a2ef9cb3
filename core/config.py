"""Where things live, for commands that need only that: the data directory, the warehouse, the site.

The settings themselves (their variables, defaults and checks) are `core.settings.Settings`;
these helpers read just the fields they name, so a reader is never stopped by, say, a bad
crawl setting it does not use.
"""

from __future__ import annotations

from pathlib import Path

from core.settings import Paths, Settings

REAL_SITE_URL = "https://bodoge.hoobby.net"


def resolve_paths(*, data_dir: str | Path | None = None, warehouse: str | Path | None = None) -> Paths:
    """Flags win over the environment, the environment over defaults (`Settings.load`)."""
    return Settings.load({"data_dir": data_dir, "warehouse": warehouse}, only=("data_dir", "warehouse")).paths


def resolve_base_url(base_url: str | None = None) -> str | None:
    """The site to crawl: the flag, else BODOGE_BASE_URL."""
    return Settings.load({"base_url": base_url}, only=("base_url",)).base_url


def require_base_url(base_url: str | None = None) -> str:
    """The site to crawl, or a one-line ValueError saying how to give it (crawl, run).

    Why not the URL the last crawl recorded: after `bodoge demo` that is the demo's sample
    site, served on a random port only while the demo ran (intended: docs/commands.md)."""
    resolved = resolve_base_url(base_url)
    if not resolved:
        raise ValueError("no site to crawl: pass --base-url or set BODOGE_BASE_URL (after `bodoge demo`: its site "
                         "ran only with the demo; `bodoge site serve` serves it again, then pass its URL)")
    return resolved
