"""Welcome lists: what discovery shows a member it has nothing personal to go on for.

Why: on a community site the newest members have an empty collection, and the champion,
content and popularity blend (``models.discovery.model``) has no row for them; a member
whose few games nobody else collected gets a list of nothing but 人気のゲーム. Both deserve
a list that says what it is, rather than no line in the export (the site then shows nothing)
or a popularity list dressed as theirs.

The rule, one for the night (``run.discover_interactions``), ``bodoge recommend`` and the
HTTP API:

* **near**: where anything is known of the member (the games of their collection, and the
  games whose rule or review posts they wrote: ``hints``), the members who hold any of
  those games are "members like them"; when there are at least ``MIN_NEIGHBOURS``, the
  games at least ``MIN_SUPPORT`` of them have (持ってる) come first, most held first
  (reason ``REASON_WELCOME_NEAR``, score ``1 + share of those members``);
* **overall**: then every other game, most held (持ってる) by the site's members first, ties
  by members with any entry, then by id (reason ``REASON_WELCOME``, score the share of
  members with a collection who have it, at most 1: scores never rise down a list);
* never a game the member knows: their collection (any status, BoardGameGeek rows too) or
  a game they wrote a post about. The serving filters (players, minutes) apply as to every
  list (``warehouse.views.recommendations_for``).

Counts come from site rows only (``members.SITE``), and a reason names no member and no
game: the same words for everyone, so no top 10 hangs on one anchor.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.discovery.lists import RANKED_SCHEMA
from models.discovery.members import SITE
from models.discovery.reasons import REASON_POPULAR

REASON_WELCOME = "みんなが持っているゲーム"
"""A welcome row from the whole site's collections (nothing is known of the member)."""
REASON_WELCOME_NEAR = "好みの近いみんなが持っているゲーム"
"""A welcome row from the collections of members holding the member's own (few) games."""
MIN_NEIGHBOURS = 5
"""Members like them needed before their collections are read as the member's taste."""
MIN_SUPPORT = 2
"""Members like them who must have a game before it is listed as theirs (one is chance)."""
BATCH = 512
"""Welcome members whose neighbours are counted at once (bounds the members × members product)."""


def unscored(ranked: pl.DataFrame) -> list[str]:
    """Members of a ranked discovery frame whose every row is 人気のゲーム: the champion and
    content said nothing for them (their list was popularity alone)."""
    if ranked.height == 0:
        return []
    flat = ranked.group_by("user_id").agg((pl.col("reason") == REASON_POPULAR).all().alias("flat"))
    return sorted(flat.filter(pl.col("flat")).get_column("user_id").to_list())


def with_welcome(
    ranked: pl.DataFrame,
    collections: pl.DataFrame,
    game_ids: pl.Series,
    *,
    public: list[str] | None,
    hints: pl.DataFrame | None,
    depth: int | None,
) -> tuple[pl.DataFrame, list[str]]:
    """The night's discovery rows with welcome lists: every member of ``public`` without a
    ranked row, and every ranked member the model could not score (``unscored``), gets one;
    the other members' rows are returned as they came. Returns the rows (sorted by member,
    then rank) and the sorted ids of the members whose list is a welcome list."""
    ranked_ids = set(ranked.get_column("user_id").unique().to_list()) if ranked.height else set()
    welcome = set(unscored(ranked)) | {str(u) for u in (public or []) if str(u) not in ranked_ids}
    if not welcome:
        return ranked, []
    ids = sorted(welcome)
    kept = ranked.filter(~pl.col("user_id").is_in(pl.Series(ids, dtype=pl.String).implode()))
    rows = welcome_lists(collections, game_ids, ids, hints=hints, depth=depth)
    merged = pl.concat([kept, rows.select(kept.columns)]).sort("user_id", "rank", maintain_order=True)
    return merged, ids


@dataclass(frozen=True)
class Counts:
    """What every welcome list of one set of rows reads: who holds which game (site rows),
    who has it (持ってる), and the catalogue's order by how many have it. Built once
    (``counts``); the API keeps the night's (``models.discovery.foldin``)."""

    catalog: pl.DataFrame
    index: pl.DataFrame
    held: sp.csr_matrix
    held_by_game: sp.csr_matrix  # ``held`` transposed, as CSR: made once, not per welcome list
    have: sp.csr_matrix
    overall: np.ndarray
    overall_score: np.ndarray
    n_have: np.ndarray  # per catalogue game: members who have it (持ってる, site rows)
    n_any: np.ndarray  # per catalogue game: members with any site row of it
    people: int  # members with a site row of a catalogue game


def _totals(n_have: np.ndarray, n_any: np.ndarray, people: int) -> tuple[np.ndarray, np.ndarray]:
    """The overall order (most held, then any entry, then id) and its scores."""
    overall = np.lexsort((np.arange(n_have.size), -n_any, -n_have))  # last key first
    return overall, n_have / max(people, 1)


