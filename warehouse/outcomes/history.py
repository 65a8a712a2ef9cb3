"""What members held on each night: ``marts.collection_history``, versions numbered by night.

Why versions and not a copy per night: at the real size a night holds about 3 million cards
and a night changes about 1 % of them, so keeping each night whole would cost 3 million rows a
night where the changes cost tens of thousands. What a member held on night n is the versions
with ``from_night <= n < to_night`` (``state_sql``).

Re-running a night is safe: the night keeps its number, what it recorded is undone (versions it
opened deleted, versions it closed reopened) and recorded again. Only the latest night can be
recorded again; an older one is left as recorded (its successors already built on it).
"""

from __future__ import annotations

from datetime import datetime

import duckdb

from warehouse.db import ensure_table, scalar, transaction

MAX_WINDOW = 30
"""The longest outcome window (nights): versions closed before ``night - MAX_WINDOW`` are dropped."""
CARD = ("user_id", "game_id", "have", "played", "favorite", "watching", "rating")
"""A card's columns, as marts.collections holds them (rating NULL when none)."""


def state_sql(night_no: int | str, *, timed: bool = False) -> str:
    """A query of what every member held on night ``night_no`` (the ``CARD`` columns, and with
    ``timed`` each card's ``updated_at``)."""
    return (f"SELECT {', '.join(CARD + (('updated_at',) if timed else ()))} FROM marts.collection_history "
            f"WHERE from_night <= {night_no} AND (to_night IS NULL OR to_night > {night_no})")


def night_number(con: duckdb.DuckDBPyConnection, night_id: str) -> int | None:
    """The night's number in marts.history_nights, or None when it recorded nothing."""
    ensure_table(con, "history_nights")
    value = scalar(con, "SELECT night_no FROM marts.history_nights WHERE night_id = ?", [night_id])
    return int(value) if value is not None else None


def record_collections(con: duckdb.DuckDBPyConnection, *, night_id: str, recorded_at: datetime) -> int:
    """Record marts.collections as night ``night_id``'s state; returns the night's number.

    One transaction: readers see the night recorded whole or not at all.
    """
    ensure_table(con, "history_nights")
    ensure_table(con, "collection_history")
    columns = ", ".join(CARD)
    with transaction(con):
        night_no = scalar(con, "SELECT night_no FROM marts.history_nights WHERE night_id = ?", [night_id])
        latest = scalar(con, "SELECT max(night_no) FROM marts.history_nights")
        if night_no is not None and night_no != latest:
            return int(night_no)  # an older night run again: its successors built on it
        if night_no is None:
            night_no = int(latest or 0) + 1
            con.execute("INSERT INTO marts.history_nights VALUES (?, ?, ?)", [night_no, night_id, recorded_at])
        else:
            con.execute("DELETE FROM marts.collection_history WHERE from_night = ?", [night_no])
            con.execute("UPDATE marts.collection_history SET to_night = NULL WHERE to_night = ?", [night_no])
            con.execute("UPDATE marts.history_nights SET recorded_at = ? WHERE night_no = ?", [recorded_at, night_no])
        # versions no longer current: changed or gone (EXCEPT compares NULL ratings as equal)
        con.execute(f"""
            UPDATE marts.collection_history AS h SET to_night = $no
            FROM (SELECT {columns} FROM marts.collection_history WHERE to_night IS NULL
                  EXCEPT SELECT {columns} FROM marts.collections) AS gone
            WHERE h.to_night IS NULL AND h.user_id = gone.user_id AND h.game_id = gone.game_id
            """, {"no": night_no})
        con.execute(f"""
            INSERT INTO marts.collection_history ({columns}, updated_at, from_night, to_night)
            SELECT n.*, c.updated_at, $no, NULL
            FROM (SELECT {columns} FROM marts.collections
                  EXCEPT SELECT {columns} FROM marts.collection_history WHERE to_night IS NULL) AS n
            JOIN marts.collections AS c USING (user_id, game_id)
            """, {"no": night_no})
        con.execute("DELETE FROM marts.collection_history WHERE to_night <= ?", [night_no - MAX_WINDOW])
    return int(night_no)

