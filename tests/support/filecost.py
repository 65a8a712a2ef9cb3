"""Each test's wall time and CPU (its process and the children it waited for), summed per file.

Why: on the shared 2-core machine the wall time of a test file says mostly how loaded the
machine was; the CPU it spent (its own and that of the `bodoge`, night and crawl processes
it started and reaped) barely moves with the load, so the files to cut are ranked by it.
Load it as a plugin with a folder to write to, then rank:

    BODOGE_FILECOST_DIR=/tmp/cost uv run --locked pytest tests/e2e -p tests.support.filecost -n 2 --dist loadfile
    uv run --locked python -m tests.support.filecost /tmp/cost

Each xdist worker appends one JSON line per test to `<folder>/<worker>.jsonl`. A process
a test starts and never reaps (a daemon another process reaps) is not counted; a module
fixture's cost lands on the file's first test, so only the per-file sums are meaningful.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ENV = "BODOGE_FILECOST_DIR"


def _cpu() -> float:
    """Seconds of user + system CPU of this process and of its reaped children."""
    own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Time one test (setup, call, teardown) and append its line; nothing without the folder."""
    folder = os.environ.get(ENV)
    if not folder:
        yield
        return
    wall, cpu = time.perf_counter(), _cpu()
    yield
    line = {"file": item.location[0], "test": item.nodeid, "wall": time.perf_counter() - wall, "cpu": _cpu() - cpu}
    Path(folder).mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(Path(folder) / f"{worker}.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def per_file(folder: Path) -> list[tuple[str, int, float, float]]:
    """(file, tests, wall s, cpu s) for every file recorded in `folder`, most CPU first."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for path in sorted(folder.glob("*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(text)
            entry = sums[row["file"]]
            entry[0] += 1
            entry[1] += row["wall"]
            entry[2] += row["cpu"]
    rows = [(name, int(n), wall, cpu) for name, (n, wall, cpu) in sums.items()]
    return sorted(rows, key=lambda row: (-row[3], row[0]))


def main(argv: list[str]) -> int:
    """Print the per-file table (CPU, wall, tests, the CPU's running share); one-line errors."""
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python -m tests.support.filecost FOLDER (written by -p tests.support.filecost)", file=sys.stderr)
        return 2
    rows = per_file(Path(argv[0]))
    total = sum(cpu for *_, cpu in rows) or 1.0
    running = 0.0
    print(f"{'cpu s':>8} {'wall s':>8} {'tests':>5} {'share':>6}  file")
    for name, n, wall, cpu in rows:
        running += cpu
        print(f"{cpu:8.1f} {wall:8.1f} {n:5d} {running / total:6.0%}  {name}")
    print(f"{total:8.1f} {sum(w for _, _, w, _ in rows):8.1f} {sum(n for _, n, _, _ in rows):5d}         all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
