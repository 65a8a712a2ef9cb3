"""One `bodoge demo` night per test session, shared by every file that reads a published night.

Why: the README's examples and the analysts' cookbook both need what a real demo night
publishes (crawl, marts, models, export), and a night is about 2½ minutes of two cores.
Built once per session, under a file lock, in the session's base temporary folder (shared
by the xdist workers of one run and by no other run); the other workers wait for it and
then only read it. `BODOGE_README_DATA_DIR=DIR` names an existing night instead.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from tests.support.readme_examples import build_demo_night


def session_root(factory: pytest.TempPathFactory) -> Path:
    """The folder this run's workers share: xdist gives each worker `<root>/popen-gwN`."""
    base = factory.getbasetemp()
    return base.parent if base.name.startswith("popen-gw") else base


def shared_demo_night(factory: pytest.TempPathFactory) -> Path:
    """The data directory of the session's demo night (`bodoge demo` with its defaults)."""
    reuse = os.environ.get("BODOGE_README_DATA_DIR")
    if reuse:
        return Path(reuse)
    root = session_root(factory) / "demo-night"
    data_dir, done = root / "data", root / "built"
    root.mkdir(parents=True, exist_ok=True)
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this worker dies
        if not done.exists():
            shutil.rmtree(data_dir, ignore_errors=True)  # a half-built night of a worker that failed
            build_demo_night(data_dir)
            done.touch()
    return data_dir
