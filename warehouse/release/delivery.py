"""Getting export bundles to the site's endpoint across nights: what is not delivered yet is kept.

Why: a push endpoint that is down must never stop the night. The night publishes its
bundle locally (exports/LATEST, published.duckdb) first; delivery comes after, retried
with backoff for at most `BODOGE_PUSH_RETRY_SECONDS` (default 300), so a night never
hangs on it. A bundle that did not get through is recorded in
`DATA_DIR/deliveries/<bundle run id>.json` before the first attempt (a night killed
mid-push leaves its record too) and removed once the endpoint took it; the next night
tries again at its start and its end, and the alerts (`pipelines.alerts`) read the same
records to say a delivery is pending, then overdue after 26 hours.

Each bundle is the site's whole state (every member's lines), so only the newest pending
bundle is sent: once it is delivered, older undelivered bundles are superseded and their
records dropped; the site never receives an older night after a newer one. Re-sending is
safe: the bundle's idempotency key (`warehouse.release.push.idempotency_key`) stays the same.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from core.http import Retry
from core.settings import read
from warehouse.release.bundle_io import ExportError

DELIVERIES_DIR = "deliveries"
# The start of a night only gets a short try: the crawl should not wait on a down endpoint.
START_OF_NIGHT_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Pending:
    """One bundle not delivered yet: which, where to, since when, and why it did not go."""

    run_id: str
    bundle: Path
    url: str
    since: datetime
    last_error: str | None = None
    tries: int = 0

    def as_json(self) -> dict:
        return {"run_id": self.run_id, "bundle": str(self.bundle), "url": self.url,
                "since": self.since.isoformat(timespec="seconds"), "last_error": self.last_error, "tries": self.tries}


@dataclass(frozen=True, slots=True)
class Delivery:
    """What one delivery attempt did: the bundle delivered (if any), what is still pending, and dropped records."""

    delivered: str | None = None
    idempotency_key: str | None = None
    attempts: int = 0
    pending: tuple[Pending, ...] = ()
    dropped: tuple[str, ...] = ()


def retry_seconds(text: str | None = None) -> float:
    """How long one night keeps retrying a delivery: BODOGE_PUSH_RETRY_SECONDS (`core.settings`),
    or a one-line ValueError."""
    return read("push_retry_seconds", text)


def retry_policy(seconds: float) -> Retry:
    """Backoff 2, 4, 8 … 60 s between attempts, no attempt starting after `seconds`."""
    return Retry(attempts=1000, base_delay=2.0, max_delay=60.0, timeout=min(30.0, seconds), deadline=seconds)


def pending(data_dir: Path) -> list[Pending]:
    """Every bundle waiting for delivery, oldest first (unreadable records are skipped)."""
    found = []
    for path in sorted((Path(data_dir) / DELIVERIES_DIR).glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            since = datetime.fromisoformat(raw["since"])
            found.append(Pending(run_id=raw["run_id"], bundle=Path(raw["bundle"]), url=raw["url"],
                                 since=since if since.tzinfo else since.replace(tzinfo=timezone.utc),
                                 last_error=raw.get("last_error"), tries=int(raw.get("tries") or 0)))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(found, key=lambda p: (p.since, p.run_id))


def record(data_dir: Path, bundle: Path, url: str, *, now: datetime | None = None) -> Pending:
    """Note `bundle` as not delivered yet (kept as it was if already noted: its clock keeps running)."""
    for item in pending(data_dir):
        if item.run_id == bundle.name:
            return item
    since = _bundle_time(bundle) or now or datetime.now(timezone.utc)
    item = Pending(run_id=bundle.name, bundle=bundle.resolve(), url=url, since=since)
    _write(data_dir, item)
    return item


def deliver(
    data_dir: Path, url: str | None, *, bundle: Path | None = None, seconds: float | None = None,
    say: Callable[[str], None] = lambda _m: None, sleep: Callable[[float], None] | None = None,
) -> Delivery:
    """Send the newest bundle waiting (tonight's `bundle` if given) to `url` (else to its recorded URL).

    Records `bundle` first, so it stays pending if this process dies. On success the record
    and every older one go; on failure the record keeps the cause and the next night retries.
    Never raises for the endpoint's sake: the caller reads `pending` from the result.
    """
    from warehouse.release.push import PushError, push_bundle

    seconds = retry_seconds() if seconds is None else seconds
    if bundle is not None:
        if not url:
            raise ValueError("a bundle to deliver needs a push URL")
        record(data_dir, bundle, url)
    waiting = pending(data_dir)
    dropped = []
    while waiting and not waiting[-1].bundle.is_dir():
        gone = waiting.pop()
        _remove(data_dir, gone.run_id)
        dropped.append(gone.run_id)
        say(f"bundle {gone.run_id} is no longer in the exports (pruned); dropped from the deliveries")
    if not waiting:
        return Delivery(dropped=tuple(dropped))
    newest = waiting[-1]
    target = url or newest.url
    kwargs = {"sleep": sleep} if sleep is not None else {}
    try:
        result = push_bundle(newest.bundle, target, retry=retry_policy(seconds), **kwargs)
    except (PushError, ExportError, OSError, ValueError) as exc:
        failed = Pending(run_id=newest.run_id, bundle=newest.bundle, url=target, since=newest.since,
                         last_error=str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                         tries=newest.tries + 1)
        _write(data_dir, failed)
        return Delivery(pending=tuple(waiting[:-1]) + (failed,), dropped=tuple(dropped))
    for item in waiting:
        _remove(data_dir, item.run_id)
    superseded = [item.run_id for item in waiting[:-1]]
    if superseded:
        say(f"bundle {newest.run_id} supersedes undelivered {', '.join(superseded)}")
    return Delivery(delivered=newest.run_id, idempotency_key=result.idempotency_key, attempts=result.attempts,
                    dropped=tuple(dropped + superseded))


def _bundle_time(bundle: Path) -> datetime | None:
    """When the bundle was made (its manifest's created_at), or None when it cannot be read."""
    try:
        created = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))["created_at"]
        when = datetime.fromisoformat(str(created).replace("Z", "+00:00"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _write(data_dir: Path, item: Pending) -> None:
    """Write the record whole (temp file, then rename): the alert sensor may read it at any time."""
    folder = Path(data_dir) / DELIVERIES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{item.run_id}.json.tmp"
    tmp.write_text(json.dumps(item.as_json(), ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, folder / f"{item.run_id}.json")


def _remove(data_dir: Path, run_id: str) -> None:
    (Path(data_dir) / DELIVERIES_DIR / f"{run_id}.json").unlink(missing_ok=True)
