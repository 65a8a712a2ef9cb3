"""Delivering an export bundle to the site's endpoint: one POST, safe to repeat.

The bundle goes as one gzip'd tar with an `Idempotency-Key` derived from the manifest,
so a retry after a lost answer (or a re-run of the same export) cannot make the site
import it twice. 429 and 5xx answers, and connection errors, are retried with
exponential backoff (honouring Retry-After); any other 4xx is final.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from warehouse.export import verify_bundle


class PushError(Exception):
    """The endpoint refused the bundle, or never answered within the retries."""


@dataclass(frozen=True, slots=True)
class PushResult:
    status: int
    attempts: int
    idempotency_key: str


def bundle_archive(path: Path) -> bytes:
    """The bundle folder as a deterministic .tar.gz (sorted names, fixed mtimes)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for file in sorted(path.iterdir()):
            info = tarfile.TarInfo(name=f"{path.name}/{file.name}")
            data = file.read_bytes()
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def idempotency_key(manifest: dict) -> str:
    """The same bundle content always gets the same key."""
    files = json.dumps(manifest["files"], sort_keys=True)
    return f"{manifest['run_id']}-{hashlib.sha256(files.encode('utf-8')).hexdigest()[:16]}"


def push_bundle(
    path: Path,
    url: str,
    *,
    attempts: int = 5,
    base_delay: float = 1.0,
    max_delay: float = 30.0,
    timeout: float = 30.0,
    sleep=time.sleep,  # noqa: ANN001 - injectable for fast tests of the backoff schedule
) -> PushResult:
    """POST the bundle at `path` to `url`; returns the final status or raises PushError."""
    manifest = verify_bundle(path)
    key = idempotency_key(manifest)
    headers = {"Content-Type": "application/gzip", "Idempotency-Key": key, "X-Bodoge-Run-Id": manifest["run_id"]}
    status, tries = post_with_retry(url, bundle_archive(path), headers, what="the bundle", attempts=attempts,
                                    base_delay=base_delay, max_delay=max_delay, timeout=timeout, sleep=sleep)
    return PushResult(status=status, attempts=tries, idempotency_key=key)


def post_with_retry(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    what: str = "the request",
    attempts: int = 5,
    base_delay: float = 1.0,
    max_delay: float = 30.0,
    timeout: float = 30.0,
    sleep=time.sleep,  # noqa: ANN001 - injectable for fast tests of the backoff schedule
) -> tuple[int, int]:
    """POST `body` to `url`, retrying 429/5xx and connection errors with backoff; (status, attempts).

    Any other 4xx is final. Raises PushError naming `what` when the endpoint refuses it or
    never takes it. Shared by the bundle push and the nightly alerts.
    """
    from scrapers.middlewares import backoff_delay
    from scrapers.settings import USER_AGENT

    headers = {"User-Agent": USER_AGENT, **headers}
    last = ""
    for attempt in range(attempts):
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        retry_after = None
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, attempt + 1
        except urllib.error.HTTPError as exc:
            if exc.code != 429 and exc.code < 500:
                raise PushError(f"{url} refused {what}: HTTP {exc.code}") from exc
            last, retry_after = f"HTTP {exc.code}", exc.headers.get("Retry-After")
        except (urllib.error.URLError, OSError) as exc:
            last = str(getattr(exc, "reason", exc))
        if attempt + 1 < attempts:
            sleep(backoff_delay(attempt, base=base_delay, cap=max_delay, retry_after=retry_after))
    raise PushError(f"{url} did not take {what} after {attempts} attempts (last: {last})")
