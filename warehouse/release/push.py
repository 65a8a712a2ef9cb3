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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.http import PostGaveUp, PostRefused, Retry, post_with_retry
from warehouse.release.export import verify_bundle


class PushError(Exception):
    """The endpoint refused the bundle, or never answered within the retries."""


@dataclass(frozen=True, slots=True)
class PushResult:
    status: int
    attempts: int
    idempotency_key: str


def bundle_archive(path: Path) -> bytes:
    """The bundle folder as a deterministic .tar.gz (sorted names, fixed mtimes), its
    `schemas/` folder included."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            info = tarfile.TarInfo(name=f"{path.name}/{file.relative_to(path).as_posix()}")
            data = file.read_bytes()
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def idempotency_key(manifest: dict) -> str:
    """The same bundle content always gets the same key."""
    files = json.dumps(manifest["files"], sort_keys=True)
    return f"{manifest['run_id']}-{hashlib.sha256(files.encode('utf-8')).hexdigest()[:16]}"


def push_bundle(
    path: Path, url: str, *, retry: Retry = Retry(), sleep: Callable[[float], None] = time.sleep
) -> PushResult:
    """POST the bundle at `path` to `url`; returns the final status or raises PushError."""
    manifest = verify_bundle(path)
    key = idempotency_key(manifest)
    headers = {
        "Content-Type": "application/gzip",
        "Idempotency-Key": key,
        "X-Bodoge-Run-Id": manifest["run_id"],
    }
    try:
        answer = post_with_retry(url, bundle_archive(path), headers, retry=retry, sleep=sleep)
    except PostRefused as exc:
        raise PushError(f"{url} refused the bundle: HTTP {exc.status}") from exc
    except PostGaveUp as exc:
        raise PushError(f"{url} did not take the bundle after {exc.attempts} attempts (last: {exc.last})") from exc
    return PushResult(status=answer.status, attempts=answer.attempts, idempotency_key=key)
