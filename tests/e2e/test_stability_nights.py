"""benchmarks.stability_nights: who counts as unchanged, and a tiny two-night run end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path



ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_two_night_run_reports_every_way_of_serving() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.stability_nights", "--games", "150", "--users", "300"],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(result["stability_jaccard10"]) == {"champion", "ensemble", "best_single", "ensemble_fixed",
                                                   "best_single_fixed"}
    assert all(0.0 < value <= 1.0 for value in result["stability_jaccard10"].values())
    assert result["unchanged_members"] > 0 and len(result["choices"]) == 2
