"""The outcome marts that outlive a night, and how a member who turns private leaves them.

Why a rule of their own: every other mart is rebuilt from raw each night, so a member purged
from raw leaves it by itself; the collection history and the exposure log keep a month of
nights, so they must be cut by name (``warehouse.privacy.erase.purge_members``, the moment the
crawl finds a member private) and by rule (``forget_members``, each night, everyone who is not
public now), as the bundles and backups are.
"""

from __future__ import annotations

import duckdb

from warehouse.db import ensure_table, scalar

KEPT_BY_MEMBER = ("collection_history", "served_lists")
"""The marts that outlive a night and name members (``user_id``)."""


def forget_members(con: duckdb.DuckDBPyConnection, public: set[str] | list[str]) -> int:
    """Delete from ``KEPT_BY_MEMBER`` every member outside ``public``; returns the rows gone."""
    gone = 0
    for name in KEPT_BY_MEMBER:
        ensure_table(con, name)
        before = int(scalar(con, f"SELECT count(*) FROM marts.{name}") or 0)
        con.execute(f"DELETE FROM marts.{name} WHERE user_id NOT IN (SELECT unnest(?::VARCHAR[]))",
                    [sorted(public)])
        gone += before - int(scalar(con, f"SELECT count(*) FROM marts.{name}") or 0)
    return gone


def delete_members(con: duckdb.DuckDBPyConnection, users: set[str] | list[str]) -> None:
    """Delete these members from whichever of ``KEPT_BY_MEMBER`` the database has (the cut by name)."""
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'marts'"
    ).fetchall()}
    for name in KEPT_BY_MEMBER:
        if name in present:
            con.execute(f"DELETE FROM marts.{name} WHERE user_id IN (SELECT unnest(?::VARCHAR[]))", [sorted(users)])
