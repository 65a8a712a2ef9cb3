"""Running a crawl: a base URL into the warehouse's raw tables.

Why a subprocess: Scrapy's reactor cannot be restarted in one process, and both the
CLI and Dagster need to crawl more than once per process. `run_crawl` starts
`python -m scrapers.crawl ...`, streams its progress lines and reads its stats back.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from scrapers import settings as default_settings
from scrapers.spiders.site import ALL_SECTIONS


class CrawlError(Exception):
    """The crawl could not run (bad base URL, unreachable site, crawler crash)."""


@dataclass(frozen=True, slots=True)
class CrawlResult:
    """What a finished crawl reports: its run id, item counts and Scrapy's stats."""

    run_id: str
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def written(self) -> dict[str, int]:
        return dict(self.stats.get("bodoge/written", {}))

    @property
    def pages(self) -> int:
        return int(self.stats.get("response_received_count", 0))


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, unique run id: UTC time plus a short random suffix."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}"


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
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CrawlError(f"not an http(s) base URL: {base_url!r}")
    return base_url.rstrip("/")


def robots_crawl_delay(base_url: str, user_agent: str, timeout: float = 10.0) -> float | None:
    """The Crawl-delay robots.txt asks of us, if any (Scrapy obeys Disallow but not this)."""
    from protego import Protego

    request = urllib.request.Request(f"{base_url}/robots.txt", headers={"User-Agent": user_agent})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError:
        return None
    except (urllib.error.URLError, OSError) as exc:
        raise CrawlError(f"cannot reach {base_url}: {getattr(exc, 'reason', exc)}") from exc
    delay = Protego.parse(text).crawl_delay(user_agent)
    return float(delay) if delay else None


def crawl_settings(
    *,
    base_url: str,
    warehouse: str | Path,
    run_id: str,
    http_cache_dir: str | Path | None = None,
    max_pages: int | None = None,
    crawl_delay: float | None = None,
) -> dict[str, Any]:
    """Scrapy settings for one crawl: the politeness policy plus where items go."""
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
    return values


def run_crawl(
    *,
    base_url: str,
    warehouse: str | Path,
    run_id: str | None = None,
    sections: list[str] | tuple[str, ...] = ALL_SECTIONS,
    users: list[str] | None = None,
    http_cache_dir: str | Path | None = None,
    max_pages: int | None = None,
    progress: TextIO | None = sys.stderr,
) -> CrawlResult:
    """Crawl `base_url` into `warehouse` in a subprocess; returns its stats."""
    base_url = validate_base_url(base_url)
    run_id = run_id or new_run_id()
    with tempfile.TemporaryDirectory(prefix="bodoge-crawl-") as tmp:
        stats_file = Path(tmp) / "stats.json"
        cmd = [
            sys.executable, "-m", "scrapers.crawl",
            "--base-url", base_url, "--warehouse", str(warehouse), "--run-id", run_id,
            "--sections", ",".join(sections), "--stats-file", str(stats_file),
        ]
        if users:
            cmd += ["--users", ",".join(users)]
        if http_cache_dir:
            cmd += ["--http-cache-dir", str(http_cache_dir)]
        if max_pages:
            cmd += ["--max-pages", str(max_pages)]
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=_child_env())
        last_lines: list[str] = []
        assert proc.stderr is not None
        for line in proc.stderr:
            last_lines = (last_lines + [line.rstrip()])[-20:]
            if progress is not None and (line.startswith("crawl:") or line.startswith("bodoge:")):
                print(line.rstrip(), file=progress, flush=True)
        code = proc.wait()
        if code != 0 or not stats_file.exists():
            errors = [ln for ln in last_lines if ln.startswith("bodoge: error")]
            detail = errors[-1].removeprefix("bodoge: error: ") if errors else (last_lines[-1] if last_lines else "")
            raise CrawlError(f"crawl failed (exit {code}): {detail}")
        stats = json.loads(stats_file.read_text(encoding="utf-8"))
    return CrawlResult(run_id=run_id, stats=stats)


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def main(argv: list[str] | None = None) -> int:
    """Subprocess entry point: run one crawl in this process and write its stats."""
    parser = argparse.ArgumentParser(prog="python -m scrapers.crawl")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--sections", default=",".join(ALL_SECTIONS))
    parser.add_argument("--users")
    parser.add_argument("--http-cache-dir")
    parser.add_argument("--max-pages", type=int)
    parser.add_argument("--stats-file", required=True)
    args = parser.parse_args(argv)

    from scrapy.crawler import CrawlerProcess

    from scrapers.spiders.site import SiteSpider

    try:
        base_url = validate_base_url(args.base_url)
        delay = robots_crawl_delay(base_url, default_settings.USER_AGENT)
    except CrawlError as exc:
        print(f"bodoge: error: {exc}", file=sys.stderr, flush=True)
        return 2
    settings = crawl_settings(
        base_url=base_url,
        warehouse=args.warehouse,
        run_id=args.run_id,
        http_cache_dir=args.http_cache_dir,
        max_pages=args.max_pages,
        crawl_delay=delay,
    )
    process = CrawlerProcess(settings, install_root_handler=True)
    crawler = process.create_crawler(SiteSpider)
    process.crawl(crawler, base_url=base_url, sections=args.sections, users=args.users)
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    Path(args.stats_file).write_text(json.dumps(stats, default=str, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
