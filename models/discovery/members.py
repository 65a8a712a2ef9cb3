"""Members as catalogue-wide sparse rows: what they may never get, what they like, what they own.

Which games a member may get in discovery
    Every game of the catalogue (``marts.games``, including games without any
    collection entry) except the games the member already knows: any row of their
    collection, whatever its flags (持ってる, 経験あり, お気に入り, 興味あり, or none: an
    interaction of unknown kind). Discovery is for games the member does not know yet.

The other modes choose their candidates from the same rows: play next from
``owned_unplayed``, the watch-list shelf from ``watch`` (興味あり, neither 持ってる nor
経験あり), game night from ``played`` (a game nobody at the table has played).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.discovery.blend import liked_weight, on_watch_list


@dataclass
class Members:
    """A batch of members as catalogue-wide sparse rows."""

    user_ids: list[str]
    known: sp.csr_matrix  # 1 on every game of the member's collection: never listed by discovery
    watch: sp.csr_matrix  # 1 on the watch list: 興味あり, neither 持ってる nor 経験あり
    liked: sp.csr_matrix  # weights summing to 1 per row (or an empty row)
    watch_fallback: np.ndarray  # the liked row came from 興味あり games
    played: sp.csr_matrix  # 1 where the member marked 経験あり
    owned_unplayed: sp.csr_matrix  # 1 where the member has the game (持ってる) and has not played it

    def take(self, rows: np.ndarray) -> Members:
        """These members only (``rows``: positions in the batch, in the order given)."""
        return Members([self.user_ids[row] for row in rows], self.known[rows], self.watch[rows], self.liked[rows],
                       self.watch_fallback[rows], self.played[rows], self.owned_unplayed[rows])

    def without_liked(self, mask: np.ndarray) -> Members:
        """The same members with the liked games under ``mask`` (dense, bool) dropped and
        the remaining weights summing to 1 again (a game cannot be its own reason)."""
        liked = sp.csr_matrix(self.liked, dtype=np.float32, copy=True)
        # Only the liked entries are looked up in the mask: a sparse copy of ``~mask``
        # (most of a catalogue-wide batch) cost more than ranking a shelf.
        rows = np.repeat(np.arange(liked.shape[0]), np.diff(liked.indptr))
        liked.data[mask[rows, liked.indices]] = 0.0
        liked.eliminate_zeros()
        _normalise_rows(liked)
        return Members(self.user_ids, self.known, self.watch, liked, self.watch_fallback, self.played,
                       self.owned_unplayed)


def _normalise_rows(matrix: sp.csr_matrix) -> None:
    totals = np.asarray(matrix.sum(axis=1)).ravel()
    matrix.data /= np.repeat(np.where(totals > 0, totals, 1.0), np.diff(matrix.indptr)).astype(np.float32)


def member_rows(game_ids: pl.Series, collections: pl.DataFrame, user_ids: list[str]) -> Members:
    """Sparse rows (columns: ``game_ids`` in order) of these members from normalised collections."""
    users = pl.Series("user_id", user_ids, dtype=pl.String).to_frame().with_row_index("row")
    catalog = game_ids.to_frame().with_row_index("col")
    rows = (
        collections.join(users, on="user_id", how="inner")
        .join(catalog, on="game_id", how="inner")
        .with_columns(liked_weight(), on_watch_list())
        .with_columns((pl.col("liked").max().over("user_id") <= 0).alias("fallback"))
        .with_columns(
            pl.when(pl.col("fallback")).then(pl.col("watch").cast(pl.Float64)).otherwise(pl.col("liked")).alias("w")
        )
    )
    shape = (len(user_ids), game_ids.len())
    r = rows.get_column("row").to_numpy()
    c = rows.get_column("col").to_numpy()

    def matrix(values: np.ndarray) -> sp.csr_matrix:
        keep = values > 0
        out = sp.csr_matrix((values[keep].astype(np.float32), (r[keep], c[keep])), shape=shape)
        out.sum_duplicates()
        return out

    def flag(expr: pl.Expr) -> sp.csr_matrix:
        return matrix(rows.select(expr.cast(pl.Float32)).to_series().to_numpy())

    watch = rows.get_column("watch").to_numpy().astype(np.float32)
    liked = matrix(rows.get_column("w").to_numpy())
    _normalise_rows(liked)
    fallback = np.zeros(len(user_ids), dtype=bool)
    flagged = rows.filter(pl.col("fallback")).get_column("row").unique().to_numpy()
    fallback[flagged] = True
    return Members(
        user_ids, matrix(np.ones(r.size)), matrix(watch), liked, fallback,
        played=flag(pl.col("played")),
        owned_unplayed=flag(pl.col("have") & ~pl.col("played")),
    )