def counts(collections: pl.DataFrame, game_ids: pl.Series) -> Counts:
    """The ``Counts`` of normalised ``collections`` over the catalogue ``game_ids``."""
    catalog = game_ids.cast(pl.String).to_frame("game_id").with_row_index("col")
    n_games = catalog.height
    site = collections.filter(pl.col(SITE).fill_null(True)) if SITE in collections.columns else collections
    site = site.join(catalog, on="game_id", how="inner")
    people = site.get_column("user_id").unique().sort()
    index = people.to_frame("user_id").with_row_index("row")
    cells = site.join(index, on="user_id")
    shape = (people.len(), n_games)
    rows, cols = cells.get_column("row").to_numpy(), cells.get_column("col").to_numpy()
    held = sp.csr_matrix((np.ones(rows.size, dtype=np.float32), (rows, cols)), shape=shape)
    have_mask = cells.get_column("have").to_numpy().astype(bool)
    have = sp.csr_matrix((np.ones(int(have_mask.sum()), dtype=np.float32), (rows[have_mask], cols[have_mask])),
                         shape=shape)
    n_have = np.asarray(have.sum(axis=0)).ravel()
    n_any = np.asarray(held.sum(axis=0)).ravel()
    overall, overall_score = _totals(n_have, n_any, people.len())
    return Counts(catalog=catalog, index=index, held=held, held_by_game=held.T.tocsr(), have=have, overall=overall,
                  overall_score=overall_score, n_have=n_have, n_any=n_any, people=people.len())


def with_member_replaced(base: Counts, old: pl.DataFrame, new: pl.DataFrame) -> Counts:
    """``counts`` of the same rows with one member's rows ``old`` replaced by ``new``
    (normalised, marked), without counting everyone again: only the catalogue-wide totals
    move. Their own row in ``held``/``have`` may stay as it was, because a member is never
    counted among the members like them (``welcome_lists`` takes them out, and a member
    not in ``index`` holds nothing there). Why: a fold-in whose posted games say nothing
    personal gets a welcome list over everyone's rows with theirs in place; counting
    everyone took about a second at the real size."""
    if old.height == 0 and new.height == 0:
        return base  # a new member with nothing yet: the night's counts as they are
    n_have, n_any = base.n_have.copy(), base.n_any.copy()
    people = base.people
    for sign, rows in ((-1, old), (1, new)):
        site = rows.filter(pl.col(SITE).fill_null(True)) if SITE in rows.columns else rows
        site = site.join(base.catalog, on="game_id", how="inner")
        cols = site.get_column("col").to_numpy()
        np.add.at(n_any, cols, sign)
        np.add.at(n_have, cols[site.get_column("have").to_numpy().astype(bool)], sign)
        people += sign * int(site.height > 0)
    overall, overall_score = _totals(n_have, n_any, people)
    return Counts(catalog=base.catalog, index=base.index, held=base.held, held_by_game=base.held_by_game,
                  have=base.have, overall=overall, overall_score=overall_score, n_have=n_have, n_any=n_any,
                  people=people)


