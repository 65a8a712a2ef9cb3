"""The per-file cost recorder (tests/support/filecost.py): a test's CPU is counted, files rank by it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support import filecost


def _record(item: SimpleNamespace, work: float) -> None:
    """Drive the hook wrapper around `work` seconds of busy CPU, as pytest would around a test."""
    steps = filecost.pytest_runtest_protocol(item, None)
    next(steps)
    end = time.process_time() + work
    while time.process_time() < end:
        pass
    with pytest.raises(StopIteration):
        next(steps)


def test_each_test_is_one_line_with_the_cpu_it_spent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(filecost.ENV, str(tmp_path))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    _record(SimpleNamespace(location=("tests/e2e/test_a.py", 1, "t"), nodeid="tests/e2e/test_a.py::t"), 0.2)
    (line,) = (tmp_path / "gw7.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(line)
    assert row["file"] == "tests/e2e/test_a.py" and row["test"] == "tests/e2e/test_a.py::t"
    assert row["cpu"] >= 0.2 and row["wall"] >= row["cpu"] * 0.5


def test_without_the_folder_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(filecost.ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    _record(SimpleNamespace(location=("tests/e2e/test_a.py", 1, "t"), nodeid="x"), 0.0)
    assert list(tmp_path.iterdir()) == []


def test_files_are_summed_over_workers_and_ranked_by_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = {"gw0": [("a.py", 1.0, 0.5), ("b.py", 2.0, 3.0)], "gw1": [("a.py", 4.0, 1.0), ("a.py", 1.0, 2.0)]}
    for worker, rows in lines.items():
        (tmp_path / f"{worker}.jsonl").write_text(
            "".join(json.dumps({"file": f, "test": f, "wall": w, "cpu": c}) + "\n" for f, w, c in rows), encoding="utf-8")
    assert filecost.per_file(tmp_path) == [("a.py", 3, 6.0, 3.5), ("b.py", 1, 2.0, 3.0)]
    assert filecost.main([str(tmp_path)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].split() == ["3.5", "6.0", "3", "54%", "a.py"] and table[-1].split() == ["6.5", "8.0", "4", "all"]


def test_a_missing_folder_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert filecost.main([str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
