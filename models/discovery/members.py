"""Members as catalogue-wide sparse rows: what they may never get, what they like, what they own.

Which games a member may get in discovery
    Every game of the catalogue (``marts.games``, including games without any
    collection entry) except the games the member already knows: any row of their
    collection, whatever its flags (持ってる, 経験あり, お気に入り, 興味あり, or none: an
    interaction of unknown kind). Discovery is for games the member does not know yet.

The other modes choose their candidates from the same rows: play next from
``owned_unplayed``, the watch-list shelf from ``watch`` (興味あり, neither 持ってる nor
経験あり), game night from ``played`` (a game nobody at the table has played).

Whose rows a reason may name
    A linked member's BoardGameGeek rows (docs/bgg.md) train the models, count as known
    (never listed by discovery) and weigh in the liked games that score, but they are
    not the member's site collection: a reason is exported as theirs, so it names only
    a game of their site collection (``nameable``), and the shelves hold only site rows
    (``owned_unplayed``, ``watch``). Rows say which they are in the ``site`` column
    (``mark_site``); without it every row is a site row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.discovery.blend import liked_weight, on_watch_list
from models.ids import IdIndex
from models.interactions import normalise_interactions

SITE = "site"
"""The optional Boolean column of the rows: True for the member's own site row, False for a
row from elsewhere (BoardGameGeek) that trains and excludes but is never named or shelved."""


@dataclass
class Members:
    """A batch of members as catalogue-wide sparse rows."""

    user_ids: list[str]
    known: sp.csr_matrix  # 1 on every game of the member's collection: never listed by discovery
    watch: sp.csr_matrix  # 1 on the watch list: 興味あり, neither 持ってる nor 経験あり (site rows)
    liked: sp.csr_matrix  # weights summing to 1 per row (or an empty row)
    watch_fallback: np.ndarray  # the liked row came from 興味あり games
    played: sp.csr_matrix  # 1 where the member marked 経験あり
    owned_unplayed: sp.csr_matrix  # 1 where the member has the game (持ってる) and has not played it (site rows)
    nameable: sp.csr_matrix | None = None  # ``liked`` on site rows only: what a reason may name (None: ``liked``)

    def __post_init__(self) -> None:
        if self.nameable is None:
            self.nameable = self.liked

    def without_liked(self, mask: np.ndarray) -> Members:
        """The same members with the liked games under ``mask`` (dense, bool) dropped and
        the remaining weights summing to 1 again (a game cannot be its own reason)."""
        liked = _without(self.liked, mask)
        nameable = liked if self.nameable is self.liked else on_entries_of(liked, self.nameable)
        return Members(self.user_ids, self.known, self.watch, liked, self.watch_fallback, self.played,
                       self.owned_unplayed, nameable)


def _without(matrix: sp.csr_matrix, mask: np.ndarray) -> sp.csr_matrix:
    """``matrix`` without its entries under ``mask``, rows summing to 1 again."""
    out = sp.csr_matrix(matrix, dtype=np.float32, copy=True)
    # Only the stored entries are looked up in the mask: a sparse copy of ``~mask``
    # (most of a catalogue-wide batch) cost more than ranking a shelf.
    rows = np.repeat(np.arange(out.shape[0]), np.diff(out.indptr))
    out.data[mask[rows, out.indices]] = 0.0
    out.eliminate_zeros()
    _normalise_rows(out)
    return out


def mark_site(rows: pl.DataFrame, site_rows: pl.DataFrame | None) -> pl.DataFrame:
    """``rows`` with the ``SITE`` column: True where (``user_id``, ``game_id``) is one of
    ``site_rows`` (the members' site collections); ``site_rows`` None: no column (all site)."""
    if site_rows is None:
        return rows
    keys = site_rows.select(pl.col("user_id").cast(pl.String), pl.col("game_id").cast(pl.String)).unique()
    return rows.join(keys.with_columns(pl.lit(True).alias(SITE)), on=["user_id", "game_id"], how="left",
                     maintain_order="left").with_columns(pl.col(SITE).fill_null(False))


def normalise_marked(frame: pl.DataFrame, *, source: str) -> pl.DataFrame:
    """``normalise_interactions`` of ``frame``, keeping which rows are site rows when ``frame``
    says so (its ``SITE`` column: ``warehouse.bgg_training.member_rows``)."""
    rows = normalise_interactions(frame, source=source)
    if SITE not in frame.columns:
        return rows
    return mark_site(rows, frame.filter(pl.col(SITE)).select("user_id", "game_id"))


def _normalise_rows(matrix: sp.csr_matrix) -> None:
    totals = np.asarray(matrix.sum(axis=1)).ravel()
    matrix.data /= np.repeat(np.where(totals > 0, totals, 1.0), np.diff(matrix.indptr)).astype(np.float32)


def on_entries_of(values: sp.csr_matrix, entries: sp.csr_matrix) -> sp.csr_matrix:
    """``values`` where ``entries`` has a positive entry, 0 elsewhere (same shape, CSR)."""
    out = sp.csr_matrix(values.multiply(entries > 0), dtype=np.float32)
    out.eliminate_zeros()
    return out


def member_rows(game_ids: pl.Series, collections: pl.DataFrame, user_ids: list[str], *,
                games: IdIndex | None = None) -> Members:
    """Sparse rows (columns: ``game_ids`` in order) of these members (distinct ids) from
    normalised collections; rows of other members or of games not in ``game_ids`` are left
    out. ``games``: the index of ``game_ids`` when the caller keeps one.

    Why positions and one select, not joins: a fold-in ranks one member, and joining their
    rows with the catalogue's 25,000 games and deriving each flag by its own Polars call
    cost ~3 ms, more than scoring them; the night's batches gain alike."""
    if len(set(user_ids)) != len(user_ids):
        raise ValueError("member_rows: the member ids must be distinct")
    games = games if games is not None else IdIndex(game_ids)
    shape = (len(user_ids), game_ids.len())
    r = IdIndex(pl.Series("user_id", user_ids, dtype=pl.String)).positions(collections.get_column("user_id"))
    c = games.positions(collections.get_column("game_id"))
    keep = (r >= 0) & (c >= 0)
    picked = collections if keep.all() else collections.filter(pl.Series(keep))
    r, c = r[keep], c[keep]
    site_expr = pl.col(SITE).fill_null(True) if SITE in picked.columns else pl.lit(True)
    values = picked.select(
        liked_weight().cast(pl.Float64), on_watch_list(), pl.col("played"),
        (pl.col("have") & ~pl.col("played")).alias("owned_unplayed"), site_expr.alias(SITE),
    )
    liked_values = values.get_column("liked").to_numpy()
    site = np.broadcast_to(values.get_column(SITE).to_numpy(), r.shape)
    watch = values.get_column("watch").to_numpy().astype(np.float32)

    def matrix(entries: np.ndarray) -> sp.csr_matrix:
        positive = entries > 0
        out = sp.csr_matrix((entries[positive].astype(np.float32), (r[positive], c[positive])), shape=shape)
        out.sum_duplicates()
        return out

    # A member who likes none of their games is ranked from their watch list (興味あり).
    best = np.full(len(user_ids), -np.inf)
    np.maximum.at(best, r, liked_values)
    fallback = np.isfinite(best) & (best <= 0)  # a member without rows falls back to nothing
    liked = matrix(np.where(fallback[r], watch.astype(np.float64), liked_values))
    _normalise_rows(liked)
    # The liked weights at site rows only, not normalised again: each keeps its share.
    nameable = liked if site.all() else on_entries_of(liked, matrix(site.astype(np.float32)))
    return Members(
        user_ids, matrix(np.ones(r.size)), matrix(np.where(site, watch, 0.0)), liked, fallback,
        played=matrix(values.get_column("played").to_numpy().astype(np.float32)),
        owned_unplayed=matrix(np.where(site, values.get_column("owned_unplayed").to_numpy(), 0.0)),
        nameable=nameable,
    )
