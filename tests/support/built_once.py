"""Fixtures built once per test run and shared by its xdist workers, for files that only read them.

Why: with `--dist loadfile` each file's session and module fixtures are built in whichever
worker runs it, so a warehouse that several files read was built once per file (or once per
worker). Here the first worker to ask builds it under a file lock in the run's shared base
temporary folder (`session_root`: the one `tests/support/demo_night.py` uses); the others
wait, then read what the build returned from a pickle beside it. What is shared is read
only: open its files with `read_only=True` and copy them before changing anything (DuckDB
refuses a second process's connection while one writes).
"""

from __future__ import annotations

import fcntl
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.support.demo_night import session_root

T = TypeVar("T")


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]) -> T:
    """`build(folder)`'s value, built in `<run's root>/name/data` by the first worker that asks."""
    root = session_root(factory) / name
    folder, kept = root / "data", root / "built.pickle"
    root.mkdir(parents=True, exist_ok=True)
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this worker dies
        if not kept.exists():
            shutil.rmtree(folder, ignore_errors=True)  # half built by a worker that failed
            folder.mkdir(parents=True)
            kept.write_bytes(pickle.dumps(build(folder)))
    return pickle.loads(kept.read_bytes())
