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
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from scrapy.crawler import CrawlerProcess

from core.ids import new_run_id
from scrapers import settings as default_settings
from core.procs import die_with_parent, orphaned
from scrapers.lifeline import stop_process
from scrapers.options import DEFAULT_MAX_AGE_DAYS, CrawlOptionError, CrawlOptions
from scrapers.outcome import FAILURE_STAT, first_line
from scrapers.runlock import inherited_fds
from scrapers.scratch import scratch_dir
from scrapers.spiders.site import ALL_SECTIONS

CHILD_ERROR = "bodoge: error: "
# How long an interrupted crawl may take to stop gracefully (flush, record) before SIGKILL.
STOP_TIMEOUT_SECONDS = 45.0


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
    tmp_dir: str | Path | None = None,
    stop_timeout: float = STOP_TIMEOUT_SECONDS,
    full: bool = False,
    max_age_days: float = DEFAULT_MAX_AGE_DAYS,
    data_dir: str | Path | None = None,
    night_id: str | None = None,
) -> CrawlResult:
    """Crawl `base_url` into `warehouse` in a subprocess; returns its stats.

    Raises CrawlError (one line) when the crawl did not do its job: the warehouse could
    not be opened or written, no page answered 2xx, nothing was written, the child died
    of a signal. The child never outlives this call: if the wait is interrupted (Ctrl-C,
    SystemExit, any exception) it is stopped first, then the interruption goes on.
    Scratch files live in `tmp_dir` (default: `tmp/` beside the warehouse). `data_dir`
    (default: the warehouse's folder) holds the published night and the exports a member
    found private is cut from during the crawl. `night_id` (the nightly run's id) is
    recorded with the crawl's run (raw.crawl_runs.night_id).
    """
    base_url = validate_base_url(base_url)
    sections = validate_sections(sections)
    if max_pages is not None and max_pages < 1:
        raise CrawlError(f"max_pages must be at least 1, not {max_pages}")
    try:
        CrawlOptions(full=full, max_pages=max_pages, max_age_days=max_age_days)
    except CrawlOptionError as exc:
        raise CrawlError(str(exc)) from None
    run_id = run_id or new_run_id()
    tmp_root = Path(tmp_dir) if tmp_dir is not None else Path(warehouse).resolve().parent / "tmp"
    with ExitStack() as stack:
        try:
            tmp = stack.enter_context(scratch_dir(tmp_root, run_id=run_id))
        except OSError as exc:
            raise CrawlError(f"cannot make the crawl's temp dir under {tmp_root}: {exc.strerror or exc}") from exc
        stats_file = tmp / "stats.json"
        cmd = [
            sys.executable, "-m", "scrapers.crawl",
            "--base-url", base_url, "--warehouse", str(warehouse), "--run-id", run_id,
            "--sections", ",".join(sections), "--stats-file", str(stats_file),
            "--parent-pid", str(os.getpid()),
        ]
        if users:
            cmd += ["--users", ",".join(users)]
        if http_cache_dir:
            cmd += ["--http-cache-dir", str(http_cache_dir)]
        if max_pages:
            cmd += ["--max-pages", str(max_pages)]
        if full:
            cmd += ["--full"]
        cmd += ["--max-age-days", repr(float(max_age_days))]
        cmd += ["--data-dir", str(Path(data_dir) if data_dir is not None else Path(warehouse).resolve().parent)]
        if night_id:
            cmd += ["--night-id", night_id]
        code, last_lines = _run_child(cmd, progress=progress, stop_timeout=stop_timeout)
        if code < 0:
            raise CrawlError(f"crawl interrupted by signal {-code}")
        if code != 0 or not stats_file.exists():
            errors = [ln.removeprefix(CHILD_ERROR) for ln in last_lines if ln.startswith(CHILD_ERROR)]
            last = last_lines[-1] if last_lines else ""
            raise CrawlError(errors[-1] if errors else f"crawl failed (exit {code}): {last}")
        stats = json.loads(stats_file.read_text(encoding="utf-8"))
    if progress is not None:
        for line in filter(_is_summary, last_lines):
            print(line, file=progress, flush=True)
    return CrawlResult(run_id=run_id, stats=stats)


def _run_child(cmd: list[str], *, progress: TextIO | None, stop_timeout: float) -> tuple[int, list[str]]:
    """Run the crawl subprocess, echo its progress lines; its exit code and last stderr lines.

    The child gets its own process group, so a Ctrl-C in the terminal reaches only this
    process, which then sends the child exactly one SIGTERM (Scrapy's graceful stop; a
    second signal would make Scrapy stop uncleanly and leave the run's record open).
    Neither the child's error line nor its closing summary is echoed: on success the caller
    prints the summary, on failure it raises the error, and the operator reads one line.
    """
    proc = subprocess.Popen(
        cmd, stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", env=_child_env(), process_group=0,
        pass_fds=inherited_fds(),  # the nightly run lock, held until the crawler is gone too
    )
    last_lines: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            line = line.rstrip()
            last_lines = (last_lines + [line])[-20:]
            if progress is not None and _is_progress(line) and not _is_summary(line):
                print(line, file=progress, flush=True)
        return proc.wait(), last_lines
    except BaseException:
        stop_process(proc, timeout=stop_timeout)
        raise
    finally:
        if proc.stderr is not None:
            proc.stderr.close()


