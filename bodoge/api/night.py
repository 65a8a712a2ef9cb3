"""The night the API serves: the published night's lists, its rules and its model, held read-only.

What a night is here: `published.duckdb` (its `marts.publication` names the night and its
bundle), the bundle `exports/<bundle>/` (the lists, one JSON line per member or game) and the
served model `models/served/<bundle>/` (fold-in). One id ties the three, so the service never
answers from two nights at once: a request takes one `Night` and keeps it to its end.

Why the bundle's own lines and not the warehouse: a stored list must be byte for byte the line
the site would import, and reading it is one `pread` of a few kilobytes at an offset indexed
once per night (at 100,000 members, the index is ~10 MB where the lines are ~1.2 GB). The
filters go through the rule macros of the published night (`marts.playable_with`,
`marts.fits_in`) once per distinct filter, into a per-game mask.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import orjson

from warehouse.release.publish import publication, published_path
from warehouse.release.served import served_dir

log = logging.getLogger("bodoge.api")

FILES = {
    "discovery": "recommendations.jsonl",
    "watch_list": "watch_next.jsonl",
    "play_next": "next_to_play.jsonl",
    "similar": "similar_games.jsonl",
}
"""Each list the API serves from the bundle, and its file."""

MASKS_KEPT = 256
"""Distinct (players, minutes) filters whose game masks are kept per night."""


class NoNight(Exception):
    """No night is published in the data directory yet (or it cannot be read)."""


@dataclass
class LineIndex:
    """Where each key's line sits in a bundle file: one `pread` per request."""

    path: Path
    fd: int
    spans: dict[str, tuple[int, int]]

    @classmethod
    def build(cls, path: Path, key: str) -> LineIndex:
        """Scan the file once; each line's key is read from its head (`{"<key>":"…",…`)."""
        spans: dict[str, tuple[int, int]] = {}
        fd = os.open(path, os.O_RDONLY)
        head = f'{{"{key}":'.encode()
        with open(fd, "rb", closefd=False, buffering=1 << 20) as stream:
            offset = 0
            for line in stream:
                if line.startswith(head):
                    end = line.index(b',"items"')
                    spans[orjson.loads(line[len(head):end])] = (offset, len(line))
                offset += len(line)
        return cls(path=path, fd=fd, spans=spans)

    def line(self, key: str) -> bytes | None:
        span = self.spans.get(key)
        return None if span is None else os.pread(self.fd, span[1], span[0])

    def shared(self) -> LineIndex:
        """The same index on a file descriptor of its own (`dup`): a night that serves the same
        bundle reuses the scan (18–28 s at the real size) and closes only its own descriptor."""
        return LineIndex(path=self.path, fd=os.dup(self.fd), spans=self.spans)

    def close(self) -> None:
        os.close(self.fd)


@dataclass
class Lines:
    """A list's lines: the bundle's, amended by the delta bundles of `bodoge refresh`
    (`warehouse.release.delta`), newest first. A member a delta refreshed is answered from
    it, or has no such list now when the delta's file holds no line for them."""

    base: LineIndex
    deltas: list[tuple[frozenset[str], LineIndex]] = field(default_factory=list)

    def line(self, key: str) -> bytes | None:
        for refreshed, index in self.deltas:
            if key in refreshed:
                return index.line(key)
        return self.base.line(key)

    def close(self) -> None:
        self.base.close()
        for _, index in self.deltas:
            index.close()


