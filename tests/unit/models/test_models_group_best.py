"""Game night with BoardGameGeek's "best with N": a stated boost where BGG knows, nothing where it does not."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.threads import single_threaded_blas
from models.discovery.group import BEST_BOOST, Table, game_night
from models.discovery.members import SITE
from models.discovery.reasons import REASON_BGG_BEST
from models.discovery.run import ChampionFit, catalog_frame, fit_state
from models.interactions import normalise_interactions
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns


@pytest.fixture(scope="module")
def night() -> dict:
    """A small generated site, the champion fitted on it, and a group of three with a long candidate list."""
    frames = truth_frames(generate_site(n_games=80, n_users=120, seed=5))
    rows = normalise_interactions(frames["collections"], source="collections")
    with single_threaded_blas():
        state = fit_state(rows, catalog_frame(with_filter_columns(frames["games"])), None, ChampionFit(champion="ease"))
    sizes = rows.group_by("user_id").len().filter(pl.col("len") >= 3).sort(["len", "user_id"])
    group = sizes.get_column("user_id").head(3).to_list()  # small collections: many games none of them played
    table = Table(user_ids=group, collections=rows.filter(pl.col("user_id").is_in(group)),
                  playable=state.game_ids, anywhere=True)
    return {"state": state, "table": table}


def _night(night: dict, best: list[str] | None) -> pl.DataFrame:
    table = night["table"]
    if best is not None:
        table = Table(**{**table.__dict__, "best": pl.Series(best, dtype=pl.String)})
    return game_night(night["state"], table, n=1000)


def test_without_bgg_facts_the_ranking_is_exactly_the_old_one(night: dict) -> None:
    before = _night(night, None)
    assert before.height > 20 and not before["reason"].str.contains("BGG").any()
    assert _night(night, []).equals(before)
    played = night["table"].collections.filter(pl.col("played")).get_column("game_id").to_list()
    assert _night(night, played).equals(before)  # facts only on games that are no candidates: nothing moves


def test_a_game_best_with_the_groups_size_gains_the_stated_boost(night: dict) -> None:
    before = _night(night, None)
    games, scores = before["game_id"].to_list(), before["score"].to_numpy()
    # Two games just behind a neighbour (within the boost), and one far behind the top.
    close = [games[i] for i in range(5, before.height) if scores[i - 1] - scores[i] < BEST_BOOST][:2]
    far = games[-1]
    assert scores[0] - scores[-1] > BEST_BOOST and len(close) == 2
    best = [*close, far]
    after = _night(night, best)
    # The expectation, computed from the scores without BGG: +BEST_BOOST on the best games (in float32, as
    # the ranking adds it), sorted again; ties in catalogue order, as top_n breaks them.
    position = {game: i for i, game in enumerate(night["state"].game_ids.to_list())}
    expected = [np.float32(s) + (np.float32(BEST_BOOST) if g in best else np.float32(0)) for g, s in zip(games, scores)]
    order = sorted(range(len(games)), key=lambda i: (-expected[i], position[games[i]]))
    assert after["game_id"].to_list() == [games[i] for i in order]
    assert np.allclose(after["score"].to_numpy(), [expected[i] for i in order], atol=1e-6)
    assert after["game_id"].to_list() != games  # the boost moved something
    assert after["game_id"].to_list().index(far) > 0  # never to the top from the bottom
    size = len(night["table"].user_ids)
    said = after.filter(pl.col("reason").str.ends_with("（" + REASON_BGG_BEST.format(size) + "）"))["game_id"]
    assert sorted(said.to_list()) == sorted(best)


def test_a_game_played_on_bgg_is_not_new_and_a_bgg_copy_is_brought_by_nobody(night: dict) -> None:
    """A linked member's BGG rows (``members.SITE`` False): a game they played there leaves the list; a
    game they own only there is not on the table (who brings what is said from the site only)."""
    state, table = night["state"], night["table"]
    everywhere = _night(night, None)
    on_table = game_night(state, Table(**{**table.__dict__, "anywhere": False}), n=1000)
    played_on_bgg = everywhere["game_id"][0]
    owned_on_bgg = everywhere.filter(~pl.col("game_id").is_in(on_table["game_id"].implode()))["game_id"][0]
    member = table.user_ids[0]
    bgg = pl.DataFrame({"user_id": [member, member], "game_id": [played_on_bgg, owned_on_bgg],
                        "have": [True, True], "played": [True, False], "favorite": [False, False],
                        "watching": [False, False], "rating": [None, None]}).with_columns(pl.lit(False).alias(SITE))
    marked = pl.concat([table.collections.with_columns(pl.lit(True).alias(SITE)), bgg], how="diagonal_relaxed")
    for anywhere in (True, False):
        found = game_night(state, Table(**{**table.__dict__, "collections": marked, "anywhere": anywhere}), n=1000)
        assert played_on_bgg not in found["game_id"].to_list()
        if not anywhere:
            assert owned_on_bgg not in found["game_id"].to_list()
            assert set(found["game_id"]) == set(on_table["game_id"]) - {played_on_bgg}
        assert not found.filter(pl.col("game_id") == owned_on_bgg)["brought_by"].explode().is_in([member]).any()
