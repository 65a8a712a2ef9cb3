"""Discovery: recommendations for every member, similar games for every game, serving
from the saved model. (The serving filter on hand-made rows: test_models_discovery_filters.py.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from models.discovery.blend import Blend
from models.discovery.lists import RECOMMENDATION_COLUMNS, SIMILAR_COLUMNS
from models.discovery.run import ChampionFit, Discovery, discover
from models.discovery.serving import score_user_on_the_fly
from models.discovery.store import load_state
from models.interactions import normalise_interactions
from tests.support.attribution_check import assert_attribution_matches_explain
from tests.support.discovery_data import (
    GENERATED_AT,
    NEW_GAME,
    SOLO_GAME,
    discovery_data,
)


@pytest.fixture(scope="module")
def data() -> dict[str, object]:
    return discovery_data()


def _run(data: dict[str, object], champion: str = "ease", params: dict | None = None, **kwargs) -> Discovery:
    return discover(
        collections=data["collections"],  # type: ignore[arg-type]
        games=data["games"],  # type: ignore[arg-type]
        posts=data["posts"],  # type: ignore[arg-type]
        champion=champion,
        params=params or {},
        weighting="graded",
        run_id="run-1",
        generated_at=GENERATED_AT,
        **kwargs,
    )


@pytest.fixture(scope="module")
def result(data: dict[str, object], tmp_path_factory: pytest.TempPathFactory) -> Discovery:
    return _run(data, model_dir=tmp_path_factory.mktemp("discovery"))


def _rows_of(frame: pl.DataFrame, user: str) -> pl.DataFrame:
    return frame.filter(pl.col("user_id") == user).sort("rank")


def test_columns_and_ranks(result: Discovery, data: dict[str, object]) -> None:
    recs = result.recommendations
    assert tuple(recs.columns) == RECOMMENDATION_COLUMNS
    assert "watching" not in recs.columns  # a 興味あり game never comes back (marts.watch_next ranks them)
    assert recs.schema["score"] == pl.Float64
    assert recs.get_column("model").unique().to_list() == ["ease"]
    assert recs.get_column("run_id").unique().to_list() == ["run-1"]
    assert recs.get_column("generated_at").unique().to_list() == [GENERATED_AT]
    # Every member of the collections, ranks 1..k without gaps, 100 deep unless fewer games are new to them.
    members = data["collections"].get_column("user_id").n_unique()  # type: ignore[union-attr]
    catalogue = data["games"].select("game_id")  # type: ignore[union-attr]
    known = data["collections"].join(catalogue, on="game_id").group_by("user_id").len("known")  # type: ignore[union-attr]
    per_user = recs.group_by("user_id").agg(pl.len().alias("n"), pl.col("rank").min().alias("lo"), pl.col("rank").max().alias("hi"))
    assert per_user.height == members
    assert (per_user.get_column("lo") == 1).all()
    assert (per_user.get_column("hi") == per_user.get_column("n")).all()
    depth = per_user.join(known, on="user_id").select(pl.min_horizontal(100, catalogue.height - pl.col("known")))
    assert (per_user.join(known, on="user_id").get_column("n") == depth.to_series()).all()
    assert (per_user.get_column("n") == 100).mean() > 0.95
    assert recs.select(pl.struct("user_id", "game_id").is_unique().all()).item()
    # Scores never increase down a member's list.
    ordered = recs.sort("user_id", "rank")
    assert ordered.select((pl.col("score").diff().over("user_id").fill_null(0) <= 1e-9).all()).item()


def test_never_a_game_in_the_members_collection(result: Discovery, data: dict[str, object]) -> None:
    rows = normalise_interactions(data["collections"])  # type: ignore[arg-type]
    # Every row: no entry at all (not had, not played, not favourited, not 興味あり).
    assert result.recommendations.join(rows, on=["user_id", "game_id"], how="semi").height == 0
    fav_only = result.recommendations.filter(pl.col("user_id") == "fav-only")
    assert fav_only.height == 100
    assert fav_only.join(rows.filter(pl.col("user_id") == "fav-only"), on="game_id", how="semi").height == 0


def test_watched_games_leave_discovery_for_their_shelf(result: Discovery, data: dict[str, object]) -> None:
    rows = normalise_interactions(data["collections"])  # type: ignore[arg-type]
    watch_list = rows.filter(pl.col("watching") & ~pl.col("have") & ~pl.col("played")).select("user_id", "game_id")
    assert result.recommendations.join(watch_list, on=["user_id", "game_id"], how="semi").height == 0
    assert not result.recommendations.get_column("reason").str.contains("興味ありに登録済み").any()
    # The shelf holds every watch-list game of the catalogue (at most 100 a member), and nothing else.
    shelf = result.watch_next
    assert shelf.join(watch_list, on=["user_id", "game_id"], how="anti").height == 0
    listed = watch_list.join(data["games"].select("game_id"), on="game_id")  # type: ignore[union-attr]
    expected = listed.group_by("user_id").len().select(pl.col("len").clip(upper_bound=100).sum()).item()
    assert shelf.height == expected == result.stats["n_watch_next"]
    # The member with two games watches one of them: it is their whole watch list.
    two = _rows_of(shelf, "two-games")
    assert two.height == 1 and two.get_column("rank").to_list() == [1]
    assert two.get_column("game_id").to_list() == watch_list.filter(pl.col("user_id") == "two-games")["game_id"].to_list()


def test_cold_start_game_reaches_the_fan(result: Discovery, data: dict[str, object]) -> None:
    fan_rows = _rows_of(result.recommendations, data["fan"])  # type: ignore[arg-type]
    candidates = data["games"].height - data["collections"].filter(pl.col("user_id") == data["fan"]).height  # type: ignore[union-attr]
    assert candidates > 200  # the top 100 is a real choice for this member
    assert NEW_GAME in fan_rows.get_column("game_id").to_list()
    row = fan_rows.filter(pl.col("game_id") == NEW_GAME).row(0, named=True)
    assert row["rank"] <= 50  # not squeezed in at the bottom: content carries it well up the list
    assert row["reason"].endswith("が好きなあなたに")
    assert result.stats["n_cold_games"] >= 1
    assert result.stats["n_cold_recommendations"] >= 1
    # And it has similar games (content only), like every game.
    assert result.similar_games.filter(pl.col("game_id") == NEW_GAME).height == 10


def test_members_with_one_or_two_games(result: Discovery, data: dict[str, object]) -> None:
    names = dict(zip(data["games"]["game_id"], data["games"]["name_ja"]))  # type: ignore[index]
    one = _rows_of(result.recommendations, "one-game")
    assert one.height == 100
    own = data["collections"].filter(pl.col("user_id") == "one-game").get_column("game_id")[0]  # type: ignore[union-attr]
    assert own not in one.get_column("game_id").to_list()
    # Every reason of a one-game member names that game (or says popular).
    assert one.get_column("reason").is_in([f"「{names[own]}」が好きなあなたに", "人気のゲーム"]).all()
    assert one.head(10).get_column("reason").str.contains(names[own], literal=True).all()
    two = _rows_of(result.recommendations, "two-games")
    assert two.height == 100
    # Sensible: the top games share mechanics or themes with the owned game.
    games = data["games"]
    owned = games.filter(pl.col("game_id") == data["collections"].filter(  # type: ignore[union-attr]
        (pl.col("user_id") == "two-games") & pl.col("have")).get_column("game_id")[0])
    labels = set(owned.get_column("mechanics")[0]) | set(owned.get_column("themes")[0])
    top = games.filter(pl.col("game_id").is_in(two.head(10).get_column("game_id").implode()))  # type: ignore[union-attr]
    shared = [bool(labels & (set(m) | set(t))) for m, t in zip(top["mechanics"], top["themes"])]
    assert sum(shared) >= 5


def test_member_unknown_to_cf_falls_back_to_content_and_popularity(result: Discovery) -> None:
    solo = _rows_of(result.recommendations, "solo")
    assert solo.height == 100
    assert SOLO_GAME not in solo.get_column("game_id").to_list()
    assert result.stats["n_users_content_fallback"] >= 1
    # Its only game is a copy of a real game: content finds that game's relatives.
    assert solo.get_column("reason").is_in(["「ひとりだけ」が好きなあなたに", "人気のゲーム"]).all()
    assert solo.head(5).get_column("reason").str.contains("ひとりだけ").all()


def test_watching_only_member(result: Discovery, data: dict[str, object]) -> None:
    watcher = _rows_of(result.recommendations, "watcher")
    assert watcher.height == 100
    watched = data["collections"].filter(pl.col("user_id") == "watcher").get_column("game_id")  # type: ignore[union-attr]
    # Their 興味あり games never come back; they are what discovery goes by.
    assert watcher.get_column("game_id").is_in(watched.implode()).sum() == 0
    assert watcher.get_column("reason").str.ends_with("に興味があるあなたに").any()
    assert not watcher.get_column("reason").str.contains("が好きなあなたに").any()
    # On their own shelf a watched game is never the reason for the other one.
    shelf = _rows_of(result.watch_next, "watcher")
    assert sorted(shelf.get_column("game_id").to_list()) == sorted(watched.to_list())
    assert not shelf.get_column("reason").str.contains("興味がある").any()


def test_reasons_name_a_liked_game_of_the_member(result: Discovery, data: dict[str, object]) -> None:
    rows = normalise_interactions(data["collections"])  # type: ignore[arg-type]
    names = data["games"].select("game_id", pl.coalesce("name_ja", "name_en").alias("name"))  # type: ignore[union-attr]
    named = rows.join(names, on="game_id").select("user_id", "name")
    recs = result.recommendations.with_columns(
        pl.col("reason").str.extract(r"「(.+)」").alias("name")
    )
    patterns = r"^(興味ありに登録済み(・「.+」(が好きな|に興味がある)あなたに)?|「.+」(が好きな|に興味がある)あなたに|人気のゲーム|あなたへのおすすめ)$"
    assert recs.get_column("reason").str.contains(patterns).all()
    anchored = recs.filter(pl.col("name").is_not_null())
    assert anchored.height > 0.9 * recs.height
    # The named game is one of the member's own games, never someone else's.
    assert anchored.join(named, on=["user_id", "name"], how="anti").height == 0
    assert not recs.get_column("reason").str.contains("さん").any()


def test_similar_games_for_every_game_never_itself(result: Discovery, data: dict[str, object]) -> None:
    similar = result.similar_games
    assert tuple(similar.columns) == SIMILAR_COLUMNS
    catalogue = set(data["games"].get_column("game_id").to_list())  # type: ignore[union-attr]
    assert set(similar.get_column("game_id").to_list()) == catalogue
    assert similar.filter(pl.col("game_id") == pl.col("similar_game_id")).height == 0
    assert set(similar.get_column("similar_game_id").to_list()) <= catalogue
    per_game = similar.group_by("game_id").agg(pl.len().alias("n"), pl.col("rank").max().alias("hi"))
    assert (per_game.get_column("n") == 10).all()
    assert (per_game.get_column("hi") == 10).all()
    assert similar.select(pl.struct("game_id", "similar_game_id").is_unique().all()).item()


def test_attribution_matches_the_champions_explain(data: dict[str, object]) -> None:
    from models.candidates import default_candidates
    from models.interactions import InteractionMatrix
    from models.weighting import WEIGHTINGS

    rows = normalise_interactions(data["collections"])  # type: ignore[arg-type]
    matrix = InteractionMatrix.from_frame(rows, WEIGHTINGS["graded"])
    rng = np.random.default_rng(0)
    users = rng.choice(np.flatnonzero(np.diff(matrix.matrix.indptr) >= 3), size=5, replace=False)
    for name, params in [("cosine", {}), ("ease", {}), ("rp3beta", {}), ("als", {"factors": 16, "iterations": 5})]:
        model = default_candidates()[name].build(params, 0).fit(matrix.matrix)
        assert_attribution_matches_explain(model, matrix.matrix, users, rng, name)


def test_same_seed_same_result(data: dict[str, object]) -> None:
    params = {"factors": 16, "iterations": 5}
    first = _run(data, "als", params, depth=20, n_similar=5, seed=3)
    second = _run(data, "als", params, depth=20, n_similar=5, seed=3)
    assert first.recommendations.equals(second.recommendations)
    assert first.similar_games.equals(second.similar_games)


@pytest.mark.parametrize("champion", ["popularity", "bpr"])
def test_champions_without_explanations(data: dict[str, object], champion: str) -> None:
    params = {"factors": 16, "iterations": 3} if champion == "bpr" else {}
    result = _run(data, champion, params, depth=10, n_similar=3)
    recs = result.recommendations
    assert recs.get_column("model").unique().to_list() == [champion]
    # Content still names liked games; popularity speaks for the rest.
    assert recs.get_column("reason").str.contains("が好きなあなたに").any()
    rows = normalise_interactions(data["collections"])  # type: ignore[arg-type]
    known = rows.filter(pl.col("have") | pl.col("played") | pl.col("favorite"))
    assert recs.join(known, on=["user_id", "game_id"], how="semi").height == 0
    assert result.similar_games.get_column("game_id").n_unique() == data["games"].height  # type: ignore[union-attr]


def test_on_the_fly_matches_the_stored_rows(result: Discovery, data: dict[str, object]) -> None:
    model_dir = Path(result.stats["model_dir"])
    for name in ("model.pkl", "content_features.npz", "content_neighbours.npz", "discovery.json",
                 "discovery_collections.parquet", "matrix.npz"):
        assert (model_dir / name).is_file(), name
    user = data["fan"]
    stored = _rows_of(result.recommendations, user)  # type: ignore[arg-type]
    fresh = score_user_on_the_fly(model_dir, user)  # type: ignore[arg-type]
    assert tuple(fresh.columns) == RECOMMENDATION_COLUMNS
    assert fresh.height > stored.height  # the whole catalogue, not just 100
    head = fresh.head(stored.height)
    assert head.select("rank", "game_id", "reason").equals(stored.select("rank", "game_id", "reason"))
    np.testing.assert_allclose(head.get_column("score").to_numpy(), stored.get_column("score").to_numpy(), rtol=1e-6)
    with pytest.raises(LookupError):
        score_user_on_the_fly(model_dir, "nobody")


def test_on_the_fly_with_a_fresher_collection(result: Discovery, data: dict[str, object]) -> None:
    model_dir = Path(result.stats["model_dir"])
    user = data["fan"]
    stored = _rows_of(result.recommendations, user)  # type: ignore[arg-type]
    first = stored.get_column("game_id")[0]
    mine = data["collections"].filter(pl.col("user_id") == user)  # type: ignore[union-attr]
    bought = pl.concat([mine, mine.head(1).with_columns(pl.lit(first).alias("game_id"))])
    fresh = score_user_on_the_fly(model_dir, user, collection=bought, n=20)  # type: ignore[arg-type]
    assert fresh.height == 20
    assert first not in fresh.get_column("game_id").to_list()
    # A member the champion never saw is ranked from content and popularity.
    newcomer = mine.head(2).with_columns(pl.lit("newcomer").alias("user_id"))
    assert score_user_on_the_fly(model_dir, "newcomer", collection=newcomer, n=5).height == 5


def test_saved_model_loads(result: Discovery) -> None:
    state, meta = load_state(Path(result.stats["model_dir"]))
    assert meta["champion"] == "ease"
    assert meta["weighting"] == "graded"
    assert meta["blend"] == Blend().to_dict()
    assert state.content.n_games == result.similar_games.get_column("game_id").n_unique()


def test_bad_arguments(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="champion"):
        _run(data, "nonsense")
    with pytest.raises(ValueError, match="weighting"):
        discover(
            collections=data["collections"], games=data["games"], posts=None, champion="ease",  # type: ignore[arg-type]
            params={}, weighting="nonsense", run_id="r", generated_at=GENERATED_AT,
        )
    with pytest.raises(ValueError, match="champion"):  # before the content fit: no catalogue is read
        discover(collections=data["collections"], games=None, posts=None, champion="nonsense",  # type: ignore[arg-type]
                 params={}, weighting="graded", run_id="r", generated_at=GENERATED_AT)


def test_champion_fit_checks_its_names_when_made() -> None:
    with pytest.raises(ValueError, match="^unknown champion 'nonsense'; known: popularity, "):
        ChampionFit(champion="nonsense")
    with pytest.raises(ValueError, match="^unknown weighting 'nonsense'; known: "):
        ChampionFit(weighting="nonsense")
    with pytest.raises(TypeError):
        ChampionFit("ease")  # type: ignore[misc]  # keyword-only
    fit = ChampionFit(champion="als", params={"factors": 8}, seed=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.seed = 4  # type: ignore[misc]
    params = fit.build().get_params()
    assert (params["factors"], params["random_state"], params["iterations"]) == (8, 3, 15)



def test_no_collections_at_all(data: dict[str, object], tmp_path: Path) -> None:
    empty = data["collections"].head(0)  # type: ignore[union-attr]
    result = discover(
        collections=empty, games=data["games"], posts=None, champion="ease", params={},  # type: ignore[arg-type]
        weighting="graded", run_id="r", generated_at=GENERATED_AT, model_dir=tmp_path, n_similar=3,
    )
    assert result.recommendations.height == 0
    assert tuple(result.recommendations.columns) == RECOMMENDATION_COLUMNS
    assert result.similar_games.get_column("game_id").n_unique() == data["games"].height  # type: ignore[union-attr]
    newcomer = data["collections"].filter(pl.col("user_id") == data["fan"]).head(3)  # type: ignore[union-attr]
    ranked = score_user_on_the_fly(tmp_path, data["fan"], collection=newcomer, n=5)  # type: ignore[arg-type]
    assert ranked.height == 5


@pytest.mark.parametrize("champion", ["ease", "als"])
def test_a_refitted_champion_ranks_as_the_night_does(data: dict[str, object], champion: str) -> None:
    """The counterfactual of marts.list_outcomes (an earlier champion fitted again on a served
    night's collections, `refit_top_lists`) is the night's own top 10 for the same rows."""
    from models.content import ContentModel
    from models.discovery.run import catalog_frame, refit_top_lists

    night = _run(data, champion=champion)
    collections = data["collections"]  # type: ignore[assignment]
    members = sorted(night.recommendations.filter(~pl.col("reason").str.contains("人気")).get_column("user_id")
                     .unique().to_list())[:12] + ["nobody"]
    content = ContentModel.fit(catalog_frame(data["games"]), data["posts"])  # type: ignore[arg-type]
    lists = refit_top_lists(rows=collections, content=content, fit=ChampionFit(champion=champion), members=members)
    assert "nobody" not in lists and len(lists) == 12
    for user in members[:-1]:
        assert lists[user] == _rows_of(night.recommendations, user).get_column("game_id").head(10).to_list(), user