@dataclass
class Night:
    """One published night, loaded whole (`load`); immutable while it serves."""

    night_id: str
    bundle: str
    published_at: datetime | None
    champion: str | None
    identity: tuple[int, int, int]
    members: frozenset[str]
    games: dict[str, int]
    lists: dict[str, Lines]
    model_dir: Path | None
    database: Path
    _con: duckdb.DuckDBPyConnection
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _masks: OrderedDict[tuple[int | None, int | None], np.ndarray] = field(default_factory=OrderedDict)
    _fold: Any = None

    @classmethod
    def load(cls, data_dir: Path, *, before: Night | None = None) -> Night:
        """The night `published.duckdb` names, with its bundle and its deltas; NoNight when
        there is none. `before`: the night served until now, whose scan of the same bundle is
        reused (a `bodoge refresh` publishes the same night again with a delta)."""
        path = published_path(data_dir)
        try:
            identity = file_identity(path)
            con = attach(path)
        except (OSError, duckdb.Error) as error:
            raise NoNight(f"no published night in {data_dir}: {str(error).splitlines()[0]}") from None
        try:
            row = publication(con) or {}
            bundle = row.get("export_run_id")
            if not bundle:
                raise NoNight(f"the published night in {data_dir} names no export bundle (run `bodoge run`)")
            lists = _lists(Path(data_dir) / "exports", bundle, before)
            members = frozenset(r[0] for r in con.execute(
                "SELECT user_id FROM marts.members UNION SELECT DISTINCT user_id FROM marts.collections").fetchall())
            games = {r[0]: i for i, r in enumerate(con.execute(
                "SELECT game_id FROM marts.games ORDER BY game_id").fetchall())}
            champion = _champion(con)
        except NoNight:
            con.close()
            raise
        except (OSError, duckdb.Error) as error:
            con.close()
            raise NoNight(f"cannot read the published night in {data_dir}: {str(error).splitlines()[0]}") from None
        model = served_dir(data_dir, bundle)
        night = cls(
            night_id=str(row.get("night_id") or row.get("run_id")), bundle=bundle,
            published_at=row.get("published_at"), champion=champion, identity=identity,
            members=members, games=games, lists=lists,
            model_dir=model if (model / "discovery.json").is_file() else None, database=path, _con=con,
        )
        log.info("api: night %s loaded (bundle %s, %d members, %d games)", night.night_id, bundle,
                 len(members), len(games))
        return night

    def line(self, name: str, key: str) -> bytes | None:
        """The bundle's line of `key` in list `name` (`FILES`), as written."""
        index = self.lists.get(name)
        return None if index is None else index.line(key)

    def mask(self, players: int | None, max_minutes: int | None) -> np.ndarray:
        """Per game (`games` order): passes the rule macros for this filter (cached)."""
        key = (players, max_minutes)
        with self._lock:
            found = self._masks.get(key)
            if found is not None:
                self._masks.move_to_end(key)
                return found
            rules = ["true"]
            if players is not None:
                rules.append("coalesce(marts.playable_with(players_from, players_to, $players), false)")
            if max_minutes is not None:
                rules.append("coalesce(marts.fits_in(minutes_to, $minutes), false)")
            params = {k: v for k, v in (("players", players), ("minutes", max_minutes)) if v is not None}
            values = self._con.execute(
                f"SELECT {' AND '.join(rules)} FROM marts.games ORDER BY game_id", params).fetchall()
            found = np.array([bool(v[0]) for v in values], dtype=bool)
            self._masks[key] = found
            if len(self._masks) > MASKS_KEPT:
                self._masks.popitem(last=False)
            return found

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor of the night's read-only connection, on the night (one per call: thread-safe)."""
        cursor = self._con.cursor()
        cursor.execute(f"USE {ALIAS}")
        return cursor

    def fold_in(self) -> Any:
        """The night's served model (`models.discovery.foldin.FoldIn`), loaded on first use;
        None when the night has none (cut for privacy, or published by `bodoge build`),
        also when the cut removed it after the night was loaded."""
        if self.model_dir is None:
            return None
        with self._lock:
            if self._fold is None:
                from models.discovery.foldin import FoldIn

                try:
                    self._fold = FoldIn.load(self.model_dir)
                except (OSError, ValueError, KeyError) as error:  # cut for privacy after the night loaded
                    log.warning("api: no model to fold in with (%s)", type(error).__name__)
                    self.model_dir = None
                    return None
            return self._fold

    def loaded_model(self) -> Any:
        """The fold-in model if it is loaded already (None: not yet, or none)."""
        return self._fold if self.model_dir is not None else None

    def model_gone(self) -> bool:
        """Drop the model when its files were removed (a privacy cut after this night loaded):
        it holds every member's rows. True when it was dropped."""
        if self.model_dir is None or (self.model_dir / "discovery.json").is_file():
            return False
        with self._lock:
            self.model_dir, self._fold = None, None
        return True

    def close(self) -> None:
        for index in self.lists.values():
            index.close()
        self._con.close()
        self._fold = None


ALIAS = "night"


def attach(path: Path) -> duckdb.DuckDBPyConnection:
    """The published night, read-only, in a database of its own.

    Why not `duckdb.connect(path)`: DuckDB keeps one database per path in a process, so after
    the release replaced the file, connecting to the same path again would give the old
    night's database while the old night still serves. Attached to a fresh in-memory
    database, the path is opened anew: the new file."""
    if not Path(path).is_file():
        raise OSError(f"no file {path}")
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{str(path).replace(chr(39), chr(39) * 2)}' AS {ALIAS} (READ_ONLY)")
        con.execute(f"USE {ALIAS}")
    except duckdb.Error:
        con.close()
        raise
    return con


def _lists(exports: Path, bundle: str, before: Night | None) -> dict[str, Lines]:
    """Each list's lines: the bundle's (the scan of `before` reused when it served the same
    bundle), amended by the deltas that amend this bundle, newest first."""
    from warehouse.release.delta import delta_bundles, require_delta

    folder = exports / bundle
    same = before is not None and before.bundle == bundle
    amended: dict[str, list[tuple[frozenset[str], LineIndex]]] = {name: [] for name in FILES}
    for path in reversed(delta_bundles(exports)):  # newest first (their ids sort by time)
        indexes: dict[str, LineIndex] = {}
        try:
            if require_delta(path).get("base_run_id") != bundle:
                continue
            for name, file in FILES.items():
                if name != "similar" and (path / file).is_file():
                    indexes[name] = LineIndex.build(path / file, "user_id")
            refreshed = frozenset(indexes["discovery"].spans)  # every refreshed member has a line there
        except (OSError, ValueError, KeyError) as error:
            for index in indexes.values():
                index.close()
            log.warning("api: delta %s skipped: %s", path.name, str(error).splitlines()[0] if str(error) else error)
            continue
        for name, index in indexes.items():
            amended[name].append((refreshed, index))
    lists = {}
    for name, file in FILES.items():
        if not (folder / file).is_file():
            for _, index in amended[name]:
                index.close()
            continue
        key = "game_id" if name == "similar" else "user_id"
        kept = before.lists.get(name) if same and before is not None else None
        base = kept.base.shared() if kept is not None else LineIndex.build(folder / file, key)
        lists[name] = Lines(base=base, deltas=amended[name])
    return lists


def _champion(con: duckdb.DuckDBPyConnection) -> str | None:
    """The model the night's lists came from (marts.recommendations.model)."""
    try:
        row = con.execute("SELECT any_value(model) FROM marts.recommendations").fetchone()
    except duckdb.Error:
        return None
    return None if row is None else row[0]


def file_identity(path: Path) -> tuple[int, int, int]:
    """(inode, size, mtime ns): a replaced published night has another."""
    stat = os.stat(path)
    return stat.st_ino, stat.st_size, stat.st_mtime_ns
