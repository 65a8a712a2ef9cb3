"""`ops.errors`: the one-line error is written in one place.

The formatter's own behaviour, and a walk over every module of the project (ast, nothing
imported) that fails when a string outside `ops/errors.py` spells the `…: error: …` line
by hand, as seven places once did. Docstrings may describe the line; code may not write it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ops.errors import error_line, error_of, one_line
from tests.support.source_trees import walked

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("core", "ops", "scrapers", "warehouse", "models", "samplesite", "pipelines", "bodoge", "dashboards",
           "benchmarks")
HOME = Path("ops") / "errors.py"
ERROR_SHAPE = re.compile(r"(^|: )error: ")


def handwritten_error_lines(root: Path = ROOT) -> list[str]:
    """`path:line` of every non-docstring string (f-strings too) shaped like an error line."""
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            if path.relative_to(root) == HOME:
                continue
            tree = walked(path)
            docstrings = {id(node.body[0].value) for node in tree
                          if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                          and node.body and isinstance(node.body[0], ast.Expr)}
            parts_of_fstrings = {id(part) for node in tree if isinstance(node, ast.JoinedStr)
                                 for part in node.values}
            for node in tree:
                if id(node) in docstrings or id(node) in parts_of_fstrings:
                    continue
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                elif isinstance(node, ast.JoinedStr):
                    text = "".join(p.value if isinstance(p, ast.Constant) else "{}" for p in node.values)
                else:
                    continue
                if ERROR_SHAPE.search(text):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_the_error_line_is_written_only_by_ops_errors() -> None:
    assert handwritten_error_lines() == [], "write the one-line error with ops.errors (error_line / fail)"


def test_the_walk_finds_a_planted_hand_written_error_line(tmp_path: Path) -> None:
    for folder in FOLDERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "bodoge" / "x.py").write_text(
        '"""Ends in `bodoge: error: …`, which a docstring may say."""\n'
        "import sys\n"
        "def f(exc):\n"
        '    """So may this: error: x."""\n'
        '    print(f"bodoge: error: {exc}", file=sys.stderr)\n'
        'CHILD = "bodoge: error: "\n', encoding="utf-8")
    (tmp_path / "warehouse" / "y.py").write_text('print(f"error: {1}")\n', encoding="utf-8")
    assert sorted(handwritten_error_lines(tmp_path)) == ["bodoge/x.py:5", "bodoge/x.py:6", "warehouse/y.py:1"]


def test_the_line_and_its_reading_back() -> None:
    assert error_line("no such user 7") == "bodoge: error: no such user 7"
    assert error_line("x", prog="export_schemas") == "export_schemas: error: x"
    assert error_of(error_line("cannot reach http://x: refused")) == "cannot reach http://x: refused"
    assert error_of("bodoge: note: something") is None
    assert error_of("crawl: 12 pages") is None


@pytest.mark.parametrize(("exc", "line"), [
    (ValueError("bad value\nsecond line"), "bad value"),
    (FileNotFoundError(2, "No such file or directory", "/x/y.duckdb"), "no such file: /x/y.duckdb"),
    (KeyError("k"), "KeyError: 'k'"),
    (RuntimeError(""), "RuntimeError: RuntimeError"),
])
def test_one_line_keeps_a_librarys_type_and_drops_our_own(exc: BaseException, line: str) -> None:
    assert one_line(exc) == line
