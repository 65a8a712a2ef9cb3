"""The BGG sync's writes to the warehouse's `raw.bgg_*` tables, and the state it decides from.

Why one small class: the BGG spider writes a handful of answers a night (a collection
per linked member, a thing batch per 20 games), each applied at once in its own
transaction, so a sync cut short keeps everything it read; and the same connection
answers "which things are due" once the collections are in.
"""

from __future__ import annotations

import dataclasses
import hashlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from scrapers.bgg_facts import BggCollectionItem, BggThing
from warehouse.raw import ensure_raw_schema

_TYPES: dict[str, Any] = {"VARCHAR": pl.String, "INTEGER": pl.Int32, "BOOLEAN": pl.Boolean, "DOUBLE": pl.Float64,
          "VARCHAR[]": pl.List(pl.String), "INTEGER[]": pl.List(pl.Int32),
          "TIMESTAMP WITH TIME ZONE": pl.Datetime("us", "UTC")}


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def upsert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> int:
    """Insert or replace `rows` (dicts of column → value) into `raw.<table>`, typed from its DDL."""
    if not rows:
        return 0
    schema = {c: _TYPES[t] for c, t in con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'raw' "
        "AND table_name = ? ORDER BY ordinal_position", [table]).fetchall()}
    frame = pl.DataFrame([{c: row.get(c) for c in schema} for row in rows], schema=schema, orient="row")
    con.register("bgg_rows", frame.to_arrow())
    try:
        con.execute(f"INSERT OR REPLACE INTO raw.{table} BY NAME SELECT * FROM bgg_rows")
    finally:
        con.unregister("bgg_rows")
    return frame.height


class BggStore:
    """Applies the BGG spider's answers to `raw.bgg_*` (and `raw.quarantine`), one transaction each."""

    def __init__(self, warehouse: str | Path, *, run_id: str) -> None:
        self.con = duckdb.connect(str(warehouse))
        self.run_id = run_id
        ensure_raw_schema(self.con)

    def close(self) -> None:
        self.con.close()

    def _stamp(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "fetched_at": now_utc()}

    def _in_transaction(self, *steps: Any) -> None:
        self.con.execute("BEGIN TRANSACTION")
        try:
            for step in steps:
                step()
            self.con.execute("COMMIT")
        except Exception:
            self.con.execute("ROLLBACK")
            raise

    def things(self, things: list[BggThing], *, url: str) -> int:
        """Upsert fetched things; the URL leaves the quarantine."""
        rows = [dataclasses.asdict(t) | self._stamp() for t in things]
        self._in_transaction(lambda: upsert(self.con, "bgg_things", rows),
                             lambda: self.con.execute("DELETE FROM raw.quarantine WHERE url = ?", [url]))
        return len(rows)

    def collection(self, bgg_user: str, items: list[BggCollectionItem], *, full: bool, url: str) -> None:
        """Apply one collection answer: a full one replaces the user's rows, a modifiedsince one adds to them."""
        stamp = self._stamp()
        rows = [dataclasses.asdict(i) | stamp for i in items]
        previous = self.con.execute("SELECT last_full_at FROM raw.bgg_collection_fetches WHERE bgg_user = ?",
                                    [bgg_user]).fetchall()
        state = {"bgg_user": bgg_user, "status": "full" if full else "changes", "n_items": len(rows),
                 "last_ok_at": stamp["fetched_at"],
                 "last_full_at": stamp["fetched_at"] if full else (previous[0][0] if previous else None)} | stamp
        steps = [lambda: self.con.execute("DELETE FROM raw.bgg_collection_items WHERE bgg_user = ?", [bgg_user])] \
            if full else []
        self._in_transaction(*steps, lambda: upsert(self.con, "bgg_collection_items", rows),
                             lambda: upsert(self.con, "bgg_collection_fetches", [state]),
                             lambda: self.con.execute("DELETE FROM raw.quarantine WHERE url = ?", [url]))

    def collection_failed(self, bgg_user: str, *, status: str) -> None:
        """Record a failed attempt; what was read before (rows, last_ok_at) stays as it was."""
        old = self.con.execute("SELECT n_items, last_ok_at, last_full_at FROM raw.bgg_collection_fetches "
                               "WHERE bgg_user = ?", [bgg_user]).fetchall()
        n, ok, full = old[0] if old else (0, None, None)
        upsert(self.con, "bgg_collection_fetches", [
            {"bgg_user": bgg_user, "status": status, "n_items": n, "last_ok_at": ok, "last_full_at": full}
            | self._stamp()])

    def quarantine(self, *, url: str, reason: str, http_status: int | None, body: bytes | None) -> None:
        """Keep a failed answer's URL and reason for a human (never a header: the token stays out)."""
        upsert(self.con, "quarantine", [{
            "url": url, "reason": reason[:500], "http_status": http_status,
            "body_sha256": hashlib.sha256(body).hexdigest() if body is not None else None} | self._stamp()])

    def things_due(self, *, extra: list[int], max_age_days: float) -> list[int]:
        """Things linked members hold or the overrides name, not fetched within `max_age_days`."""
        rows = self.con.execute(
            """
            WITH wanted AS (
                SELECT DISTINCT i.bgg_id FROM raw.bgg_collection_items i
                JOIN raw.bgg_member_links l USING (bgg_user)
                UNION SELECT unnest(?::INTEGER[])
            )
            SELECT w.bgg_id FROM wanted w LEFT JOIN raw.bgg_things t USING (bgg_id)
            WHERE t.fetched_at IS NULL OR t.fetched_at < now() - to_microseconds((? * 86400e6)::BIGINT)
            ORDER BY w.bgg_id
            """, [extra, max_age_days]).fetchall()
        return [int(r[0]) for r in rows]
