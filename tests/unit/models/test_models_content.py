"""Content similarity: features, chunked top-k, member scores, persistence."""

import math

import numpy as np
import polars as pl
import pytest

import models.content as content_module
from models.content import ContentModel, content_features, display_names, game_texts
from models.specs import clean_specs, soft_buckets
from warehouse.filter_columns import with_filter_columns

SCHEMA = {
    "game_id": pl.String, "name_ja": pl.String, "name_en": pl.String,
    "min_players": pl.Int64, "max_players": pl.Int64, "min_minutes": pl.Int64,
    "max_minutes": pl.Int64, "min_age": pl.Int64, "year": pl.Int64,
    "designers": pl.List(pl.String), "mechanics": pl.List(pl.String), "themes": pl.List(pl.String),
    "overview": pl.String,
}


def games_frame() -> pl.DataFrame:
    """Two families (worker placement / economy, and deduction / horror) and a blank game."""
    rows = [
        ("agricola", "アグリコラ", "Agricola", 1, 4, 30, 150, 12, 2007, ["ウヴェ・ローゼンベルク"],
         ["ワーカープレイスメント", "ハンドマネジメント"], ["農業", "経済"],
         "農場を発展させるワーカープレイスメントのゲームです。家族を増やして資源を集めます。"),
        ("caverna", "カヴェルナ", "Caverna", 1, 7, 30, 210, 12, 2013, ["ウヴェ・ローゼンベルク"],
         ["ワーカープレイスメント"], ["農業", "ファンタジー"],
         "洞窟を掘り進めるワーカープレイスメントのゲームです。資源を集めて家族を増やします。"),
        ("le-havre", "ル・アーヴル", "Le Havre", 1, 5, 100, 200, 12, 2008, ["ウヴェ・ローゼンベルク"],
         ["ワーカープレイスメント"], ["経済"],
         "港町で資源を集めて建物を建てるワーカープレイスメントのゲームです。"),
        ("werewolf", "人狼", "Werewolf", 3, 65536, 10, 30, 10, 2001, ["フィリップ・デ・パリエール"],
         ["正体隠匿", "推理"], ["ホラー"],
         "村人の中に紛れた人狼を推理で探し出す正体隠匿のゲームです。"),
        ("insider", "インサイダー・ゲーム", "Insider", 4, 8, 15, 15, 9, 2016, ["神谷友輔"],
         ["正体隠匿", "推理"], ["ミステリー"],
         "質問で答えを当てながらインサイダーを推理で探し出す正体隠匿のゲームです。"),
        ("blank", "ナゾ", None, None, None, None, None, None, None, [], [], [], None),
    ]
    return with_filter_columns(pl.DataFrame(rows, schema=SCHEMA, orient="row"))


@pytest.fixture(scope="module")
def model() -> ContentModel:
    return ContentModel.fit(games_frame())


def test_features_are_unit_rows_and_blank_game_is_zero(model: ContentModel) -> None:
    norms = np.sqrt(np.asarray(model.features.multiply(model.features).sum(axis=1)).ravel())
    blank = int(model.index_of(["blank"])[0])
    assert norms[blank] == pytest.approx(0.0, abs=1e-6) or norms[blank] == pytest.approx(1.0)
    others = np.delete(norms, blank)
    np.testing.assert_allclose(others, 1.0, rtol=1e-5)
    assert model.features.dtype == np.float32


def test_nearest_games_share_mechanics_and_themes(model: ContentModel) -> None:
    ids, scores = model.similarity_topk(2)
    names = model.game_ids.to_list()
    nearest = {names[i]: names[int(ids[i, 0])] for i in range(model.n_games) if ids[i, 0] >= 0}
    assert nearest["agricola"] in {"caverna", "le-havre"}
    assert nearest["werewolf"] == "insider"
    assert nearest["insider"] == "werewolf"
    assert np.all(np.diff(scores[np.isfinite(scores).all(axis=1)], axis=1) <= 0)  # best first


def test_topk_never_returns_the_game_itself_and_pads(model: ContentModel) -> None:
    ids, scores = model.similarity_topk(10)
    assert ids.shape == (model.n_games, 10)
    for row in range(model.n_games):
        assert row not in ids[row]
    # Only 5 other games exist: the tail is padding.
    assert (ids[:, 5:] == -1).all()
    assert np.isneginf(scores[ids == -1]).all()
    assert (scores[ids >= 0] > 0).all()


def test_chunked_topk_equals_dense(monkeypatch: pytest.MonkeyPatch, model: ContentModel) -> None:
    dense = (model.features @ model.features.T).toarray()
    expected_ids, _ = content_module.top_n(
        np.where((dense > 0) & ~np.eye(model.n_games, dtype=bool), dense, -np.inf).astype(np.float32), 3
    )
    monkeypatch.setattr(content_module, "CHUNK_CELLS", 7)  # one game per chunk
    chunked = ContentModel(game_ids=model.game_ids, names=model.names, features=model.features)
    assert len(list(chunked.chunks())) == model.n_games
    ids, _ = chunked.similarity_topk(3)
    np.testing.assert_array_equal(ids, expected_ids)


