"""`python -m bodoge.compile_cache`, which the test suite's controller runs before its workers
start (tests/conftest.py): it never fails where numba cannot cache, and a warm cache for
this very code costs nothing. (A cold warm-up compiles for ~40 s of CPU: not run here.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bodoge.compile_cache import STAMP_PREFIX, stamp, warm_compile_cache


def test_where_numba_cannot_cache_nothing_is_warmed_and_nothing_fails(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "bodoge.compile_cache"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NUMBA_CACHE_DIR": str(blocked / "cache")})
    assert done.returncode == 0, done.stderr
    assert "nothing warmed" in done.stderr
    assert time.monotonic() - started < 30  # no model was run


def test_a_cache_warmed_for_this_code_is_left_alone(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    (tmp_path / f"{STAMP_PREFIX}{stamp()}").write_text("", encoding="utf-8")
    assert warm_compile_cache().status == "already warm"
    (tmp_path / f"{STAMP_PREFIX}{stamp()}").unlink()
    (tmp_path / f"{STAMP_PREFIX}0123").write_text("", encoding="utf-8")  # warmed for other code
    monkeypatch.setattr("bodoge.compile_cache._run_models", lambda **_: {"models": 0.0})
    assert warm_compile_cache().status == "warmed"
    assert [p.name for p in tmp_path.glob(f"{STAMP_PREFIX}*")] == [f"{STAMP_PREFIX}{stamp()}"]
