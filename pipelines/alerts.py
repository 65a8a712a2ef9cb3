"""Telling someone when a night fails, the published night grows stale, or a bundle is not delivered.

Why here, free of Dagster: the same alert goes out from `bodoge run`'s supervisor (which
knows the one-line cause and the log of its night) and from the daemon's sensors under
`bodoge serve`; both call these functions.

Never more than one alert per failed night: each alert has a key (`failed-<run id>`,
`stale-<published run id>`, `push-pending-<bundle>`, `push-overdue-<bundle>`), claimed by
creating `DATA_DIR/alerts/<key>.json` exclusively before the POST, so a supervisor and a
sensor seeing the same failed run, or a re-run of the sensor, send it once. A disk that
refuses the claim's bytes (full, read-only) never stops the alert: the claim stays as far
as it got (an empty file still claims the key) and the POST goes out. A POST that never gets through (after the push code's retries
with backoff) releases its claim, so the next chance tries again.
"""

from __future__ import annotations

import json
import os
import re
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from core.http import PostGaveUp, PostRefused, Retry, post_with_retry
from core.settings import is_http_url

FRESHNESS = timedelta(hours=26)
ALERTS_DIR = "alerts"


def check_alert_url(url: str | None) -> str | None:
    """The alert endpoint, or a one-line ValueError when it is not an http(s) URL."""
    if not url:
        return None
    if not is_http_url(url):
        raise ValueError(f"--alert-url: not an http(s) URL: {url!r}")
    return url


class AlertUndelivered(Exception):
    """The alert endpoint refused the alert or never took it."""


def send_alert(data_dir: Path, url: str, *, key: str, payload: dict[str, Any], **retry: Any) -> bool:
    """POST `payload` once per `key`; False when that key was already sent (or is being sent).

    Raises AlertUndelivered when the endpoint never takes it (the claim is released, so the
    next chance tries again). `retry` holds core.http.Retry's fields (attempts, base_delay, …).
    """
    folder = Path(data_dir) / ALERTS_DIR
    claim = folder / (re.sub(r"[^A-Za-z0-9_.-]", "_", key) + ".json")
    body = {"key": key, "host": socket.gethostname(), "data_dir": str(data_dir),
            "sent_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), **payload}
    data = json.dumps(body, ensure_ascii=False, default=str).encode("utf-8")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(claim, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    except OSError:  # no claim can be made on this disk: the alert matters more than its record
        fd = None
    if fd is not None:
        try:
            os.write(fd, data)
        except OSError:
            pass  # the empty claim still claims the key
        finally:
            os.close(fd)
    try:
        post_with_retry(url, data, {"Content-Type": "application/json", "Idempotency-Key": key},
                        retry=Retry(**retry))
    except PostRefused as exc:
        claim.unlink(missing_ok=True)
        raise AlertUndelivered(f"{url} refused the alert: HTTP {exc.status}") from exc
    except PostGaveUp as exc:
        claim.unlink(missing_ok=True)
        raise AlertUndelivered(f"{url} did not take the alert after {exc.attempts} attempts (last: {exc.last})") from exc
    except BaseException:
        claim.unlink(missing_ok=True)
        raise
    return True


def night_failed(
    data_dir: Path, url: str, *, run_id: str, step: str | None, cause: str, log_path: str | Path | None,
    base_url: str | None = None, **retry: Any,
) -> bool:
    """The alert for one failed night (sent at most once per run id).

    `kind` is the event; `cause` is one line; `base_url` names the site the night could not
    crawl (a site that does not answer, answers only errors or forbids us in robots.txt
    fails the night like any other cause).
    """
    payload = {"kind": "night_failed", "run_id": run_id, "failed_step": step, "cause": first_line(cause),
               "base_url": base_url, "log_path": str(log_path) if log_path else None}
    return send_alert(data_dir, url, key=f"failed-{run_id}", payload=payload, **retry)


def published_at(data_dir: Path) -> tuple[str | None, datetime | None]:
    """(run id, time) of the published night, or (None, None) when nothing was published."""
    from warehouse.db import WarehouseError
    from warehouse.release.publish import publication
    from warehouse.readers import open_published

    try:
        con = open_published(data_dir)
    except WarehouseError:
        return None, None
    try:
        row = publication(con) or {}
    finally:
        con.close()
    return row.get("run_id"), row.get("published_at")


def freshness_missed(data_dir: Path, url: str, *, now: datetime | None = None, **retry: Any) -> bool:
    """Alert once when no night has been published for FRESHNESS (26 h); True if it was sent now.

    With nothing published ever, the clock starts at the first nightly log.
    """
    now = now or datetime.now(timezone.utc)
    run_id, at = published_at(data_dir)
    if at is None:
        logs = sorted((Path(data_dir) / "logs").glob("nightly-*.log"))
        if not logs:
            return False
        at = datetime.fromtimestamp(logs[0].stat().st_mtime, timezone.utc)
    if now - at <= FRESHNESS:
        return False
    hours = (now - at).total_seconds() / 3600
    payload = {"kind": "freshness_missed", "run_id": run_id, "published_at": at,
               "cause": f"no night published for {hours:.0f} h (limit {FRESHNESS.total_seconds() / 3600:.0f} h)"}
    return send_alert(data_dir, url, key=f"stale-{run_id or 'never'}", payload=payload, **retry)


def first_line(text: str) -> str:
    """The first non-blank line of `text` (an alert's cause is one line)."""
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "unknown cause")


def deliveries_pending(data_dir: Path, url: str, *, now: datetime | None = None, **retry: Any) -> list[str]:
    """Alert once per bundle not delivered yet (`push_pending`), and once more past 26 h (`push_overdue`).

    Reads the records of `warehouse.release.delivery`; returns the keys sent now. Why both: the
    night that could not deliver says so at once (the night itself succeeded and exits 0),
    and a bundle the site still lacks a day later is a problem someone must look at.
    `now` is injectable so the 26 hours need not pass in a test.
    """
    from warehouse.release.delivery import pending

    now = now or datetime.now(timezone.utc)
    sent = []
    for item in pending(data_dir):
        hours = (now - item.since).total_seconds() / 3600
        base = {"run_id": item.run_id, "bundle": str(item.bundle), "push_url": item.url,
                "since": item.since, "tries": item.tries}
        kind = "push_overdue" if now - item.since > FRESHNESS else "push_pending"
        if kind == "push_pending" and not item.tries:
            continue  # recorded, not tried yet: a night may be delivering it right now
        cause = (f"bundle {item.run_id} not delivered to {item.url} for {hours:.0f} h "
                 f"(limit {FRESHNESS.total_seconds() / 3600:.0f} h): {item.last_error or 'not tried yet'}"
                 if kind == "push_overdue" else
                 f"bundle {item.run_id} is published locally but not delivered to {item.url}: "
                 f"{item.last_error or 'not tried yet'}; retried at the next night")
        key = f"push-{kind.removeprefix('push_')}-{item.run_id}"
        if send_alert(data_dir, url, key=key, payload={"kind": kind, "cause": first_line(cause), **base}, **retry):
            sent.append(key)
    return sent
