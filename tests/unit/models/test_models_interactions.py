"""Reading interaction files, the confidence weighting and the matrix with its mappings."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.interactions import (
    IdIndex,
    InteractionMatrix,
    InteractionsError,
    normalise_interactions,
    read_interactions,
)
from models.weighting import WEIGHTINGS, ConfidenceWeights, with_confidence

ROWS = pl.DataFrame(
    {
        "user_id": [1, 1, 2, 2, 3],
        "game_id": ["catan", "carcassonne", "catan", "azul", "azul"],
        "have": [1, 0, 0, 1, 0],
        "played": [1, 0, 0, 0, 0],
        "favorite": [1, 0, 0, 0, 0],
        "watching": [0, 1, 0, 0, 0],
        "rating": [5.0, None, None, 1.0, None],
    }
)


def confidence_of(frame: pl.DataFrame, weights: ConfidenceWeights) -> dict[tuple[str, str], float]:
    shaped = with_confidence(normalise_interactions(frame), weights)
    return {(u, g): c for u, g, c in shaped.iter_rows()}


def test_default_weighting_by_hand() -> None:
    got = confidence_of(ROWS, ConfidenceWeights())
    # have + played + favorite = 1 + 1 + 2, rated 5: factor 1 + 0.5 * (5 - 3) / 2 = 1.5
    assert got[("1", "catan")] == pytest.approx(4 * 1.5)
    # watching only: the weaker positive
    assert got[("1", "carcassonne")] == pytest.approx(0.5)
    # no flag at all: one plain interaction
    assert got[("2", "catan")] == pytest.approx(1.0)
    # have, rated 1: factor 1 - 0.5 = 0.5
    assert got[("2", "azul")] == pytest.approx(0.5)
    assert got[("3", "azul")] == pytest.approx(1.0)


def test_binary_weighting_makes_every_row_one() -> None:
    got = confidence_of(ROWS, WEIGHTINGS["binary"])
    assert set(got.values()) == {1.0}


def test_watching_is_weaker_than_any_commitment_in_every_weighting_but_binary() -> None:
    for name, weights in WEIGHTINGS.items():
        if name == "binary":
            continue
        assert weights.watching < min(weights.have, weights.played, weights.favorite)


def test_strong_rating_effect_keeps_rows_positive() -> None:
    got = confidence_of(ROWS, WEIGHTINGS["rating_strong"])
    assert got[("2", "azul")] == pytest.approx(ConfidenceWeights().floor)
    assert min(got.values()) > 0


def test_normalise_casts_ids_to_strings_merges_duplicates_and_clips_ratings() -> None:
    frame = pl.DataFrame(
        {
            "user_id": [7, 7, 8, None],
            "game_id": [1, 1, 2, 3],
            "have": [True, False, None, True],
            "rating": [4.0, 2.0, 0.5, 3.0],
        }
    )
    shaped = normalise_interactions(frame)
    assert shaped.schema["user_id"] == pl.String
    assert shaped.height == 2
    first = shaped.row(0, named=True)
    assert first["user_id"] == "7" and first["have"] is True and first["rating"] == 3.0
    assert shaped.row(1, named=True)["rating"] == 1.0
    assert shaped.row(1, named=True)["played"] is False


def test_zero_rating_means_unrated_and_string_flags_parse() -> None:
    frame = pl.DataFrame({"user_id": ["a"], "game_id": ["g"], "played": ["true"], "rating": [0]})
    row = normalise_interactions(frame).row(0, named=True)
    assert row["played"] is True and row["rating"] is None


def test_read_csv_and_parquet_alike(tmp_path: Path) -> None:
    ROWS.write_csv(tmp_path / "rows.csv")
    ROWS.write_parquet(tmp_path / "rows.parquet")
    assert read_interactions(tmp_path / "rows.csv").equals(read_interactions(tmp_path / "rows.parquet"))


def test_csv_keeps_leading_zeros_in_ids(tmp_path: Path) -> None:
    (tmp_path / "ids.csv").write_text("user_id,game_id\n007,0042\n", encoding="utf-8")
    row = read_interactions(tmp_path / "ids.csv").row(0, named=True)
    assert (row["user_id"], row["game_id"]) == ("007", "0042")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.csv", None, "not found"),
        ("no_game.csv", "user_id,rating\n1,5\n", r"lacks column\(s\) game_id"),
        ("broken.parquet", "this is not parquet", "could not read"),
        ("rows.json", "[]", "unsupported interaction file type"),
    ],
)
def test_bad_files_raise_one_line_errors(tmp_path: Path, name: str, content: str | None, message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InteractionsError, match=message) as caught:
        read_interactions(path)
    assert "\n" not in str(caught.value)


def test_matrix_layout_and_lookups() -> None:
    matrix = InteractionMatrix.from_frame(normalise_interactions(ROWS), WEIGHTINGS["binary"])
    assert matrix.shape == (3, 3)
    assert matrix.user_ids.to_list() == ["1", "2", "3"]
    assert matrix.game_ids.to_list() == ["azul", "carcassonne", "catan"]
    assert matrix.user_rows(["3", "nobody", "1"]).tolist() == [2, -1, 0]
    assert matrix.game_cols(["catan"]).tolist() == [2]
    assert matrix.matrix[0].toarray().tolist() == [[0.0, 1.0, 1.0]]


_IDS = st.text(alphabet="ab1ー中 ", max_size=4)


@settings(max_examples=200, deadline=None)
@given(
    mapping=st.lists(_IDS, unique=True, max_size=12),
    asked=st.lists(st.one_of(st.none(), _IDS), max_size=12),
)
def test_id_index_finds_what_a_dict_finds(mapping: list[str], asked: list[str | None]) -> None:
    """Any order of distinct ids (a reused mapping need not be sorted), ids absent or null."""
    where = {key: at for at, key in enumerate(mapping)}
    expected = [where.get(key, -1) if key is not None else -1 for key in asked]
    found = IdIndex(pl.Series(mapping, dtype=pl.String)).positions(pl.Series(asked, dtype=pl.String))
    assert found.dtype == np.int64
    assert found.tolist() == expected


def test_matrix_with_fixed_mappings_drops_unknown_ids() -> None:
    shaped = normalise_interactions(ROWS)
    matrix = InteractionMatrix.from_frame(
        shaped, user_ids=pl.Series(["2", "1"]), game_ids=pl.Series(["catan", "azul"])
    )
    assert matrix.shape == (2, 2)
    assert matrix.matrix.nnz == 3  # (2, catan), (2, azul), (1, catan)


def test_matrix_save_load_round_trip(tmp_path: Path) -> None:
    matrix = InteractionMatrix.from_frame(normalise_interactions(ROWS))
    loaded = InteractionMatrix.load(matrix.save(tmp_path / "saved"))
    assert loaded.user_ids.to_list() == matrix.user_ids.to_list()
    assert loaded.game_ids.to_list() == matrix.game_ids.to_list()
    assert np.array_equal(loaded.matrix.toarray(), matrix.matrix.toarray())
