"""Seeded per-user holdout: reproducible, per-user shares, independent choices.

Here: the tests that start real processes; the rest of this subject:
tests/unit/models/test_models_split.py.
"""

import subprocess
import sys
from pathlib import Path


from models.split import holdout_split
from tests.support.split_frames import SIZES, frame


def test_the_split_is_the_same_in_another_process() -> None:
    # Nights run in separate processes: a hash seeded per process would split anew each night.
    code = ("from tests.support.split_frames import frame, SIZES; from models.split import holdout_split; "
            "print(holdout_split(frame(SIZES), seed=5)[1].write_csv())")
    other = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[3],
                           capture_output=True, text=True, check=True).stdout
    assert other.strip() == holdout_split(frame(SIZES), seed=5)[1].write_csv().strip()
