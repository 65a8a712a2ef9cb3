"""Test order for two workers: the longest end-to-end files first, so none starts last.

Why: the suite runs on two xdist workers, one file per worker at a time (`--dist
loadfile`), handed out in collection order. A two-minute file collected near the end of
the alphabet starts when the other worker has nothing left, and the suite waits for it
alone. Longest first (the classic LPT rule) lets the short files fill in around them.
xdist would otherwise reorder the files by their number of tests (its default
`--loadscope-reorder`, which put every one-test end-to-end file last), so `pyproject.toml`
passes `--no-loadscope-reorder` and this order is the one the workers get.
The costs are rough seconds measured on 2 cores; a file not listed costs nothing here
and keeps its place among the rest.
"""

from __future__ import annotations

import compileall
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Files that take longest, with their rough seconds on 2 cores (the suite's --durations).
SLOWEST: dict[str, int] = {
    "test_nightly_crashes.py": 125, "test_postgres_serve.py": 110, "test_release_crashes.py": 105,
    "test_delivery.py": 100, "test_serve_failures.py": 90, "test_pipeline_e2e.py": 90,
    "test_serve.py": 80, "test_failed_nights.py": 185, "test_serve_killed.py": 60,
    "test_pid_reuse.py": 60, "test_readers_during_night.py": 55, "test_signal_fallbacks.py": 55,
    "test_signal_midnight.py": 65, "test_postgres_nights.py": 50, "test_benchmarks.py": 50,
    "test_incremental_crawl.py": 70, "test_private_killed_crawl.py": 45, "test_crawl_failures.py": 60,
    "test_nightly_supervision.py": 45, "test_listing_totals_crawl.py": 40, "test_alerts.py": 30,
    "test_restore.py": 30, "test_export_schemas.py": 35, "test_one_page_listings_e2e.py": 20, "test_cli_evaluate.py": 30,
    "test_analyst_cookbook.py": 120, "test_readme_examples.py": 190,
}


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Sort the items by their file's cost, longest first (stable: same order in every worker)."""
    items.sort(key=lambda item: -SLOWEST.get(item.path.name, 0))


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile the project's own packages once per session, where Python would not cache them.

    Why: with PYTHONDONTWRITEBYTECODE set, every process compiles what it imports from
    source, and the suite starts hundreds of them (each `bodoge` command; each night's
    supervisor, worker and crawler; serve's daemon and code servers): about 2.5 s of a
    night's 18 s of CPU. Python checks each .pyc against its source's mtime, so an edited
    file never runs from a stale one; `__pycache__/` is ignored by git. The dependencies
    are compiled by `uv sync` (`[tool.uv] compile-bytecode` in pyproject.toml). Done once,
    by the xdist controller (or the only process), before the workers start.
    """
    if not sys.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] + ["benchmarks"]
    for name in packages:
        if (ROOT / name).is_dir():
            compileall.compile_dir(ROOT / name, quiet=2)  # a read-only tree: no cache, no noise
