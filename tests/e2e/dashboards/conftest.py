"""Fixtures for the dashboard's end-to-end tests (the server started and stopped for real)."""

from tests.support.dashboard_warehouse import empty_warehouse  # noqa: F401 - a fixture
