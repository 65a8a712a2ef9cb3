"""Positions of ids in a mapping of distinct ids: how a member or a game id becomes a row
or a column of a matrix, without joining frames."""

from __future__ import annotations

from functools import cached_property

import numpy as np
import polars as pl

FEW_IDS = 512
"""Up to this many ids, ``IdIndex.positions`` looks them up in a dict (see there) ..."""
DICT_MAPPING = 200_000
"""... of a mapping of at most this many ids (a catalogue's games, a fold-in's members; not
every member of a big night: the dict would cost ~150 bytes an id for no gain there)."""


class IdIndex:
    """Positions of ids in a mapping of distinct ids, sorted once.

    Why: discovery asks for the rows of each batch of a few hundred members; joining them
    with a frame of every member per batch grew with the member count, so the night grew
    with its square (24 ms a batch at 360,000 members). A binary search in the sorted ids
    costs the batch's size times a logarithm."""

    def __init__(self, mapping: pl.Series) -> None:
        self.mapping = mapping.cast(pl.String)

    @cached_property
    def order(self) -> np.ndarray:
        return self.mapping.arg_sort().to_numpy().astype(np.int64)

    @cached_property
    def sorted(self) -> pl.Series:
        return self.mapping.gather(self.order)

    @cached_property
    def _by_id(self) -> dict[str | None, int]:
        by_id: dict[str | None, int] = {key: at for at, key in enumerate(self.mapping.to_list())}
        by_id.pop(None, None)  # a null id is never found
        return by_id

    def positions(self, ids: pl.Series | list[str]) -> np.ndarray:
        """Position in the mapping of each id, -1 where it is absent (or null).

        A few ids (a fold-in's one member and their games) are looked up in a dict of the
        mapping, made once: the binary search's five Polars calls cost ~0.15 ms whatever
        the count, more than ranking the member's rows in numpy."""
        few = len(ids) <= FEW_IDS and self.mapping.len() <= DICT_MAPPING  # checked first: listing a batch costs
        if few and (not isinstance(ids, pl.Series) or ids.dtype == pl.String):
            listed = ids.to_list() if isinstance(ids, pl.Series) else ids
            if all(isinstance(key, str) or key is None for key in listed):
                by_id = self._by_id
                return np.fromiter((by_id.get(key, -1) for key in listed), dtype=np.int64, count=len(listed))
        keys = pl.Series("key", ids).cast(pl.String)
        if self.mapping.len() == 0 or keys.len() == 0:
            return np.full(keys.len(), -1, dtype=np.int64)
        at = np.minimum(self.sorted.search_sorted(keys, side="left").to_numpy(), self.sorted.len() - 1)
        found = (self.sorted.gather(at) == keys).fill_null(False).to_numpy()
        return np.where(found, self.order[at], -1)
