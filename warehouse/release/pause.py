"""The release's test hook: a night held between two steps (`BODOGE_TEST_PAUSE_AT`).

Why a module of its own: the export (`warehouse.release.export`) and the release
(`warehouse.release.release`) both pause at their steps, and the release imports the export;
discovery's member buckets pause before each bucket (`bucket-<key>`,
`pipelines/defs/recsys/buckets.py`).
With `BODOGE_TEST_PAUSE_AT` set to a step, the process creates `DATA_DIR/paused-at-<step>`,
prints `nightly: paused at <step>` and waits until the file is removed: a test can kill -9 a
real `bodoge run` exactly between two steps, or fill its disk before the export writes.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

PAUSE_ENV = "BODOGE_TEST_PAUSE_AT"


def pause_point(step: str, data_dir: Path) -> None:
    """The test hook (module docstring): wait at `step` while DATA_DIR/paused-at-<step> exists."""
    if os.environ.get(PAUSE_ENV) != step:
        return
    flag = Path(data_dir) / f"paused-at-{step}"
    flag.write_text(f"{os.getpid()}\n", encoding="utf-8")
    print(f"nightly: paused at {step} ({PAUSE_ENV}); remove {flag} to go on", file=sys.stderr, flush=True)
    while flag.exists():
        time.sleep(0.05)
