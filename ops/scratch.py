"""The crawl's scratch directory: under the data dir, owned by a pid, swept when its owner is dead.

Why not `tempfile.TemporaryDirectory` in /tmp: a crawl killed with SIGKILL (or a machine
that lost power) never runs its cleanup, and its directory stays behind in /tmp forever,
with nothing to say whose it was. Here every crawl's directory is
`<tmp_root>/crawl-<run_id>` with an `owner` file naming the process that made it
(`ops.procs.identity`: pid, start time and boot id, so a recycled pid is not mistaken for
the owner); the next crawl removes every `crawl-*` directory whose owner is gone. Owner
files of older crawls (a pid, or a pid and start time) are still read: a bare pid counts
only if its process started before the file was written.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ops.procs import identity, owner_alive

log = logging.getLogger("bodoge.crawl")

PREFIX = "crawl-"
OWNER_FILE = "owner"


def _owner_alive(directory: Path) -> bool:
    try:
        if directory.name.startswith("."):  # still being made: its maker's pid ends the name
            return owner_alive(directory.name.rsplit(".", 1)[-1], written_at=directory.stat().st_mtime)
        owner = directory / OWNER_FILE
        return owner_alive(owner.read_text(encoding="utf-8"), written_at=owner.stat().st_mtime)
    except OSError:
        return False  # no readable owner: a directory made by no live crawl


def remove_stale(root: Path) -> list[Path]:
    """Remove every `crawl-*` directory under `root` whose owner process is dead; returns them."""
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for directory in sorted([*root.glob(f"{PREFIX}*"), *root.glob(f".{PREFIX}*")]):
        if directory.is_dir() and not _owner_alive(directory):
            shutil.rmtree(directory, ignore_errors=True)
            if not directory.exists():
                removed.append(directory)
    if removed:
        log.warning("crawl: removed %d leftover temp dir(s) of dead crawls under %s", len(removed), root)
    return removed


@contextmanager
def scratch_dir(root: Path, *, run_id: str) -> Iterator[Path]:
    """`<root>/crawl-<run_id>`, owned by this process, removed on the way out.

    Stale directories of dead crawls are swept first. The directory is made under a
    hidden name and renamed once its owner file is written, so a sweep running at the same
    moment never sees a `crawl-*` directory without an owner.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    remove_stale(root)
    final = root / f"{PREFIX}{run_id}"
    building = root / f".{PREFIX}{run_id}.{os.getpid()}"
    building.mkdir()
    (building / OWNER_FILE).write_text(identity() + "\n", encoding="utf-8")
    building.rename(final)
    try:
        yield final
    finally:
        shutil.rmtree(final, ignore_errors=True)
