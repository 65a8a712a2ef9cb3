"""The sample sites the sample-site tests share: one small generated site and its truth.

Module-scoped, so each test file that imports them generates the site once. Import the
fixtures by name (`from tests.support.samplesite_fixtures import small, small_truth  # noqa: F401`).
"""

from __future__ import annotations

import polars as pl
import pytest

from samplesite import generate_site, truth_frames
from samplesite.model import Site


@pytest.fixture(scope="module")
def small() -> Site:
    """300 games, 400 members, seed 7, faults on."""
    return generate_site(n_games=300, n_users=400, seed=7)


@pytest.fixture(scope="module")
def small_truth(small: Site) -> dict[str, pl.DataFrame]:
    """The truth frames of ``small``."""
    return truth_frames(small)
