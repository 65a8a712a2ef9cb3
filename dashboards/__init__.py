"""The analysts' dashboard: a read-only Streamlit app over the published night.

- `app.py`     entry point (`streamlit run dashboards/app.py`), menu from `views.PAGES`
- `views/`     one small script per page (not `pages/`: see views/__init__.py), each with
               its own queries beside its charts
- `sql.py`     the shape every query shares (`@query`: SQL with bound `$params`), the table list
- `ui.py`      warehouse access (read-only, cached results, friendly notes), fonts
- `charts.py`  Altair helpers with a CJK-capable font family
- `launch.py`  `launch()` / `wait_until_ready()` used by `bodoge dashboard` and the tests

The file read is `$BODOGE_DASHBOARD_DB` (set by `bodoge dashboard`), else the published night
`$BODOGE_DATA_DIR/published.duckdb` (default `data/published.duckdb`); `BODOGE_WAREHOUSE`
is the night's warehouse, which the dashboard never opens.
"""
