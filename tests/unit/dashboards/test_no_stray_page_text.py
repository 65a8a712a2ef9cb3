"""No bare string under a dashboard page's module-level statements: Streamlit's "magic" writes
it onto the page (issue 42: a docstring under `SHELVES` showed above the おすすめ page's title)."""

from __future__ import annotations

import ast
from pathlib import Path

import dashboards
from tests.support.source_trees import parsed

PAGES = sorted((Path(dashboards.__file__).parent / "views").glob("*.py")) + [
    Path(dashboards.__file__).parent / "app.py"]


def test_no_page_has_a_bare_string_but_its_docstring() -> None:
    stray = []
    for path in PAGES:
        for node in parsed(path).body[1:]:  # the first may be the module's docstring (magic skips it)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                stray.append(f"{path.name}:{node.lineno}")
    assert len(PAGES) > 3 and stray == []
