"""The packages that type-check stay so: mypy over them (the `[tool.mypy]` config of
pyproject.toml) finds nothing, not even a `type: ignore` left unneeded.

Why a test: a type checker nothing runs lets its ignores pile up (51 of them once, for
a rule nobody ran). Real mypy in a real process, over the real tree; scrapers/ is not yet
clean (pyproject.toml says how far).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("models", "warehouse", "bodoge", "core", "ops", "pipelines", "samplesite", "dashboards", "benchmarks")


def test_the_checked_packages_type_check(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), *CHECKED],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Success: no issues found" in result.stdout


def test_a_type_error_is_found(tmp_path: Path) -> None:
    """The check can fail: a planted error in a copy of a checked module is reported."""
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "bad.py").write_text("def f(x: int) -> str:\n    return x\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), str(package)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "Incompatible return value type" in result.stdout
