"""Small seeded data shared by the model tests."""

import polars as pl
import pytest

from bodoge.demo import DEMO_SITE
from models.discovery.run import catalog_frame
from models.interactions import normalise_interactions
from models.split import holdout_split
from models.synthetic import synthetic_interactions
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns


@pytest.fixture(scope="session")
def small_split() -> tuple[pl.DataFrame, pl.DataFrame]:
    """300 members, 120 games, ~3.5k rows: enough structure, fast to evaluate."""
    rows = normalise_interactions(
        synthetic_interactions(300, 120, mean_items_per_user=12, n_clusters=6, seed=3)
    )
    return holdout_split(rows, seed=1)


@pytest.fixture(scope="module")
def demo_site() -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """The demo's site (``bodoge demo``: 1,000 games, 2,000 members): its normalised
    collections, its catalogue as discovery reads it, and its members, sorted."""
    generated = generate_site(n_games=DEMO_SITE["games"], n_users=DEMO_SITE["users"], seed=DEMO_SITE["seed"])
    frames = truth_frames(generated)
    rows = normalise_interactions(frames["collections"], source="test")
    users = rows.get_column("user_id").unique().sort().to_list()
    return rows, catalog_frame(with_filter_columns(frames["games"])), users
