"""The analysts' dashboard: a read-only Streamlit app over the DuckDB warehouse.

- `app.py`     entry point (`streamlit run dashboards/app.py`), menu from `views.PAGES`
- `views/`     one small script per page (not `pages/`: see views/__init__.py)
- `queries.py` every SQL query, plain `(con, **params) -> polars.DataFrame` functions
- `ui.py`      warehouse access (read-only, cached results, friendly notes), fonts
- `charts.py`  Altair helpers with a CJK-capable font family
- `launch.py`  `launch()` / `wait_until_ready()` used by `bodoge dashboard` and the tests

The warehouse is `$BODOGE_WAREHOUSE` (default `data/warehouse.duckdb`).
"""
