"""One nightly run per data directory, and a dead run never holds the lock.

Why a kernel file lock (`flock`) rather than a lock file that is created and deleted:
the kernel drops an `flock` the moment its last holder dies, whatever killed it
(kill -9, OOM, a power cut of the process group), so a crashed night can never wedge the
next one. The lock file itself stays; it only says who holds the lock, for the log line
of a run that has to wait.

The lock is taken by `bodoge run` and handed to its worker process and on to the crawler
(an inherited file descriptor shares the lock), so it lives exactly as long as the last
of them.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path


log = logging.getLogger("bodoge.runlock")

LOCK_NAME = ".nightly.lock"
LOCK_FD_ENV = "BODOGE_RUN_LOCK_FD"


@dataclass(slots=True)
class RunLock:
    """A held lock: its open file descriptor (pass it to children with `pass_fds`)."""

    path: Path
    fd: int

    def release(self) -> None:
        """Drop the lock (children that inherited the descriptor keep it until they exit)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def holder(path: Path) -> dict:
    """Who says they hold the lock (pid, started_at), or {} if nobody wrote it yet."""
    try:
        return json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}


def acquire(
    data_dir: Path,
    *,
    wait_log_seconds: float = 5.0,
    say: Callable[[str], None] = log.warning,
    poll_seconds: float = 0.2,
) -> RunLock:
    """Take the data directory's nightly lock, waiting (and saying so) while a live run holds it.

    Waiting is a sleep loop in Python, so SIGTERM and Ctrl-C interrupt it at once.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    waited_since: float | None = None
    next_note = 0.0
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                now = time.monotonic()
                if waited_since is None:
                    waited_since = now
                if now >= next_note:
                    who = holder(path)
                    say(
                        f"waiting for the nightly run of pid {who.get('pid', '?')} "
                        f"(started {who.get('started_at', '?')}) to finish: {now - waited_since:.0f}s so far"
                    )
                    next_note = now + wait_log_seconds
                time.sleep(poll_seconds)
    except BaseException:
        os.close(fd)
        raise
    info = {"pid": os.getpid(), "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(info).encode("utf-8"), 0)
    return RunLock(path=path, fd=fd)


def inherited_fds() -> tuple[int, ...]:
    """The run lock's descriptor, if this process was handed one (see `LOCK_FD_ENV`).

    Why: every process of a night (supervisor, worker, crawler) holds the lock, so a
    crawler still stopping after its worker died keeps the next night waiting rather
    than failing on a locked warehouse.
    """
    text = os.environ.get(LOCK_FD_ENV, "")
    if not text.isdigit():
        return ()
    try:
        os.fstat(int(text))
    except OSError:
        return ()
    return (int(text),)


def try_acquire(data_dir: Path) -> RunLock | None:
    """The nightly lock if nobody holds it, else None at once (restore must not wait for a night)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return RunLock(path=data_dir / LOCK_NAME, fd=fd)
