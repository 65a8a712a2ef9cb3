"""Beyond-accuracy metrics, pinned by hand on tiny lists."""

import numpy as np
import polars as pl
import pytest
import scipy.sparse as sp

from models.beyond import (
    intra_list_diversity,
    long_tail_share,
    mean_popularity_rank,
    popularity_ranks,
    rank_stability,
)


def lists(rows: list[tuple[str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"user_id": pl.String, "game_id": pl.String, "rank": pl.Int64}, orient="row")


@pytest.fixture()
def popularity() -> pl.DataFrame:
    # 20 games: g00 has 20 members, g01 19, … g19 1; the head (10 %) is g00 and g01.
    rows = [(f"u{m}", f"g{g:02d}") for g in range(20) for m in range(20 - g)]
    return popularity_ranks(pl.DataFrame(rows, schema={"user_id": pl.String, "game_id": pl.String}, orient="row"))


def test_popularity_ranks_and_head(popularity: pl.DataFrame) -> None:
    assert popularity.filter(pl.col("head")).get_column("game_id").to_list() == ["g00", "g01"]
    assert popularity.row(by_predicate=pl.col("game_id") == "g05", named=True)["popularity_rank"] == 6


def test_long_tail_share_and_mean_popularity_rank(popularity: pl.DataFrame) -> None:
    top = lists([("a", "g00", 1), ("a", "g05", 2), ("b", "g01", 1), ("b", "new", 2), ("b", "g19", 11)])
    assert long_tail_share(top, popularity, k=10) == pytest.approx(2 / 4)  # g05 and the unknown game
    assert mean_popularity_rank(top, popularity, k=10) == pytest.approx((1 + 6 + 2 + 21) / 4)
    assert long_tail_share(lists([]), popularity) == 0.0


def test_intra_list_diversity() -> None:
    ids = pl.Series("game_id", ["x", "y", "z"])
    vectors = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    same = lists([("a", "x", 1), ("a", "y", 2)])
    assert intra_list_diversity(same, ids, vectors) == pytest.approx(0.0)
    apart = lists([("a", "x", 1), ("a", "z", 2)])
    assert intra_list_diversity(apart, ids, vectors) == pytest.approx(1.0)
    # three items: pairs (x,y)=0, (x,z)=1, (y,z)=1 → 2/3; a list of one is skipped
    three = lists([("a", "x", 1), ("a", "y", 2), ("a", "z", 3), ("b", "x", 1)])
    assert intra_list_diversity(three, ids, vectors) == pytest.approx(2 / 3)
    unknown = lists([("a", "x", 1), ("a", "nope", 2)])
    assert intra_list_diversity(unknown, ids, vectors) == pytest.approx(1.0)


def test_intra_list_diversity_is_the_same_number_whatever_the_row_order() -> None:
    """Bit for bit: the evaluation compares reports run on one thread and on two. Lists of
    near-twin games (~0) beside random ones (~1) make the mean's rounding follow the order
    the lists are summed in (without the fix, two values or more in 30 shuffles)."""
    rng = np.random.default_rng(0)
    n = 2000
    base = rng.random((n // 2, 50)) * rng.choice([1e-3, 1.0, 1e3], size=(n // 2, 1))
    vectors = sp.csr_matrix(np.repeat(base, 2, axis=0) + rng.random((n, 50)) * 1e-6)  # g2i ≈ g2i+1
    game_ids = pl.Series("game_id", [f"g{i}" for i in range(n)])
    rows = []
    for user in range(3000):
        if user % 2:
            twin = int(rng.integers(n // 2))
            rows += [(f"u{user}", f"g{2 * twin}", 1), (f"u{user}", f"g{2 * twin + 1}", 2)]
        else:
            games = rng.choice(n, int(rng.integers(2, 11)), replace=False)
            rows += [(f"u{user}", f"g{game}", rank) for rank, game in enumerate(games, start=1)]
    frame = lists(rows)
    values = {intra_list_diversity(frame.sample(fraction=1.0, shuffle=True, seed=seed), game_ids, vectors, 10)
              for seed in range(30)}
    assert len(values) == 1, values


def test_rank_stability() -> None:
    before = lists([("a", "x", 1), ("a", "y", 2), ("b", "x", 1)])
    now = lists([("a", "x", 1), ("a", "z", 2), ("b", "x", 1), ("c", "x", 1)])
    assert rank_stability(now, before) == pytest.approx((1 / 3 + 1.0) / 2)
    assert rank_stability(now, lists([("q", "x", 1)])) is None
