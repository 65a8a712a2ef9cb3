"""Fixtures for the model integration tests: the demo's site (for the tests that check a path against
another on every member) and the small seeded split."""

import polars as pl
import pytest

from bodoge.demo import DEMO_SITE
from models.discovery.run import catalog_frame
from models.interactions import normalise_interactions
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from tests.support.model_data import small_split  # noqa: F401 - a fixture
from warehouse.filter_columns import with_filter_columns


@pytest.fixture(scope="module")
def demo_site() -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """The demo's site (``bodoge demo``: 1,000 games, 2,000 members): its normalised
    collections, its catalogue as discovery reads it, and its members, sorted."""
    generated = generate_site(n_games=DEMO_SITE["games"], n_users=DEMO_SITE["users"], seed=DEMO_SITE["seed"])
    frames = truth_frames(generated)
    rows = normalise_interactions(frames["collections"], source="test")
    users = rows.get_column("user_id").unique().sort().to_list()
    return rows, catalog_frame(with_filter_columns(frames["games"])), users
