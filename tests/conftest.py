"""Test order for two workers (the longest end-to-end files first, so none starts last), and the
sample site the multi-night crawl tests share.

Why: the suite runs on two xdist workers, one file per worker at a time (`--dist
loadfile`), handed out in collection order. A two-minute file collected near the end of
the alphabet starts when the other worker has nothing left, and the suite waits for it
alone. Longest first (the classic LPT rule) lets the short files fill in around them.
xdist would otherwise reorder the files by their number of tests (its default
`--loadscope-reorder`, which put every one-test end-to-end file last), so `pyproject.toml`
passes `--no-loadscope-reorder` and this order is the one the workers get.
The costs are seconds measured in a full run on 2 cores; a file not listed costs nothing
here and keeps its place among the rest.
"""

from __future__ import annotations

import compileall
import signal
import subprocess
import sys
from collections.abc import Iterator
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Files that take longest, with their seconds in a full run (the suite's --durations summed per
#: file; two workers on two cores that other work shared, so only the order is exact).
SLOWEST: dict[str, int] = {
    "test_nightly_crashes.py": 145, "test_signal_midnight.py": 140, "test_release_crashes.py": 145,
    "test_benchmarks.py": 160, "test_incremental_crawl.py": 145, "test_delivery.py": 105,
    "test_postgres_serve.py": 100, "test_readers_during_night.py": 100, "test_serve.py": 95,
    "test_pipeline_e2e.py": 85, "test_crawl_failures.py": 60, "test_serve_killed.py": 85,
    "test_signal_fallbacks.py": 85, "test_nightly_supervision.py": 85, "test_pid_reuse.py": 70,
    "test_serve_failures.py": 70, "test_failed_nights.py": 95, "test_postgres_nights.py": 70,
    "test_private_killed_crawl.py": 50, "test_listing_totals_crawl.py": 30, "test_dashboard_browser.py": 25,
    "test_alerts.py": 20, "test_cli_evaluate.py": 20, "test_dashboard_apptest.py": 20, "test_dashboard_overview.py": 10, "test_restore.py": 30,
    "test_one_page_listings_e2e.py": 30, "test_bgg_demo.py": 65, "test_stability_nights.py": 20,
    "test_analyst_cookbook.py": 30, "test_recsys_lineage.py": 20, "test_readme_examples.py": 190, "test_export_schemas.py": 35,
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
    by the xdist controller (or the only process), before the workers start; then the
    controller warms numba's cache of the models' loops (`_warm_compile_cache`).
    """
    if hasattr(config, "workerinput"):
        return
    if sys.dont_write_bytecode:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        packages = project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] + ["benchmarks"]
        for name in packages:
            if (ROOT / name).is_dir():
                compileall.compile_dir(ROOT / name, quiet=2)  # a read-only tree: no cache, no noise
    _warm_compile_cache(config)


def _warm_compile_cache(config: pytest.Config) -> None:
    """Compile the models' numba loops once, into their disk cache, before the xdist workers start.

    Why: after a fresh checkout or any change under models/ (the cache is stamped with the
    whole package), each worker and each night process that reaches the evaluation or
    discovery compiles the same loops for itself until one has cached them: ~24 s of CPU
    each. `python -m bodoge.compile_cache` runs the night's model path on a tiny site
    once (~40 s of CPU cold; 0.1 s when its stamp says the cache is warm for this code;
    nothing where numba cannot write its cache). Only the xdist controller runs it, in a
    process of its own; a failure is one line, never a failed session.
    """
    if not getattr(config.option, "numprocesses", None):
        return  # no workers (-n 0): the first test that needs a loop compiles it, as it would here
    try:
        done = subprocess.run([sys.executable, "-m", "bodoge.compile_cache"], cwd=ROOT, capture_output=True,
                              text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        sys.stderr.write(f"compile cache: not warmed: {exc}\n")
        return
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        sys.stderr.write(f"compile cache: not warmed: {last}\n")


@pytest.fixture(scope="module")
def site():
    """The 300-game, 600-member sample site the multi-night crawl tests serve and change
    (drawn once per module; a module that defines its own `site` fixture uses that one)."""
    from samplesite import generate_site
    from tests.crawl_fixtures import NIGHTS_GAMES, NIGHTS_MEMBERS

    return generate_site(n_games=NIGHTS_GAMES, n_users=NIGHTS_MEMBERS, seed=0)


@pytest.fixture(autouse=True)
def _stop_signals_as_they_were() -> Iterator[None]:
    """Each test leaves SIGTERM and SIGINT as it found them (handlers and the thread's mask).

    Why: a test that runs a Dagster job or a crawl in this process can leave a handler
    behind (Dagster's in-process execution turns SIGTERM into KeyboardInterrupt), and an
    ignored or blocked stop signal is inherited by every process a later test starts, which
    then cannot be stopped with `terminate()`.
    """
    stops = (signal.SIGTERM, signal.SIGINT)
    before = {signum: signal.getsignal(signum) for signum in stops}
    yield
    for signum, handler in before.items():
        if signal.getsignal(signum) is not handler and handler is not None:
            signal.signal(signum, handler)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    if blocked & set(stops):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
