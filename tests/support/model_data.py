"""Small seeded data the model tests share (the tiers' conftests import the fixture)."""

import polars as pl
import pytest

from models.interactions import normalise_interactions
from models.split import holdout_split
from models.synthetic import synthetic_interactions


@pytest.fixture(scope="session")
def small_split() -> tuple[pl.DataFrame, pl.DataFrame]:
    """300 members, 120 games, ~3.5k rows: enough structure, fast to evaluate."""
    rows = normalise_interactions(
        synthetic_interactions(300, 120, mean_items_per_user=12, n_clusters=6, seed=3)
    )
    return holdout_split(rows, seed=1)
