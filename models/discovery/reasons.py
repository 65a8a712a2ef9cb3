"""Reasons (``reason``), in Japanese, never about other members.

The liked game contributing most to a row's score (``models.discovery.attribution``)
is named: 「X」が好きなあなたに. When neither part can be attributed (BPR), the liked
game nearest in content is named. A member with only 興味あり games reads
「X」に興味があるあなたに (in discovery: their watch list is never on it, so X is never the
game listed); a row that only popularity put there says 人気のゲーム; a personalised row
that cannot be attributed at all says あなたへのおすすめ. The shelves (play next, the
watch list) take their own games out of the liked ones first, so a shelf's game is never
the reason for another on it.

A reason names only a game of the member's site collection: a linked member's
BoardGameGeek rows train and score, but are never named as theirs
(``models.discovery.members``, ``nameable``).

Game night is the one place where a reason names members: the members of the group,
who asked for the list together (``group_reason``); it may add what BoardGameGeek's poll
says of the group's size (``REASON_BGG_BEST``).
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl

REASON_LIKED = "「{}」が好きなあなたに"
"""Because you like X (``{}`` is the liked game's name, as ``pl.format`` fills it)."""
REASON_WATCHED_ONLY = "「{}」に興味があるあなたに"
"""For a member whose only evidence is their 興味あり games."""
REASON_POPULAR = "人気のゲーム"
REASON_FOR_YOU = "あなたへのおすすめ"
REASON_GROUP_POPULAR = "みんなで遊べる人気のゲーム"
"""Game night: no member's taste stands out for this game."""
REASON_BGG_BEST = "BGGでは{}人がベスト"
"""Game night: BoardGameGeek's poll calls the game best with the group's size (docs/bgg.md)."""

KIND_NONE, KIND_POPULAR, KIND_PERSONAL = 0, 1, 2


def reasoned_rows(user_ids: list[str], ids: np.ndarray, values: np.ndarray, kinds: np.ndarray,
                  anchors: np.ndarray, *, fallback: np.ndarray, game_ids: pl.Series,
                  names: pl.Series) -> pl.DataFrame:
    """A batch's ranked lists as long rows (``user_id``, ``rank``, ``game_id``, ``score``,
    ``reason``): ``ids``/``values``/``kinds``/``anchors`` are ``(members, take)`` (catalogue
    ids, -1 padding), ``fallback`` says per member that their liked games are their 興味あり
    ones, ``names`` the games' names by catalogue id (what a reason says)."""
    valid = ids >= 0
    user_index = np.repeat(np.arange(len(user_ids)), valid.sum(axis=1))
    rank = np.broadcast_to(np.arange(1, ids.shape[1] + 1, dtype=np.int32), ids.shape)[valid]
    anchor = anchors[valid]
    frame = pl.DataFrame(
        {
            "user_id": pl.Series(user_ids, dtype=pl.String).gather(user_index),
            "rank": pl.Series(rank, dtype=pl.Int32),
            "game_id": game_ids.gather(ids[valid]),
            "score": pl.Series(values[valid], dtype=pl.Float64),
            "_kind": pl.Series(kinds[valid], dtype=pl.Int8),
            "_anchor": names.gather(np.maximum(anchor, 0)),
            "_anchored": pl.Series(anchor >= 0, dtype=pl.Boolean),
            "_fallback": pl.Series(fallback[user_index], dtype=pl.Boolean),
        }
    )
    frame = frame.with_columns(pl.when(pl.col("_anchored")).then(pl.col("_anchor")).alias("_anchor"))
    return frame.select("user_id", "rank", "game_id", "score", reason_expr())


def reason_expr() -> pl.Expr:
    """The Japanese reason of a ranked row from its anchor game, its kind and the member's fallback."""
    liked = pl.format(REASON_LIKED, pl.col("_anchor"))
    watched = pl.format(REASON_WATCHED_ONLY, pl.col("_anchor"))
    named = pl.when(pl.col("_fallback")).then(watched).otherwise(liked)
    return (
        pl.when(pl.col("_anchor").is_not_null())
        .then(named)
        .when(pl.col("_kind") == KIND_PERSONAL)
        .then(pl.lit(REASON_FOR_YOU))
        .otherwise(pl.lit(REASON_POPULAR))
        .alias("reason")
    )


def group_reason(fits: list[tuple[str, str | None]], *, best_with: int | None = None) -> str:
    """Whose taste a game-night pick fits: ``[(member, liked game or None), …]``, best first.

    ``17406さん（「X」が好き）・500さん向け``; nobody in particular: ``REASON_GROUP_POPULAR``.
    ``best_with``: the group's size when BoardGameGeek's poll calls the game best with it,
    said after the rest (``REASON_BGG_BEST``).
    """
    if not fits:
        reason = REASON_GROUP_POPULAR
    else:
        parts = [f"{user}さん（「{anchor}」が好き）" if anchor else f"{user}さん" for user, anchor in fits]
        reason = "・".join(parts) + "向け"
    return reason if best_with is None else reason + "（" + REASON_BGG_BEST.format(best_with) + "）"


def anchor_concentration(recommendations: pl.DataFrame, *, top: int = 10, slots: int = 8) -> tuple[int, int]:
    """(members whose first ``top`` rows name one game on ``slots`` or more of them, members
    with a list): how often a list hangs on one anchor (``models.discovery.anchors._spread``).
    ``recommendations``: ``user_id``, ``rank``, ``reason`` (``marts.recommendations``)."""
    if recommendations.height == 0:
        return 0, 0
    named = (
        recommendations.filter(pl.col("rank") <= top)
        .with_columns(pl.coalesce([pl.col("reason").str.extract(_named(template)) for template in NAMING]).alias("anchor"))
    )
    most = (named.drop_nulls("anchor").group_by("user_id", "anchor").len()
            .group_by("user_id").agg(pl.col("len").max().alias("most")))
    return int(most.filter(pl.col("most") >= slots).height), int(named.get_column("user_id").n_unique())


NAMING = (REASON_LIKED, REASON_WATCHED_ONLY)
"""The reasons that name one of the member's games."""


def _named(template: str) -> str:
    """A regex of ``template`` whose one group is the game it names."""
    return "^" + re.escape(template).replace(re.escape("{}"), "(.+)") + "$"