def welcome_lists(
    collections: pl.DataFrame,
    game_ids: pl.Series,
    user_ids: list[str],
    *,
    hints: pl.DataFrame | None = None,
    depth: int | None = 100,
    counted: Counts | None = None,
    theirs: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Welcome lists (module docstring) for ``user_ids`` over the catalogue ``game_ids``
    from normalised ``collections`` (everyone's rows) and ``hints`` (``user_id``,
    ``game_id``: games a member showed interest in outside their collection). Long rows:
    ``user_id``, ``rank`` (from 1), ``game_id``, ``score``, ``reason``; ``depth`` None: every game.
    ``counted``: ``counts(collections, game_ids)``, when the caller keeps it; ``theirs``: the
    rows of ``collections`` that are these members', when the caller has them (a fold-in's
    one member: finding them among everyone's rows cost more than the list)."""
    base = counts(collections, game_ids) if counted is None else counted
    n_games = base.catalog.height
    seen = _member_games(collections if theirs is None else theirs, hints, base.catalog, user_ids)
    self_rows = base.index.join(pl.Series("user_id", user_ids, dtype=pl.String).to_frame().with_row_index("w"),
                                on="user_id")
    take = n_games if depth is None else min(depth, n_games)
    frames: list[pl.DataFrame] = []
    for start in range(0, len(user_ids), BATCH):
        stop = min(start + BATCH, len(user_ids))
        known = seen[start:stop]
        neighbours = (known @ base.held_by_game).tocsr()  # welcome × members: members holding any of their games
        neighbours.data[:] = 1.0
        mine = self_rows.filter((pl.col("w") >= start) & (pl.col("w") < stop))
        if mine.height:  # a member is not like themselves
            neighbours[mine.get_column("w").to_numpy() - start, mine.get_column("row").to_numpy()] = 0.0
            neighbours.eliminate_zeros()
        n_near = np.diff(neighbours.indptr)
        near = (neighbours @ base.have).toarray() if neighbours.nnz else np.zeros((stop - start, n_games), np.float32)
        for i in range(stop - start):
            frames.append(_one_list(user_ids[start + i], known[i].indices, near[i], int(n_near[i]), base.overall,
                                    base.overall_score, game_ids, take))
    return pl.concat(frames) if frames else pl.DataFrame(schema=RANKED_SCHEMA)


def _member_games(collections: pl.DataFrame, hints: pl.DataFrame | None, catalog: pl.DataFrame,
                  user_ids: list[str]) -> sp.csr_matrix:
    """1 on each catalogue game a welcome member knows: any collection row (site or not), any hint."""
    ids = pl.Series("user_id", user_ids, dtype=pl.String)
    theirs = pl.col("user_id").cast(pl.String).is_in(ids.implode())  # before anything else: everyone's rows are many
    parts = [collections.filter(theirs).select(pl.col("user_id").cast(pl.String), pl.col("game_id").cast(pl.String))]
    if hints is not None and hints.height:
        parts.append(hints.filter(theirs).select(pl.col("user_id").cast(pl.String), pl.col("game_id").cast(pl.String)))
    wanted = ids.to_frame().with_row_index("w")
    known = pl.concat(parts).unique().join(wanted, on="user_id").join(catalog, on="game_id")
    w, c = known.get_column("w").to_numpy(), known.get_column("col").to_numpy()
    out = sp.csr_matrix((np.ones(w.size, dtype=np.float32), (w, c)), shape=(len(user_ids), catalog.height))
    out.sum_duplicates()
    out.sort_indices()
    return out


def _one_list(user_id: str, known: np.ndarray, near: np.ndarray, n_near: int, overall: np.ndarray,
              overall_score: np.ndarray, game_ids: pl.Series, take: int) -> pl.DataFrame:
    """One member's welcome list: near games first (when enough members are like them), then the rest."""
    allowed = np.ones(overall.size, dtype=bool)
    allowed[known] = False
    first = np.empty(0, dtype=np.int64)
    if n_near >= MIN_NEIGHBOURS:
        support = np.where(allowed & (near >= MIN_SUPPORT), near, 0.0)
        ranked = overall[np.argsort(-support[overall], kind="stable")]  # most held near them; ties as overall
        first = ranked[support[ranked] > 0]
        allowed[first] = False
    rest = overall[allowed[overall]]
    order = np.concatenate([first, rest])[:take]
    score = np.where(np.arange(order.size) < first.size, 1.0 + near[order].astype(np.float64) / max(n_near, 1),
                     overall_score[order])
    reason = np.where(np.arange(order.size) < first.size, REASON_WELCOME_NEAR, REASON_WELCOME)
    return pl.DataFrame({
        "user_id": pl.Series([user_id] * order.size, dtype=pl.String),
        "rank": pl.Series(np.arange(1, order.size + 1), dtype=pl.Int32),
        "game_id": game_ids.cast(pl.String).gather(order),
        "score": pl.Series(score, dtype=pl.Float64),
        "reason": pl.Series(reason.astype(str), dtype=pl.String),
    })


def welcome_from_saved(model_dir: str | Path, user_id: str, *, collection: pl.DataFrame | None,
                       hints: pl.DataFrame | None, n: int | None = None) -> pl.DataFrame:
    """One member's welcome list over the whole catalogue from a saved model directory
    (``models.discovery.store``): everyone's rows as the night saved them, the member's own
    rows ``collection`` (now, from the warehouse) in place of theirs. The columns of
    ``marts.recommendations`` (``model``/``run_id``/``generated_at`` of the saved run)."""
    from datetime import datetime

    from models.discovery.lists import RECOMMENDATION_COLUMNS
    from models.discovery.members import normalise_marked
    from models.discovery.store import load_state

    state, meta = load_state(model_dir)
    user_id = str(user_id)
    others = state.collections.filter(pl.col("user_id") != user_id)
    if collection is not None and collection.height:
        mine = normalise_marked(collection, source="collection").filter(pl.col("user_id") == user_id)
        others = pl.concat([others, mine], how="diagonal_relaxed")
    rows = welcome_lists(others, state.game_ids, [user_id], hints=hints, depth=n)
    return rows.with_columns(
        pl.lit(meta["champion"]).alias("model"),
        pl.lit(meta.get("run_id")).cast(pl.String).alias("run_id"),
        pl.lit(datetime.fromisoformat(meta["generated_at"])).alias("generated_at"),
    ).select(RECOMMENDATION_COLUMNS)