@pytest.mark.parametrize("spoil", [None, np.inf, np.nan])
def test_pair_similarity_is_scipys_row_product_on_sorted_rows(model: ContentModel, spoil: float | None) -> None:
    """Compiled on finite features; scipy's own products (``inf · 0`` of a column one row
    lacks is NaN there) when a feature is not finite."""
    features = model.features.copy()
    if spoil is not None:
        features.data[3] = spoil
    fresh = ContentModel(game_ids=model.game_ids, names=model.names, features=features)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, fresh.n_games, 500), rng.integers(0, fresh.n_games, 500)
    ordered = features.copy()
    ordered.sort_indices()
    want = np.asarray(ordered[a].multiply(ordered[b]).sum(axis=1), dtype=np.float32).ravel()
    got = fresh.pair_similarity(a, b)
    np.testing.assert_array_equal(got, want)  # NaN where scipy has NaN
    if spoil is None:
        assert got.tobytes() == want.tobytes() and (got > 0).any()


def test_member_content_score_is_weighted_mean_over_neighbours(model: ContentModel) -> None:
    """What discovery scores by content: a member's liked weights (summing to 1) times the
    neighbour graph, i.e. the weighted mean similarity of each game to the liked games."""
    from models.discovery.members import member_rows

    ids = model.game_ids.to_list()
    collections = pl.DataFrame(
        {
            "user_id": ["fan", "fan"], "game_id": [ids[0], ids[3]], "have": [True, True],
            "played": [True, False], "favorite": [True, False], "watching": [False, False],
            "rating": [None, None],
        },
        schema_overrides={"rating": pl.Float64},
    )
    liked = member_rows(model.game_ids, collections, ["fan", "nobody"]).liked
    graph_rows = model.neighbours(2).toarray()
    scores = (liked @ model.neighbours(2)).toarray()
    np.testing.assert_allclose(scores[0], (graph_rows[0] * 1.0 + graph_rows[3] * 0.5) / 1.5, rtol=1e-5)
    assert (scores[1] == 0).all()  # nobody liked anything: zeros, not NaN


def test_similar_lists_shape(model: ContentModel) -> None:
    from models.base import topk_frame

    ids, values = model.similarity_topk(2)
    frame = topk_frame(model.game_ids, ids, values, model.game_ids, key="game_id", value="similar_game_id")
    assert frame.columns == ["game_id", "rank", "similar_game_id", "score"]
    assert frame.filter(pl.col("game_id") == pl.col("similar_game_id")).height == 0
    assert frame.group_by("game_id").agg(pl.col("rank").max()).get_column("rank").max() == 2



def test_implausible_values_are_unknown() -> None:
    """Features read marts.games' filter columns: 3–65536人 is unknown, as for every filter."""
    games = games_frame()
    specs = clean_specs(games)
    werewolf = games.get_column("game_id").to_list().index("werewolf")
    assert math.isnan(specs["max_players"][werewolf])
    assert math.isnan(specs["min_players"][werewolf])
    assert (specs["min_players"][0], specs["max_players"][0]) == (1, 4)
    unknown_time = games.with_columns(pl.when(pl.col("game_id") == "agricola").then(None)
                                      .otherwise(pl.col("minutes_to")).alias("minutes_to"))
    assert math.isnan(clean_specs(unknown_time)["min_minutes"][0])
    with pytest.raises(ValueError, match="players_from"):
        clean_specs(games.drop("players_from"))


def test_soft_buckets_share_between_neighbouring_centres() -> None:
    values = np.array([10.0, 15.0, 100.0, np.nan, 1.0])
    buckets = soft_buckets(values, (10.0, 20.0, 40.0))
    np.testing.assert_allclose(buckets[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(buckets[1], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(buckets[2], [0.0, 0.0, 1.0])  # beyond the end: last bucket
    np.testing.assert_allclose(buckets[3], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(buckets[4], [1.0, 0.0, 0.0])


def test_post_bodies_are_appended_and_truncated() -> None:
    games = games_frame()
    posts = pl.DataFrame(
        {
            "post_id": ["2", "1", "3"],
            "game_id": ["agricola", "agricola", "insider"],
            "post_kind": ["review", "rule", "rule"],
            "body": ["レビュー" * 10, "ルール" * 1000, None],
        }
    )
    texts = game_texts(games, posts, limit=50)
    agricola = texts[games.get_column("game_id").to_list().index("agricola")]
    assert agricola.startswith("アグリコラ\nAgricola\n")
    assert agricola.endswith("\n" + "ルール" * 16 + "ルー")  # rules first, cut at 50 characters
    assert "レビュー" not in agricola
    insider = texts[games.get_column("game_id").to_list().index("insider")]
    assert insider.endswith("\n")  # no usable post: nothing appended but the separator


def test_text_is_nfkc_normalised() -> None:
    games = games_frame().with_columns(pl.lit("ﾜｰｶｰ１２３").alias("overview"))
    assert "ワーカー123" in game_texts(games)[0]


def test_display_names_fall_back_to_english_then_slug() -> None:
    frame = pl.DataFrame({"game_id": ["a", "b", "c"], "name_ja": ["日本語", "", None], "name_en": ["x", "English", None]})
    assert display_names(frame).to_list() == ["日本語", "English", "c"]


def test_tiny_catalogues_do_not_fail() -> None:
    one = games_frame().head(1)
    features = content_features(one)
    assert features.shape[0] == 1
    model = ContentModel.fit(one)
    ids, _ = model.similarity_topk(3)
    assert (ids == -1).all()


def test_save_and_load_round_trip(tmp_path, model: ContentModel) -> None:
    model.save(tmp_path)
    loaded = ContentModel.load(tmp_path)
    assert loaded.game_ids.to_list() == model.game_ids.to_list()
    assert loaded.names.to_list() == model.names.to_list()
    assert (loaded.features != model.features).nnz == 0
    assert loaded.weights == model.weights


def test_same_input_same_features() -> None:
    a = content_features(games_frame())
    b = content_features(games_frame())
    assert (a != b).nnz == 0
