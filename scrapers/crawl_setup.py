"""What one crawl is set up with, shared by the parent (`scrapers.crawl`) and the crawl
process (`scrapers.crawl_child`): the base URL's checks, robots.txt's Crawl-delay and
refusals, the start paths, the Scrapy settings, the error line the child prints, and the
one way the crawl's settings reach the child (`child_environment`, read back there with
`core.settings.Settings.from_env`).
"""

from __future__ import annotations

import ipaddress
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from core.settings import SECRET_VARIABLES, Settings, is_http_url
from scrapers import settings as default_settings
from scrapers.kinds import ALL_SECTIONS


class CrawlError(Exception):
    """The crawl could not run (bad base URL, unreachable site, crawler crash)."""


def child_environment(settings: Settings) -> dict[str, str]:
    """The crawl process's environment: this one's, with the crawl's settings written over it.

    Why every setting and not argv: the site, the warehouse, the data directory and the
    crawl options (full, page budget, max age) cross into the child in the one form every
    process boundary of the project uses (`Settings.to_env`), checked once on this side.
    The site's crawler never needs a secret (`SECRET_VARIABLES`: the BGG token), so it gets none.
    """
    inherited = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
    return {"PYTHONUNBUFFERED": "1", **inherited, **settings.to_env()}


def is_local(base_url: str) -> bool:
    """True for loopback hosts: our own sample site, crawled at a local pace."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def validate_base_url(base_url: str) -> str:
    """The base URL without a trailing slash, or a one-line CrawlError."""
    if not is_http_url(base_url):
        raise CrawlError(f"not an http(s) base URL: {base_url!r}")
    return base_url.rstrip("/")


def robots_crawl_delay(base_url: str, user_agent: str, timeout: float = 10.0,
                       starts: tuple[str, ...] = ()) -> float | None:
    """The Crawl-delay robots.txt asks of us, if any (Scrapy obeys Disallow but not this).

    Raises CrawlError when the site does not answer at all, and when robots.txt forbids us
    every one of the `starts` paths: Scrapy would then quietly fetch nothing, and the night
    must fail saying why (a robots.txt answering an HTTP error allows everything, as in Scrapy).
    """
    from protego import Protego

    request = urllib.request.Request(f"{base_url}/robots.txt", headers={"User-Agent": user_agent})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError:
        return None
    except (urllib.error.URLError, OSError) as exc:
        raise CrawlError(f"cannot reach {base_url}: {getattr(exc, 'reason', exc)}") from exc
    rules = Protego.parse(text)
    if starts and not any(rules.can_fetch(f"{base_url}{path}", user_agent) for path in starts):
        raise CrawlError(f"robots.txt of {base_url} forbids us every page the crawl starts from "
                         f"({', '.join(starts)}): nothing can be crawled")
    delay = rules.crawl_delay(user_agent)
    return float(delay) if delay else None


def start_paths(sections: list[str] | tuple[str, ...], users: list[str] | None = None) -> tuple[str, ...]:
    """The paths the spider starts from for these sections (`SiteSpider.start`)."""
    paths = {"games": "/games", "cafes": "/spaces",
             "members": f"/friends/{users[0]}/boardgames" if users else "/friends"}
    return tuple(dict.fromkeys(paths[s] for s in sections if s in paths))


def crawl_settings(
    *,
    base_url: str,
    warehouse: str | Path,
    run_id: str,
    http_cache_dir: str | Path | None = None,
    max_pages: int | None = None,
    crawl_delay: float | None = None,
    data_dir: str | Path | None = None,
    night_id: str | None = None,
) -> dict[str, Any]:
    """Scrapy settings for one crawl: the politeness policy plus where items go (and, with
    `data_dir`, whose published night and exports lose a member found private at once;
    with `night_id`, which night's crawl it is)."""
    values = {k: v for k, v in vars(default_settings).items() if k.isupper() and k != "LOCAL_OVERRIDES"}
    if is_local(base_url):
        values.update(default_settings.LOCAL_OVERRIDES)
    if crawl_delay:
        values["DOWNLOAD_DELAY"] = max(values["DOWNLOAD_DELAY"], crawl_delay)
        values["AUTOTHROTTLE_START_DELAY"] = max(values["AUTOTHROTTLE_START_DELAY"], crawl_delay)
    if http_cache_dir:
        values["HTTPCACHE_ENABLED"] = True
        values["HTTPCACHE_DIR"] = str(Path(http_cache_dir).resolve())
    if max_pages:
        values["CLOSESPIDER_PAGECOUNT"] = int(max_pages)
    values["BODOGE_WAREHOUSE"] = str(warehouse)
    values["BODOGE_RUN_ID"] = run_id
    if night_id:
        values["BODOGE_NIGHT_ID"] = night_id
    if data_dir:
        values["BODOGE_DATA_DIR"] = str(data_dir)
    return values


def validate_sections(sections: list[str] | tuple[str, ...]) -> list[str]:
    """The sections to crawl, or a one-line CrawlError naming the valid ones."""
    chosen = [s.strip() for s in sections if s.strip()]
    valid = ", ".join(ALL_SECTIONS)
    if not chosen:
        raise CrawlError(f"no section to crawl: choose from {valid}")
    unknown = sorted({s for s in chosen if s not in ALL_SECTIONS})
    if unknown:
        raise CrawlError(f"unknown section(s) {', '.join(unknown)}: choose from {valid}")
    return chosen
