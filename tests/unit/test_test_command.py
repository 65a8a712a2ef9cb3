"""The one command that runs every tier: README.md shows it, `.ci/run` runs exactly it, and
pyproject.toml leaves the workers to it (alone, `pytest tests/unit` runs in one process)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_test_command() -> str:
    lines = [line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if "uv run --locked pytest" in line and "(what CI runs)" in line]
    assert len(lines) == 1, "README.md: one test command, marked (what CI runs)"
    return lines[0].split("#", 1)[0].strip()


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    command = readme_test_command()
    assert command.startswith("python -m pip install uv && uv run --locked pytest")
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert [line for line in ci if "uv run" in line and not line.startswith("#")] == [command]


def test_the_workers_are_asked_for_by_the_full_command_only() -> None:
    """xdist in addopts would put two workers under `pytest tests/unit` too; LPT order needs
    --no-loadscope-reorder where the workers are asked for."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "-n" not in options["addopts"].split() and "--strict-markers" in options["addopts"].split()
    assert "-n 2 --dist loadfile --no-loadscope-reorder" in readme_test_command()


def test_every_test_file_is_in_a_tier() -> None:
    tiers = {"unit", "integration", "e2e"}
    outside = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
               if p.relative_to(ROOT / "tests").parts[0] not in tiers]
    assert outside == []


def test_uv_run_is_quiet_after_the_first_command() -> None:
    """Issue 42: `[tool.uv] compile-bytecode = true` made every `uv run` compile site-packages
    again and print "Bytecode compiled N files" (uv #12202); bytecode is compiled at sync where
    it is wanted (the image), and by the test session itself."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "compile-bytecode" not in project["tool"]["uv"]
    assert "UV_COMPILE_BYTECODE=1" in (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert 'sysconfig.get_paths()["purelib"]' in (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
