"""`ops.errors`: the one-line error is written in one place.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_ops_errors.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


from ops.errors import error_of

ROOT = Path(__file__).resolve().parents[2]


def test_fail_is_the_last_line_of_a_real_process() -> None:
    """A child process that fails with `fail` ends with the line and the code a parent reads."""
    code = "import sys; from ops.errors import fail; print('working'); sys.exit(fail('the site is down', 3))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert done.stderr.splitlines()[-1] == "bodoge: error: the site is down"
    assert error_of(done.stderr.splitlines()[-1]) == "the site is down"
