"""Integration tests: in-process Dagster runs, demo warehouses and sites built in process, local
HTTP stubs, the dashboard (AppTest and the browser)."""
