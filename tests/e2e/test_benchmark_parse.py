"""`python -m benchmarks.parse` runs alone and reports its figures (correctness, never timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchmarks.parse", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_prints_one_json_line_with_the_ratio_and_the_load_average() -> None:
    proc = _run("--games", "20", "--repeats", "1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["pages"] == 20 and result["clock"] == "cpu"
    assert abs(result["ratio"] - result["ours_pages_per_s"] / result["bare_lxml_pages_per_s"]) <= 0.001  # rates rounded
    assert len(result["loadavg"]) == 3 and len(result["loadavg_after"]) == 3


def test_no_pages_is_a_one_line_error() -> None:
    proc = _run("--games", "0")
    assert proc.returncode == 2 and "--games and --repeats must be at least 1" in proc.stderr
    assert "Traceback" not in proc.stderr
