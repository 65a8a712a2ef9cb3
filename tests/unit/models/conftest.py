"""Fixtures for the model unit tests."""

from tests.support.model_data import small_split  # noqa: F401 - a fixture
