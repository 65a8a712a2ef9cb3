"""Running a crawl: a base URL into the warehouse's raw tables (the parent's side).

Why a subprocess: Scrapy's reactor cannot be restarted in one process, and both the
CLI and Dagster need to crawl more than once per process. `run_crawl` starts
`python -m scrapers.crawl_child ...` (the crawl process), streams its progress lines and
reads its stats back; what both sides share is in `scrapers.crawl_setup`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from core.ids import new_run_id
from core.settings import Settings, SettingError
from scrapers.crawl_setup import CrawlError, child_environment, validate_base_url, validate_sections
from ops.children import stop
from ops.errors import error_of
from ops.lock import inherited_fds
from ops.scratch import scratch_dir
from scrapers.kinds import ALL_SECTIONS

__all__ = ["CrawlError", "CrawlResult", "run_crawl"]
# How long an interrupted crawl may take to stop gracefully (flush, record) before SIGKILL.
STOP_TIMEOUT_SECONDS = 45.0


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
    max_age_days: float | None = None,
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
    recorded with the crawl's run (raw.crawl_runs.night_id). `max_age_days` None: the
    setting's default (`core.settings`).
    """
    base_url = validate_base_url(base_url)
    sections = validate_sections(sections)
    try:  # the crawl's settings, checked here once; the child reads them from its environment
        settings = Settings(base_url=base_url, warehouse=Path(warehouse), full=full, max_pages=max_pages,
                            max_age_days=max_age_days,
                            data_dir=Path(data_dir) if data_dir is not None else Path(warehouse).resolve().parent)
    except SettingError as exc:
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
            sys.executable, "-m", "scrapers.crawl_child", "--run-id", run_id,
            "--sections", ",".join(sections), "--stats-file", str(stats_file),
            "--parent-pid", str(os.getpid()),
        ]
        if users:
            cmd += ["--users", ",".join(users)]
        if http_cache_dir:
            cmd += ["--http-cache-dir", str(http_cache_dir)]
        if night_id:
            cmd += ["--night-id", night_id]
        try:
            code, last_lines = _run_child(cmd, env=child_environment(settings), progress=progress,
                                          stop_timeout=stop_timeout)
        except BaseException:  # the child was stopped: its cuts are finished before the interruption goes on
            with suppress(Exception):  # else the next night settles them
                _settle_erasures(settings.data_dir, warehouse)
            raise
        _settle_erasures(settings.data_dir, warehouse)
        if code < 0:
            raise CrawlError(f"crawl interrupted by signal {-code}")
        if code != 0 or not stats_file.exists():
            errors = [message for ln in last_lines if (message := error_of(ln)) is not None]
            last = last_lines[-1] if last_lines else ""
            raise CrawlError(errors[-1] if errors else f"crawl failed (exit {code}): {last}")
        stats = json.loads(stats_file.read_text(encoding="utf-8"))
    if progress is not None:
        for line in filter(_is_summary, last_lines):
            print(line, file=progress, flush=True)
    return CrawlResult(run_id=run_id, stats=stats)


def _settle_erasures(data_dir: Path, warehouse: str | Path) -> None:
    """The crawl process is gone: cut at once the members it journalled as private but could
    not cut itself (killed between a login page and its commit; `warehouse.privacy.erasure`).

    Why here: this process ran the crawl and holds the warehouse's only writer until it
    returns, so it is the first writer that can finish the cut; readers never write. A
    crawl that ended by itself left the journal empty: nothing is opened then.
    """
    from warehouse.privacy.erasure import settle_pending

    try:
        settle_pending(data_dir, warehouse)
    except Exception as exc:  # one line, as every crawl failure; the next night tries the cut again
        cause = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise CrawlError(f"members the crawl found private are not cut yet: {cause}") from exc


def _run_child(cmd: list[str], *, env: dict[str, str], progress: TextIO | None,
               stop_timeout: float) -> tuple[int, list[str]]:
    """Run the crawl subprocess, echo its progress lines; its exit code and last stderr lines.

    The child gets its own process group, so a Ctrl-C in the terminal reaches only this
    process, which then sends the child exactly one SIGTERM (Scrapy's graceful stop; a
    second signal would make Scrapy stop uncleanly and leave the run's record open).
    Neither the child's error line nor its closing summary is echoed: on success the caller
    prints the summary, on failure it raises the error, and the operator reads one line.
    """
    proc = subprocess.Popen(
        cmd, stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", env=env, process_group=0,
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
        stop(proc, timeout=stop_timeout)
        raise
    finally:
        if proc.stderr is not None:
            proc.stderr.close()


def _is_progress(line: str) -> bool:
    return line.startswith("crawl:") or (line.startswith("bodoge:") and error_of(line) is None)


def _is_summary(line: str) -> bool:
    """The closing `crawl: ... — done (reason)` line of scrapers.progress, and the night's
    `crawl: signals: …` line (each signal's state and strategy, scrapers.signals)."""
    return line.startswith("crawl:") and (" — done (" in line or line.startswith("crawl: signals: "))
