"""The discovery tests' data: a generated site plus hand-made members and games.

Plain functions, not fixtures: ``test_models_discovery.py`` holds the module fixtures
that fit once on this data. See ``discovery_data`` for what the hand-made rows are for.
"""

from __future__ import annotations

from datetime import datetime, timezone

import polars as pl

from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.filter_columns import with_filter_columns

GENERATED_AT = datetime(2026, 11, 1, 3, 0, tzinfo=timezone.utc)
NEW_GAME = "brand-new-game"
SOLO_GAME = "solo-only-game"


def _site_frames() -> dict[str, pl.DataFrame]:
    """A generated site (overviews and post bodies added), plus hand-made members and games.

    * ``NEW_GAME``: nobody has it; its content copies the favourites of member ``FAN``.
    * ``one-game`` and ``two-games``: members with one and two entries.
    * ``solo``: a member whose only game (``SOLO_GAME``) no other member has.
    * ``watcher``: a member with only 興味あり entries.
    """
    site = generate_site(n_games=300, n_users=500, seed=7)
    frames = truth_frames(site)
    overviews = pl.DataFrame(
        {"game_id": [g.game_id for g in site.games], "overview": [g.overview for g in site.games]}
    )
    games = frames["games"].join(overviews, on="game_id", how="left")
    bodies = pl.DataFrame(
        {
            "post_id": [str(p.post_id) for p in site.posts],
            "body": ["\n".join(text for _, text in p.sections) for p in site.posts],
        }
    )
    posts = frames["posts"].join(bodies, on="post_id", how="inner")
    collections = frames["collections"]
    return {"games": games, "posts": posts, "collections": collections}


def _fan(collections: pl.DataFrame) -> str:
    """A typical member with clear favourites: 15–60 entries, the most favourites (ties: lowest id).

    Typical on purpose: a member holding most of the catalogue would get every
    remaining game in their top 100 anyway, which would prove nothing.
    """
    counts = (
        collections.group_by("user_id")
        .agg(pl.len().alias("rows"), pl.col("favorite").sum().alias("n"))
        .filter(pl.col("rows").is_between(15, 60))
        .sort(["n", "user_id"], descending=[True, False])
    )
    return counts.get_column("user_id")[0]


def _new_game_like(games: pl.DataFrame, favourites: list[str]) -> pl.DataFrame:
    """A game nobody has, made of the member's favourites' most common labels and texts."""
    liked = games.filter(pl.col("game_id").is_in(favourites))

    def common(column: str, k: int) -> list[str]:
        labels = liked.select(pl.col(column).explode()).drop_nulls().get_column(column)
        counted = labels.value_counts().sort(["count", column], descending=[True, False])
        return counted.get_column(column).head(k).to_list()

    first = liked.sort("game_id").row(0, named=True)
    row = {
        **first,
        "game_id": NEW_GAME,
        "name_ja": "ブランニュー・ゲーム",
        "name_en": "Brand New Game",
        "mechanics": common("mechanics", 3),
        "themes": common("themes", 2),
        "designers": common("designers", 1),
        "overview": "\n".join(liked.get_column("overview").drop_nulls().head(3).to_list()),
    }
    return pl.DataFrame([row], schema=games.schema)


def _extra_members(collections: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    popular = (
        collections.group_by("game_id").agg(pl.len().alias("n")).sort(["n", "game_id"], descending=[True, False])
    ).get_column("game_id")
    rows = [
        # one game, a favourite
        ("one-game", popular[3], True, True, True, False, 5),
        # two games: one owned, one only watched
        ("two-games", popular[5], True, False, False, False, 4),
        ("two-games", popular[8], False, False, False, True, None),
        # only games no other member has
        ("solo", SOLO_GAME, True, True, True, False, 5),
        # only watching
        ("watcher", popular[12], False, False, False, True, None),
        ("watcher", popular[20], False, False, False, True, None),
        # a favourite-only entry (not have, not played)
        ("fav-only", popular[1], False, False, True, False, None),
        ("fav-only", popular[2], True, True, False, False, 3),
    ]
    return pl.DataFrame(
        rows,
        schema={
            "user_id": pl.String, "game_id": pl.String, "have": pl.Boolean, "played": pl.Boolean,
            "favorite": pl.Boolean, "watching": pl.Boolean, "rating": pl.Int64,
        },
        orient="row",
    ).with_columns(pl.lit("2026-10-01T00:00:00+09:00").alias("updated_at"))


def discovery_data() -> dict[str, object]:
    """``games`` (filter columns added), ``posts``, ``collections`` and ``fan`` (the member
    ``NEW_GAME`` was made for)."""
    frames = _site_frames()
    games, collections = frames["games"], frames["collections"]
    fan = _fan(collections)
    favourites = collections.filter((pl.col("user_id") == fan) & pl.col("favorite")).get_column("game_id").to_list()
    solo = games.filter(pl.col("game_id") == games.get_column("game_id")[0]).with_columns(
        pl.lit(SOLO_GAME).alias("game_id"), pl.lit("ひとりだけ").alias("name_ja")
    )
    games = with_filter_columns(pl.concat([games, _new_game_like(games, favourites), solo]))
    collections = pl.concat([collections, _extra_members(collections, games)])
    return {"games": games, "posts": frames["posts"], "collections": collections, "fan": fan}
