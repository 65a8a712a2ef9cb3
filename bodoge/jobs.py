"""Running the nightly Dagster job from the command line (`bodoge run`, `bodoge demo`).

Why through Dagster rather than calling the steps directly: the same asset graph, checks
and metadata run from the CLI, the schedule and the UI, and the runs land in the
instance under DATA_DIR/dagster_home, so `bodoge serve` (the UI) shows them afterwards.

Why a supervisor and a worker process (`pipelines.worker`): nobody watches the night, so
- the flags are checked before anything starts: a malformed `--base-url`, `--push` or
  `--alert-url` is a one-line usage error (exit 2), not a failed night. Whether the site
  answers is the night's to find out: a site that refuses connections, answers only errors
  or forbids us in robots.txt fails the crawl step, so it is a failed night with its alert,
  at 03:00 as much as by hand;
- a push endpoint that is down never stops the night (warehouse.release.delivery): bundles it did
  not take are retried at the start of the next night (here) and at its end (the
  `export/delivery` asset), and alerted on (pending, then overdue after 26 h);
- one run at a time per data directory, by a kernel lock that dies with its holder, and
  the worker marks runs of dead workers failed and frees their pool slots first;
- everything Dagster prints goes to `DATA_DIR/logs/nightly-<time>.log`; the terminal gets
  the progress lines and, on failure, one line naming the root cause and that log;
- SIGTERM and Ctrl-C reach the worker, which stops its run cleanly; the supervisor exits
  143 or 130, and a worker that died any other way is still reported in one line;
- a failed night POSTs one alert to `--alert-url` (pipelines.alerts), since nobody watches;
- a full disk is a failed night like any other: the log is written and flushed line by
  line, and a write that fails stops the log there (said in the closing line) while the
  worker's lines still reach the terminal; the worker's outcome comes back on its output
  when it cannot write its result file, and the alert goes out without a file first.
  Before, the supervisor's own unguarded log write raised ENOSPC out of `run_nightly`:
  exit 2, no alert, an empty log.

A successful night ends by publishing `DATA_DIR/published.duckdb` (the `published_night`
asset), which is what readers open.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from core.settings import Paths, Settings, is_http_url
from ops.children import RESULT_PREFIX
from ops.lock import LOCK_FD_ENV, RunLock, acquire
from ops.signals import Forwarding, forwarded_signals

# Lines of the worker's output that the operator sees; everything goes to the log file.
PROGRESS_PREFIXES = ("crawl:", "nightly:", "bodoge:")
STOP_GRACE_SECONDS = 60.0
KEEP_LOGS = 30


class JobFailed(Exception):
    """The nightly job did not succeed; the message names the root cause and the log."""


class JobInterrupted(Exception):
    """The nightly job was stopped by a signal; `signum` gives the exit code (128 + signum)."""

    def __init__(self, signum: int, message: str) -> None:
        super().__init__(message)
        self.signum = signum


@dataclass(frozen=True, slots=True)
class JobSummary:
    """What a finished nightly run reports."""

    run_id: str
    seconds: float
    steps: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    log_path: Path | None = None


def dagster_home(paths: Paths) -> Path:
    """The Dagster instance folder for this data directory (shared with `bodoge serve`).

    Its dagster.yaml (concurrency pools, run monitoring, SQLite or PostgreSQL storage) is
    decided in pipelines.instance; a move from SQLite to PostgreSQL is said here, once.
    """
    from pipelines.instance import configure

    storage = configure(paths.dagster_home)
    if storage.switched:
        print(f"bodoge: Dagster instance {storage}", file=sys.stderr, flush=True)
    return paths.dagster_home


def night_environment(settings: Settings) -> dict[str, str]:
    """Every setting of the night (`Settings.to_env`), and the Dagster instance of its data dir:
    what the children (worker, daemon, web UI) and the Dagster resources read.

    Why a dict for the child processes rather than writes to `os.environ`: the caller's
    own environment stays as it was, so one process (a test session, a service) can start
    several nights without one night's settings (a push URL, crawl options) leaking
    into the next.
    """
    return {**settings.to_env(), "DAGSTER_HOME": str(dagster_home(settings.paths))}


def validate_settings(*, base_url: str, push_url: str | None) -> str:
    """The URLs' form, before anything starts; a one-line ValueError (exit 2) if wrong (the
    other settings were checked when `core.settings.Settings` was made).

    Why not ask the site or the endpoint here: an unreachable site is a failed night (it
    must alert, and the schedule's runs meet it the same way), and a down endpoint only
    delays delivery. A typo'd flag is neither: it is said at once and nothing runs.
    """
    from scrapers.crawl_setup import CrawlError, validate_base_url

    try:
        base_url = validate_base_url(base_url)
    except CrawlError as exc:
        raise ValueError(f"--base-url: {exc}") from None
    if push_url and not is_http_url(push_url):
        raise ValueError(f"--push: not an http(s) URL: {push_url!r}")
    return base_url


def run_nightly(settings: Settings, *, progress: TextIO | None = None, bgg_token: str | None = None) -> JobSummary:
    """Run the `nightly` job once in a supervised worker process; raise JobFailed/JobInterrupted.

    `settings` (the flags, then BODOGE_*, then the defaults) reach the worker, and through
    the Dagster resources every asset, as its environment (`night_environment`). A failed
    night POSTs one alert to the alert URL (and one more if no night has been published for
    26 h) before JobFailed is raised; after any night, bundles still undelivered are
    alerted on once (pending) and once more past 26 h (overdue).

    `bgg_token`: a BoardGameGeek token for this night's worker only (`bodoge demo --bgg`'s
    throwaway replay token). Why a parameter of its own, and only for the token: every other
    value crosses as a `Settings` field, but a setting is written into every child's
    environment, the Dagster resources (shown in the UI) and reprs, and the token must be in
    none of them; nor may the demo put it in its own environment or a file. One narrowly
    typed argument cannot carry anything else. Without it the worker reads the operator's
    `BODOGE_BGG_TOKEN` / `BODOGE_BGG_TOKEN_FILE` from the environment it inherits.
    """
    from pipelines.alerts import check_alert_url

    progress = progress or sys.stderr
    paths, push_url = settings.paths, settings.push_url
    alert_url = check_alert_url(settings.alert_url)
    base_url = validate_settings(base_url=settings.base_url or "", push_url=push_url)
    env = night_environment(settings.replace(base_url=base_url))
    if bgg_token:
        env["BODOGE_BGG_TOKEN"] = bgg_token
    log_path = _new_log_path(paths)
    result_path = log_path.with_suffix(".result.json")

    def say(message: str) -> None:
        print(f"nightly: {message}", file=progress, flush=True)

    started = datetime.now(timezone.utc)
    with forwarded_signals(grace=STOP_GRACE_SECONDS) as stop:
        try:
            lock = acquire(paths.data_dir, say=say)
        except KeyboardInterrupt:
            name = signal.Signals(stop.signum or signal.SIGINT).name
            raise JobInterrupted(stop.signum or signal.SIGINT,
                                 f"interrupted by {name} while waiting for another nightly run; nothing ran") from None
        try:
            say(f"started; full log: {log_path}")
            _deliver_pending(paths, push_url, say, stop)
            watch = _supervise(log_path, result_path, lock, stop, progress, env)
        finally:
            lock.release()
    code = watch.code
    outcome = _read_result(result_path) or watch.outcome
    if watch.log_error:
        log_path_note = f"{log_path}, cut short: {watch.log_error}"
    else:
        log_path_note = str(log_path)
    seconds = (datetime.now(timezone.utc) - started).total_seconds()
    run_id = outcome.get("run_id") or "(not started)"
    if stop.signum is not None:
        name = signal.Signals(stop.signum).name
        raise JobInterrupted(
            stop.signum,
            f"interrupted by {name}: nightly run {run_id} stopped and marked failed; "
            f"nothing was published; the next run starts cleanly (log: {log_path_note})",
        )
    if not outcome.get("success"):
        failure = outcome.get("failure") or {}
        step = failure.get("step")
        root = _worker_death(code, watch.last_line) if not outcome else str(failure.get("cause", "unknown cause"))
        cause = f"{step}: {root}" if step else root
        if alert_url:
            alert_id = outcome.get("run_id") or log_path.stem
            _alert(paths, alert_url, say, run_id=alert_id, step=step, cause=root, log_path=log_path,
                   base_url=base_url)
        raise JobFailed(f"nightly run {run_id} failed: {cause}; nothing was published (log: {log_path_note})")
    if alert_url:
        _alert(paths, alert_url, say)
    return JobSummary(
        run_id=run_id, seconds=seconds, steps=outcome.get("steps", []), checks=outcome.get("checks", []),
        log_path=log_path,
    )


def _alert(paths: Paths, url: str, say: Any, **failure: Any) -> None:
    """One alert for this failed night (when `failure` says why), one if the published night is
    now stale, and one per bundle still undelivered (pending, then overdue).

    Why never raise: the night's own one-line outcome must still reach the operator; an
    endpoint that stays down is said in a line of its own.
    """
    from pipelines import alerts

    try:
        if failure and alerts.night_failed(paths.data_dir, url, **failure):
            say(f"alert sent to {url}")
        if failure:
            alerts.freshness_missed(paths.data_dir, url)
        for key in alerts.deliveries_pending(paths.data_dir, url):
            say(f"alert {key} sent to {url}")
    except alerts.AlertUndelivered as exc:
        say(f"could not deliver the alert: {exc}")


def _deliver_pending(paths: Paths, push_url: str | None, say: Any, stop: Forwarding) -> None:
    """The start of a night: a short try at the newest bundle an earlier night could not deliver.

    Why here and short: the site gets last night's recommendations hours before tonight's
    are ready, and a still-down endpoint costs the crawl at most START_OF_NIGHT_SECONDS.
    A signal meanwhile stops the run before anything else starts (the record stays).
    """
    from warehouse.release import delivery

    if not delivery.pending(paths.data_dir):
        return
    try:
        result = delivery.deliver(paths.data_dir, push_url, say=say,
                                  seconds=min(delivery.START_OF_NIGHT_SECONDS, delivery.retry_seconds()))
    except KeyboardInterrupt:
        signum = stop.signum or signal.SIGINT
        raise JobInterrupted(signum, f"interrupted by {signal.Signals(signum).name} while delivering a pending "
                                     "bundle; nothing ran, the bundle stays pending") from None
    if result.delivered:
        say(f"delivered pending bundle {result.delivered} (idempotency key {result.idempotency_key})")
    for item in result.pending[-1:]:
        later = "at the end of this night" if push_url else "at the start of the next night"
        say(f"bundle {item.run_id} still not delivered to {item.url}: {item.last_error}; tried again {later}")


@dataclass(slots=True)
class Watched:
    """What the supervisor saw of its worker: the exit code, its outcome when the worker could
    only print it, the last line it printed, and why the log stopped (None: it is whole)."""

    code: int = 0
    outcome: dict = field(default_factory=dict)
    last_line: str = ""
    log_error: str | None = None


def _supervise(log_path: Path, result_path: Path, lock: RunLock, stop: Forwarding, progress: TextIO,
               settings: dict[str, str]) -> Watched:
    """Start the worker with the night's `settings`, copy its output to the log (progress
    lines to the terminal too), each line flushed as it comes.

    Why guarded: the log lives on the data dir's disk, the very disk a night can fill. A
    write that fails (ENOSPC, EFBIG, EIO) closes the log there; the worker is still read
    to its end, so the night ends as every failed night does (one line, one alert).
    """
    watched = Watched()
    env = {**os.environ, **settings, "PYTHONUNBUFFERED": "1", LOCK_FD_ENV: str(lock.fd)}
    log: TextIO | None = None
    try:
        log = open(log_path, "a", encoding="utf-8")
    except OSError as exc:
        watched.log_error = _os_error(exc)
    try:
        stop.proc = subprocess.Popen(
            [sys.executable, "-m", "pipelines.worker", "--result", str(result_path),
             "--parent-pid", str(os.getpid())],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            text=True, encoding="utf-8", errors="replace", env=env, pass_fds=(lock.fd,),
        )
        assert stop.proc.stdout is not None
        for line in stop.proc.stdout:
            if line.startswith(RESULT_PREFIX):
                watched.outcome = _parsed(line[len(RESULT_PREFIX):])
                continue
            if line.strip():
                watched.last_line = line.strip()
            if log is not None:
                try:
                    log.write(line)
                    log.flush()
                except OSError as exc:
                    watched.log_error = _os_error(exc)
                    _close_quietly(log)
                    log = None
            if line.startswith(PROGRESS_PREFIXES):
                print(line.rstrip(), file=progress, flush=True)
        watched.code = stop.proc.wait()
    finally:
        _close_quietly(log)
    return watched


def _os_error(exc: OSError) -> str:
    return f"[Errno {exc.errno}] {exc.strerror}" if exc.errno else str(exc)


def _close_quietly(log: TextIO | None) -> None:
    """Close the log; what could not be flushed any more is lost, never raised."""
    if log is None:
        return
    try:
        log.close()
    except OSError:
        pass


def _parsed(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _worker_death(code: int, last_line: str = "") -> str:
    """Why the worker ended without an outcome; its last line when it printed one (a
    traceback's last line names the error: a full disk, a database it could not write)."""
    if code < 0:
        return f"the nightly worker was killed by {signal.Signals(-code).name}"
    said = f" (its last line: {last_line[:300]})" if last_line else ""
    return f"the nightly worker exited with code {code} before reporting{said}"


def _read_result(path: Path) -> dict:
    try:
        return _parsed(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    finally:
        path.unlink(missing_ok=True)


def _new_log_path(paths: Paths) -> Path:
    """A fresh log file under DATA_DIR/logs; only the newest KEEP_LOGS logs are kept."""
    logs = paths.logs
    logs.mkdir(parents=True, exist_ok=True)
    for old in sorted(logs.glob("nightly-*.log"))[: -KEEP_LOGS + 1]:
        old.unlink(missing_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    return logs / f"nightly-{stamp}.log"
