"""The tiers' markers, the test order for two workers (the longest files first, so none starts
last), and the sample site the multi-night crawl tests share.

Tiers: a test's folder is its tier. `tests/unit/` (no process, no socket, no Dagster run),
`tests/integration/` (Dagster in process, demo warehouses and sites built in process, local HTTP
stubs, the dashboard) and `tests/e2e/` (real processes and signals, crawls over HTTP, `bodoge
serve`, PostgreSQL); each test gets its tier's marker here, so `-m unit` is `tests/unit/`, and
`slow` (integration or e2e) is kept for `-m "not slow"`.

Order: the command that runs every tier (README.md) uses two xdist workers, one file per worker
at a time (`--dist loadfile`), handed out in collection order. A two-minute file collected
near the end starts when the other worker has nothing left, and the suite waits for it
alone. Longest first (the classic LPT rule) lets the short files fill in around them.
xdist would otherwise reorder the files by their number of tests (its default
`--loadscope-reorder`, which put every one-test end-to-end file last), so that command
passes `--no-loadscope-reorder` and this order is the one the workers get.
The costs are seconds measured in a full run on 2 cores; a file not listed costs nothing
here and keeps its place among the rest.
"""

from __future__ import annotations

import compileall
import signal
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

#: Tiers, by the folder under tests/ a test file is in.
TIERS = ("unit", "integration", "e2e")

#: Files that take longest (paths under tests/), with their seconds: each file's tests' durations
#: summed (the JUnit report of `pytest tests/e2e` and `pytest tests/integration`, each with
#: `-n 2 --dist loadfile`, 2026-11-28; other sessions loaded the 2 cores, load average 6-12 for
#: e2e and 4-6 for integration, so only the order is exact). Every file of 10 s or more is
#: listed: one left out keeps its collection place and may start last. Merged files add up
#: the files they were.
SLOWEST: dict[str, int] = {
    "e2e/test_postgres_nights.py": 210, "e2e/test_benchmarks.py": 195, "e2e/test_incremental_crawl.py": 150,
    "e2e/test_pipeline.py": 135, "e2e/test_serve.py": 125, "e2e/test_release_crashes.py": 120,
    "e2e/test_failed_nights.py": 120, "e2e/test_readme_examples.py": 115, "e2e/test_signal_fallbacks.py": 115,
    "e2e/test_bgg_sync.py": 100, "e2e/test_bgg_demo.py": 95, "e2e/test_delivery.py": 95,
    "e2e/test_cli_evaluate.py": 95, "e2e/test_readers_during_night.py": 90, "e2e/test_nightly_supervision.py": 90,
    "e2e/test_restore.py": 85, "e2e/test_serve_failures.py": 75, "e2e/test_crawl_failures.py": 75,
    "e2e/models/test_compiled_cache.py": 75, "e2e/test_pid_reuse.py": 70, "e2e/test_cli_bad_input.py": 60,
    "e2e/test_private_killed_crawl.py": 60, "e2e/test_listing_totals.py": 60, "e2e/test_hostile_text.py": 55,
    "e2e/test_stability_nights.py": 50, "e2e/api/test_api_service.py": 50, "e2e/test_refresh.py": 45,
    "e2e/test_damaged_published.py": 45, "e2e/test_full_disk.py": 40,
    "integration/models/test_models_evaluate.py": 40, "e2e/test_analyst_cookbook.py": 40, "e2e/test_alerts.py": 35,
    "integration/models/test_discovery_fused.py": 35, "integration/dashboards/test_dashboard_browser.py": 35,
    "e2e/test_one_page_listings.py": 35, "e2e/api/test_api_routes.py": 35, "e2e/test_crawl.py": 30,
    "e2e/test_types.py": 30, "integration/models/test_fold_in.py": 30, "integration/test_export_retention.py": 30,
    "integration/models/test_discovery_anchors.py": 25, "integration/models/test_discovery_engines.py": 25,
    "e2e/test_players_rule.py": 25, "e2e/test_bgg_best.py": 25, "integration/models/test_quality_forward.py": 20,
    "e2e/test_restore_privacy.py": 20, "e2e/test_bgg_links.py": 20,
    "integration/dashboards/test_dashboard_apptest.py": 20, "e2e/test_truncation.py": 15,
    "e2e/test_bgg_night.py": 15, "integration/models/test_ensemble_serving.py": 15,
    "e2e/dashboards/test_dashboard_signals.py": 15,
}


def _tier(item: pytest.Item) -> str | None:
    """The tier folder a test under tests/ is in (None outside tests/); a test file anywhere else
    under tests/ is refused, so no test runs without its tier."""
    try:
        first = item.path.relative_to(TESTS).parts[0]
    except ValueError:
        return None
    if first not in TIERS:
        raise pytest.UsageError(f"{item.nodeid}: test files live in tests/unit, tests/integration or tests/e2e "
                                "(the folder is the tier: docs/development.md)")
    return first


