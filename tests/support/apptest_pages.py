"""What the dashboard tests share: opening a page under AppTest, reading what it shows,
and a changed copy of the fixture's warehouse to open it on."""

from __future__ import annotations

from pathlib import Path

import duckdb
from tests.support.dashboard_warehouse import DashboardWarehouse
from streamlit.testing.v1 import AppTest

from dashboards.launch import APP
from dashboards.views import PageSpec


def open_page(spec: PageSpec, *, timeout: float = 30) -> AppTest:
    """Run the app, then switch to one page the way a click in the menu would."""
    at = AppTest.from_file(str(APP), default_timeout=timeout).run()
    if not spec.default:
        at.switch_page(f"views/{spec.file}").run()
    return at


def texts(at: AppTest) -> str:
    """All the page's visible prose (titles, headers, markdown, captions, metric labels)."""
    parts = [e.value for kind in ("title", "subheader", "markdown", "caption", "info") for e in getattr(at, kind)]
    parts += [m.label for m in at.metric]
    return "\n".join(str(p) for p in parts)


def header_labels(df) -> dict[str, str]:
    """Column name → the label its header shows (from the table's column config)."""
    import json

    config = json.loads(df.proto.columns or "{}")
    return {name: str(config.get(name, {}).get("label") or "") for name in df.value.columns}


def metrics_of(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def charts(at: AppTest) -> list:
    return list(at.get("vega_lite_chart"))


def assert_clean(at: AppTest) -> None:
    """No exception element, no error box, nothing that looks like a traceback."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert "Traceback" not in texts(at)


def copy_with(dashboard_warehouse: DashboardWarehouse, tmp_path: Path, *edits: str,
              params: list | None = None) -> Path:
    """A copy of the fixture's warehouse changed by `edits` (SQL; the last one takes `params`)."""
    copy = tmp_path / "warehouse.duckdb"
    copy.write_bytes(dashboard_warehouse.path.read_bytes())
    with duckdb.connect(str(copy)) as con:
        for i, statement in enumerate(edits):
            con.execute(statement, params if i == len(edits) - 1 else None)
    return copy
