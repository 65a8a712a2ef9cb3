"""Tests of the sample site's generation: determinism, text formats, the recommender's
signal, and the truth it writes.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_samplesite.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl

from samplesite import generate_site, truth_frames

ROOT = Path(__file__).resolve().parents[2]


def test_cli_writes_truth(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "samplesite", "truth", "--games", "60", "--users", "40", "--seed", "2",
         "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert "games\t" in out.stdout
    games = pl.read_parquet(tmp_path / "games.parquet")
    expected = truth_frames(generate_site(n_games=60, n_users=40, seed=2))["games"]
    assert games.equals(expected)
