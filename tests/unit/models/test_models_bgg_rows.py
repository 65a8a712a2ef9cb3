"""A linked member's BGG rows: they train, score and exclude, but are never named nor shelved; does BGG help?"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl

from models.bgg_gain import bgg_gain
from models.discovery.members import SITE, mark_site, member_rows
from models.discovery.run import ChampionFit
from models.interactions import normalise_interactions

GAMES = pl.Series("game_id", ["a", "b", "c", "d", "e", "f"], dtype=pl.String)


def _rows() -> pl.DataFrame:
    """Member u: site rows a (favourite), b (興味あり), f (had, unplayed); BGG rows c (favourite),
    d (wishlist), e (had, unplayed)."""
    frame = pl.DataFrame({
        "user_id": ["u"] * 6, "game_id": ["a", "b", "f", "c", "d", "e"],
        "have": [True, False, True, True, False, True], "played": [True, False, False, True, False, False],
        "favorite": [True, False, False, True, False, False], "watching": [False, True, False, False, True, False],
        "rating": [None] * 6,
    })
    return normalise_interactions(frame)


def test_bgg_rows_weigh_in_the_liked_games_but_only_site_rows_are_named_or_shelved() -> None:
    rows = mark_site(_rows(), pl.DataFrame({"user_id": ["u", "u", "u"], "game_id": ["a", "b", "f"]}))
    assert rows.sort("game_id")[SITE].to_list() == [True, True, False, False, False, True]
    members = member_rows(GAMES, rows, ["u"])
    as_dict = lambda m: {g: round(float(v), 4) for g, v in zip(GAMES.gather(m.indices).to_list(), m.data)}  # noqa: E731
    # a and c are favourites (1), e and f had (0.5): liked over all rows, shares kept where named.
    assert as_dict(members.liked) == {"a": 0.3333, "c": 0.3333, "e": 0.1667, "f": 0.1667}
    assert as_dict(members.nameable) == {"a": 0.3333, "f": 0.1667}
    assert set(as_dict(members.known)) == {"a", "b", "c", "d", "e", "f"}  # BGG games stay out of discovery
    assert set(as_dict(members.watch)) == {"b"} and set(as_dict(members.owned_unplayed)) == {"f"}
    # A shelf takes its games out of both (a game is never its own reason).
    on_shelf = np.isin(GAMES.to_numpy(), ["f"])[None, :]
    assert as_dict(members.without_liked(on_shelf).nameable) == {"a": 0.4}
    # Unmarked rows are all site rows: the same as before BGG.
    plain = member_rows(GAMES, _rows(), ["u"])
    assert (plain.nameable != plain.liked).nnz == 0 and set(as_dict(plain.watch)) == {"b", "d"}


def _clustered(n_members: int = 60) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two tastes over games A0–A9 and B0–B9, and eight games G0–G7 everyone has. Members 0–4 are
    linked: on the site they have the eight G games first and two A games last (their time split's
    held-out rows); on BGG, the other A games. Returns the training rows and the site rows."""
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    rows = []
    for m in range(n_members):
        user, taste = f"m{m:02d}", "A" if m % 2 == 0 else "B"
        for i in range(8):
            rows.append((user, f"G{i}", start + timedelta(days=i), True))
        if m < 5:
            rows += [(user, f"A{m}", start + timedelta(days=10), True),
                     (user, f"A{m + 5}", start + timedelta(days=11), True)]
            rows += [(user, f"A{i}", None, False) for i in range(10) if i not in (m, m + 5)]
        else:
            rows += [(user, f"{taste}{i}", start + timedelta(days=10 + i), True) for i in range(10) if (i + m) % 3]
    frame = pl.DataFrame(rows, schema={"user_id": pl.String, "game_id": pl.String,
                                       "updated_at": pl.Datetime("us", "UTC"), "site": pl.Boolean}, orient="row")
    training = frame.with_columns(have=pl.lit(True), played=pl.lit(True), favorite=pl.lit(False),
                                  watching=pl.lit(False), rating=pl.lit(None, dtype=pl.Float64)).drop("site")
    return training, frame.filter(pl.col("site")).select("user_id", "game_id")


def test_the_gain_of_bgg_rows_for_linked_members() -> None:
    training, site = _clustered()
    gain = bgg_gain(training, site_rows=site, fit=ChampionFit(champion="ease"), k=10)
    assert gain["split"].to_list() == ["random", "time"] and gain["model"].to_list() == ["ease"] * 2
    time_row = gain.row(1, named=True)
    # The time split holds out each linked member's two latest site rows (their A games): 10 rows.
    assert (time_row["n_members"], time_row["n_test_rows"], time_row["n_bgg_rows"]) == (5, 10, 40)
    # Without BGG they look like everyone (G games only); with it, their A games point at the rest of A.
    assert time_row["ndcg_without"] < 0.5 < time_row["ndcg_with"]
    assert time_row["gain"] == time_row["ndcg_with"] - time_row["ndcg_without"]
    assert gain["seconds"].min() > 0
    # Nobody linked: nothing measured, no fit.
    assert bgg_gain(training.join(site, on=["user_id", "game_id"]), site_rows=site, fit=ChampionFit()).is_empty()
