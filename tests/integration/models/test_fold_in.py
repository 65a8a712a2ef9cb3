"""Fold-in gives the night's lists: a member's unchanged collection, posted, is ranked into
their night's list bit for bit, for every kind of champion; a changed collection gives what
the batch engine gives for that collection; a new member gets a list from what they post.

On the demo's site (1,000 games, 2,000 members). The night's lists are ``DiscoveryModel.rank``
over every member at once (the night's batches); fold-in ranks one member alone
(``models.discovery.foldin``), so a step that depended on its batch would fail here.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.discovery.foldin import MODES, FoldIn
from models.discovery.members import SITE, mark_site
from models.discovery.run import ChampionFit, fit_state
from models.discovery.shelves import PLAY_NEXT, WATCH_NEXT, shelf_not_liked
from models.ensemble import Ensemble
from models.threads import single_threaded_blas
from models.weighting import FLAGS, WEIGHTINGS
from tests.support.champions import CHAMPIONS

MEMBERS = 12
"""Members folded in alone per champion (each one a whole fold-in, as the API makes it)."""


@pytest.fixture(scope="module")
def site(demo_site):
    return demo_site


def _posted(rows: pl.DataFrame, user_id: str) -> pl.DataFrame:
    """The member's collection as the site would post it."""
    return rows.filter(pl.col("user_id") == user_id).select("game_id", *FLAGS, "rating")


def _night(state, rows, users, mode: str) -> pl.DataFrame:
    if isinstance(state.model, Ensemble):
        state.model.keep_statistics()  # a fresh night's serving
    with single_threaded_blas():
        if mode == "discovery":
            return state.rank(rows, users, 100)[0]
        shelf = {"watch_list": WATCH_NEXT, "play_next": PLAY_NEXT}[mode]
        return state.rank(rows, users, 100, candidates=shelf.games, members_of=shelf_not_liked)[0]


@pytest.mark.parametrize("champion", sorted(CHAMPIONS))
def test_an_unchanged_collection_folds_into_the_nights_list(site, champion: str) -> None:
    rows, catalog, users = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion=champion, params=CHAMPIONS[champion]))
    fold = FoldIn(state=state, weights=WEIGHTINGS["graded"], meta={"depth": 100})
    picked = users[:: len(users) // MEMBERS][:MEMBERS]
    for mode in MODES:
        night = _night(state, rows, users, mode)
        for user in picked:
            mine = night.filter(pl.col("user_id") == user)
            folded = fold.rank(user, _posted(rows, user), mode)
            if mode == "discovery":
                assert not folded["welcome"].any()  # the model scored them: their own list
                folded = folded.drop("welcome")
            assert folded.equals(mine), f"{champion}: {mode} of {user} differs from the night's"
        assert night.filter(pl.col("user_id").is_in(picked)).height > 0


@pytest.mark.parametrize("champion", ["ease", "als", "ensemble"])
def test_a_changed_collection_gives_the_batch_engines_list(site, champion: str) -> None:
    """A member adds a game: fold-in equals the batch engine ranking the changed rows (a
    model fitted on the night's rows, scoring everyone's current rows), the new game is
    gone, and every reason names a game of the body."""
    rows, catalog, users = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion=champion, params=CHAMPIONS[champion]))
    fold = FoldIn(state=state, weights=WEIGHTINGS["graded"], meta={"depth": 100})
    user = users[7]
    night = _night(state, rows, [user], "discovery")
    added = night.get_column("game_id")[0]
    changed = pl.concat([
        rows, pl.DataFrame({"user_id": [user], "game_id": [added], "have": [True], "played": [True],
                            "favorite": [True], "watching": [False], "rating": [None], "updated_at": [None]},
                           schema=rows.schema)]).sort("user_id", "game_id")
    folded = fold.rank(user, _posted(changed, user)).drop("welcome")
    assert added not in folded.get_column("game_id").to_list()
    batch = state.folded(changed, WEIGHTINGS["graded"])  # everyone's current rows, the batch engine
    expected = _night(batch, changed, users, "discovery").filter(pl.col("user_id") == user)
    assert folded.equals(expected)
    assert not folded.equals(night)  # the order moved, not only the game dropped
    names = set(state.content.names.gather(
        state.game_ids.to_frame().with_row_index().filter(
            pl.col("game_id").is_in(_posted(changed, user).get_column("game_id").implode()))
        .get_column("index")).to_list())
    anchored = folded.filter(pl.col("reason").str.contains("」")).get_column("reason").to_list()
    assert anchored and all(any(f"「{name}」" in reason for name in names) for reason in anchored)