def _cost(item: pytest.Item) -> int:
    try:
        return SLOWEST.get(item.path.relative_to(TESTS).as_posix(), 0)
    except ValueError:
        return 0


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by the markers given here
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier (and `slow` beyond unit), then sort the items by their
    file's cost, longest first (stable: same order in every worker)."""
    for item in items:
        tier = _tier(item)
        if tier is not None:
            item.add_marker(tier)
            if tier != "unit":
                item.add_marker("slow")
    items.sort(key=_cost, reverse=True)


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile the project's own packages once per session, where Python would not cache them.

    Why: with PYTHONDONTWRITEBYTECODE set, every process compiles what it imports from
    source, and the suite starts hundreds of them (each `bodoge` command; each night's
    supervisor, worker and crawler; serve's daemon and code servers): about 2.5 s of a
    night's 18 s of CPU. Python checks each .pyc against its source's mtime, so an edited
    file never runs from a stale one; `__pycache__/` is ignored by git. The dependencies
    (site-packages) are compiled here too, as `uv sync --compile-bytecode` would (not in
    pyproject.toml: there it made every `uv run` recompile them, uv #12202). Done once,
    by the xdist controller (or the only process), before the workers start; the controller
    warms numba's cache of the models' loops (`_warm_compile_cache`) in a process of its own
    meanwhile: each takes one core, and side by side they end sooner (on a fresh clone,
    `pytest -n 2 --co` took 71.5 and 72.4 s one after the other, 47.4 and 53.5 s side by side).

    Each test process (the controller, each worker) writes bytecode itself, whatever
    PYTHONDONTWRITEBYTECODE says: pytest rewrites every test module's asserts on import and
    caches the result only where bytecode may be written, so without it each worker rewrote
    all ~260 test modules at every run (collecting the unit tier: 11.1 s of CPU without the
    cache, 5.8 s with it). The processes the tests start keep the environment's setting.
    """
    suppressed = sys.dont_write_bytecode
    sys.dont_write_bytecode = False  # this process: pytest caches the test modules it rewrites
    if hasattr(config, "workerinput"):
        return
    packages: list[Path] = []
    if suppressed:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        names = project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] + ["benchmarks"]
        packages = [ROOT / name for name in names if (ROOT / name).is_dir()]
    for package in packages:  # first: the warm-up imports them
        compileall.compile_dir(package, quiet=2)  # a read-only tree: no cache, no noise
    warming = _warm_compile_cache(config)
    if packages:
        compileall.compile_dir(sysconfig.get_paths()["purelib"], quiet=2)  # up to date: a stat per file
    if warming is not None:
        _warmed(warming)


def _warm_compile_cache(config: pytest.Config) -> subprocess.Popen | None:
    """Start compiling the models' numba loops once, into their disk cache, before the xdist
    workers start (`_warmed` waits for it).

    Why: after a fresh checkout or any change under models/fast/ (the cache is stamped with the
    kernel library, models/fast/), each worker and each night process that reaches the evaluation or
    discovery compiles the same loops for itself until one has cached them: ~24 s of CPU
    each. `python -m bodoge.compile_cache` runs the night's model path on a tiny site
    once (~40 s of CPU cold; 0.1 s when its stamp says the cache is warm for this code;
    nothing where numba cannot write its cache). Only the xdist controller runs it, in a
    process of its own; a failure is one line, never a failed session.
    """
    if not getattr(config.option, "numprocesses", None):
        return None  # no workers (-n 0): the first test that needs a loop compiles it, as it would here
    try:
        return subprocess.Popen([sys.executable, "-m", "bodoge.compile_cache"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        sys.stderr.write(f"compile cache: not warmed: {exc}\n")
        return None


def _warmed(warming: subprocess.Popen) -> None:
    """Wait for the warm-up; a failure is one line."""
    try:
        _, err = warming.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        warming.kill()
        warming.communicate()
        sys.stderr.write("compile cache: not warmed: it took over 900 s\n")
        return
    if warming.returncode != 0:
        last = (err.strip().splitlines() or [f"exit status {warming.returncode}"])[-1]
        sys.stderr.write(f"compile cache: not warmed: {last}\n")


@pytest.fixture(scope="module")
def site():
    """The 300-game, 600-member sample site the multi-night crawl tests serve and change
    (drawn once per module; a module that defines its own `site` fixture uses that one)."""
    from tests.support.crawl_fixtures import nights_site

    return nights_site()


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
