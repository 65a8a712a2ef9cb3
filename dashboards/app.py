"""Entry point of the analysts' dashboard: `streamlit run dashboards/app.py`.

Why so little here: the menu is the page registry (dashboards.views.PAGES) and each page
is its own small script, so this file only sets the page frame, the fonts and the
sidebar note saying which warehouse is shown and how fresh it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

# `streamlit run` puts this folder, not the repository, on sys.path; make `dashboards`
# importable even where the project is not installed.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import streamlit as st  # noqa: E402

from dashboards import ui  # noqa: E402
from dashboards.views import PAGES  # noqa: E402


def main() -> None:
    """Frame, menu, sidebar, then the selected page."""
    st.set_page_config(page_title="bodoge dashboard", page_icon=":material/casino:", layout="wide")
    ui.apply_style()
    page = st.navigation(
        [st.Page(p.path, title=p.title, icon=p.icon, url_path=p.slug, default=p.default) for p in PAGES]
    )
    with st.sidebar:
        path = ui.warehouse_path()
        st.caption(f"Published night (read-only): `{path}`")
        if path.is_file():
            st.caption(f"Published {ui.ago(ui.last_written(path))}")
        if st.button("Reload data", icon=":material/refresh:", help="Forget cached query results"):
            st.cache_data.clear()
    page.run()


main()