def _is_progress(line: str) -> bool:
    return line.startswith("crawl:") or (line.startswith("bodoge:") and not line.startswith(CHILD_ERROR))


def _is_summary(line: str) -> bool:
    """The closing `crawl: ... — done (reason)` line of scrapers.progress, and the night's
    `crawl: signals: …` line (each signal's state and strategy, scrapers.signals)."""
    return line.startswith("crawl:") and (" — done (" in line or line.startswith("crawl: signals: "))


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class _CrawlerProcess(CrawlerProcess):
    """Scrapy's CrawlerProcess that remembers which signal asked it to stop.

    Why: after a graceful stop the crawl subprocess re-raises that signal on itself, so
    its parent sees "killed by SIGTERM" rather than a success.
    """

    received_signal: int | None = None
    parent_pid: int | None = None

    def _signal_shutdown(self, signum: int, frame: Any) -> None:
        if self.received_signal is None:
            self.received_signal = signum
        super()._signal_shutdown(signum, frame)

    def _signal_kill(self, signum: int, frame: Any) -> None:
        """A second signal forces an unclean stop, except a repeated parent-death SIGTERM."""
        if signum == signal.SIGTERM and orphaned(self.parent_pid):
            return  # the kernel repeating that the parent died: keep stopping gracefully
        super()._signal_kill(signum, frame)


def main(argv: list[str] | None = None) -> int:
    """Subprocess entry point: run one crawl in this process and write its stats.

    Exits 0 only for a crawl that did its job; otherwise prints one `bodoge: error:` line
    and exits 1 (or dies of the signal that stopped it, after a graceful stop).
    """
    parser = argparse.ArgumentParser(prog="python -m scrapers.crawl")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--sections", default=",".join(ALL_SECTIONS))
    parser.add_argument("--users")
    parser.add_argument("--http-cache-dir")
    parser.add_argument("--max-pages", type=int)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--max-age-days", type=float, default=DEFAULT_MAX_AGE_DAYS)
    parser.add_argument("--stats-file", required=True)
    parser.add_argument("--data-dir", help="the published night and exports to cut private members from")
    parser.add_argument("--parent-pid", type=int, help="die (SIGTERM) when this parent dies")
    parser.add_argument("--night-id", help="the nightly run this crawl belongs to (raw.crawl_runs.night_id)")
    args = parser.parse_args(argv)
    if args.parent_pid:
        die_with_parent(parent_pid=args.parent_pid)

    from scrapers.spiders.site import SiteSpider

    try:
        base_url = validate_base_url(args.base_url)
        users = args.users.split(",") if args.users else None
        delay = robots_crawl_delay(base_url, default_settings.USER_AGENT,
                                   starts=start_paths(args.sections.split(","), users))
    except CrawlError as exc:
        print(f"{CHILD_ERROR}{exc}", file=sys.stderr, flush=True)
        return 2
    settings = crawl_settings(
        base_url=base_url,
        warehouse=args.warehouse,
        run_id=args.run_id,
        http_cache_dir=args.http_cache_dir,
        max_pages=args.max_pages,
        crawl_delay=delay,
        data_dir=args.data_dir,
        night_id=args.night_id,
    )
    process = _CrawlerProcess(settings)  # installs the root log handler (LOG_INSTALL_ROOT_HANDLER, default on)
    process.parent_pid = args.parent_pid
    crawler = process.create_crawler(SiteSpider)
    start_errors: list[BaseException] = []
    done = process.crawl(crawler, base_url=base_url, sections=args.sections, users=args.users,
                         full=args.full, max_age_days=args.max_age_days)
    done.addErrback(lambda failure: start_errors.append(failure.value))
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    Path(args.stats_file).write_text(json.dumps(stats, default=str, ensure_ascii=False), encoding="utf-8")
    if process.received_signal is not None:
        _die_of(process.received_signal)
    failure = first_line(start_errors[0]) if start_errors else stats.get(FAILURE_STAT)
    if failure:
        print(f"{CHILD_ERROR}{failure}", file=sys.stderr, flush=True)
        return 1
    return 0


def _die_of(signum: int) -> None:
    """End this process by `signum` itself, the way a process without a handler would."""
    sys.stderr.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    sys.exit(128 + signum)  # not reached: the default action ends the process


if __name__ == "__main__":
    sys.exit(main())