def test_a_new_member_gets_a_list_from_what_they_post(site) -> None:
    rows, catalog, users = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion="ease", params=CHAMPIONS["ease"]))
    fold = FoldIn(state=state, weights=WEIGHTINGS["graded"], meta={"depth": 100})
    posted = _posted(rows, users[3])
    stranger = fold.rank("someone-new", posted)
    known = fold.rank(users[3], posted)
    assert stranger.height == 100 and not set(stranger["game_id"]) & set(posted["game_id"])
    assert stranger.drop("user_id").equals(known.drop("user_id"))  # the same rows make the same list
    empty = fold.rank("empty", posted.clear())
    assert empty.height == 100 and empty["welcome"].all()  # a welcome list, as the night gives one
    from models.discovery.welcome import welcome_lists

    night = welcome_lists(rows, state.game_ids, ["empty"], depth=100)
    assert empty.drop("welcome").equals(night)


def test_a_linked_members_other_rows_weigh_in_and_are_never_named(site) -> None:
    """Rows that are not site rows (BoardGameGeek) are the night's, not the site's to post:
    fold-in adds them back, so the member's list is the night's."""
    rows, catalog, users = site
    user = users[11]
    own = rows.filter(pl.col("user_id") == user)
    site_rows = rows.filter(~((pl.col("user_id") == user) & pl.col("game_id").is_in(own["game_id"][:3].implode())))
    marked = mark_site(rows, site_rows.select("user_id", "game_id"))
    with single_threaded_blas():
        state = fit_state(marked, catalog, None, ChampionFit(champion="ease", params=CHAMPIONS["ease"]))
    fold = FoldIn(state=state, weights=WEIGHTINGS["graded"], meta={"depth": 100})
    night = _night(state, marked, [user], "discovery")
    posted = _posted(marked.filter(pl.col(SITE)), user)
    assert fold.rank(user, posted).drop("welcome").equals(night)
    assert np.all(~night.get_column("game_id").is_in(own["game_id"].implode()).to_numpy())


RECENT = "graded+recency180d"


@pytest.mark.parametrize("champion", ["ease", "als"])  # item-to-item, and factors solved per member
def test_a_recency_weighted_night_folds_in_as_it_ranked(site, champion: str, tmp_path) -> None:
    """With recency the night ages every row from its own moment: an unchanged collection, posted
    without times, folds into the night's list bit for bit (its cards keep the night's times); a
    member who adds a game gets the batch engine's list for the changed rows (the new card is new)."""
    from models.discovery.store import save_state
    from models.interactions import InteractionMatrix
    from models.weighting import weighting_named

    rows, catalog, users = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None,
                          ChampionFit(champion=champion, params=CHAMPIONS[champion], weighting=RECENT))
    save_state(state, tmp_path / "champion", {"weighting": RECENT, "depth": 100})
    fold = FoldIn.load(tmp_path / "champion", engine=state.engine)  # as the API reads a night
    assert fold.weights == weighting_named(RECENT) and fold.state.interactions.as_of == rows["updated_at"].max()
    plain = InteractionMatrix.from_frame(rows, WEIGHTINGS["graded"]).matrix
    assert not np.array_equal(state.interactions.matrix.data, plain.data)  # recency moved the confidences
    picked = users[:: len(users) // 6][:6]
    night = _night(state, rows, users, "discovery")
    for user in picked:
        assert fold.rank(user, _posted(rows, user)).drop("welcome").equals(night.filter(pl.col("user_id") == user))
    user = picked[1]
    added = night.filter(pl.col("user_id") == user).get_column("game_id")[0]
    changed = pl.concat([rows, pl.DataFrame(
        {"user_id": [user], "game_id": [added], "have": [True], "played": [False], "favorite": [False],
         "watching": [False], "rating": [None], "updated_at": [None]}, schema=rows.schema)]).sort("user_id", "game_id")
    batch = fold.state.folded(changed, fold.weights)
    expected = _night(batch, changed, users, "discovery").filter(pl.col("user_id") == user)
    assert fold.rank(user, _posted(changed, user)).drop("welcome").equals(expected)
