"""Erasing members who are not public now from any copy of the warehouse (backups, snapshots).

Why one place for every copy: a private collection leaves no trace anywhere, and the
copies the pipeline keeps (the verified backups of up to four weeks, the published
night) were made while a member was still public. Each copy is cut the way the crawl
cuts the warehouse itself (`purge_members`, below): their rows go,
their posts stay without the author, their listing and frontier rows go, in every schema
the copy has.

Why a guard: a copy is also what saves the history when the site itself misbehaves (a
login wall in front of every collection would make every member look private). A cut
that would erase more than `MAX_SHARE` of a copy's members is refused: the operator is
told, and decides.
"""

from __future__ import annotations

import duckdb
import polars as pl

from warehouse.db import registered, transaction
from warehouse.outcomes.kept import delete_members

#: A copy loses at most this share of its members in one cut (and at least `MIN_GUARD` may go).
MAX_SHARE, MIN_GUARD = 0.05, 50
#: Tables keyed by a member under another name: (schema, table, key column, the filter that makes it a member).
_MEMBER_KEYS = (
    ("raw", "listing_crawls", "key", "listing = 'collection'"),
    ("raw", "crawl_frontier", "key", "kind = 'collection'"),
)


class TooManyToErase(Exception):
    """A cut that would erase more members than the guard allows (see the module docstring)."""


def _places(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """(schema, table, column, extra filter) of every place a member id is stored in `con`'s database."""
    tables = {(r[0], r[1]) for r in con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database()").fetchall()}
    places = [(s, t, c, "TRUE") for s, t, c in con.execute(
        "SELECT schema_name, table_name, column_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND column_name IN ('user_id', 'author_user_id') ORDER BY ALL").fetchall() if (s, t) in tables]
    return places + [(s, t, c, f) for s, t, c, f in _MEMBER_KEYS if (s, t) in tables]


def erase_members_not_in(con: duckdb.DuckDBPyConnection, public: set[str] | list[str], *,
                         max_share: float = MAX_SHARE, min_guard: int = MIN_GUARD) -> set[str]:
    """Cut from `con`'s own database every member outside `public`; returns who was cut.

    Rows keyed by a member are deleted; `author_user_id` is set to NULL (the post stays).
    One transaction: a copy is cut whole or not at all. Raises TooManyToErase (and cuts
    nothing) when more than `max_share` of the copy's members (and more than `min_guard`) would go.
    """
    con.execute("CREATE OR REPLACE TEMP TABLE public_now AS SELECT unnest(?::VARCHAR[]) AS user_id",
                [sorted(public)])
    try:
        places = _places(con)
        known: set[str] = set()
        gone: set[str] = set()
        for schema, table, column, member in places:
            for value, is_public in con.execute(
                    f'SELECT DISTINCT "{column}", "{column}" IN (SELECT user_id FROM public_now) '
                    f'FROM "{schema}"."{table}" WHERE "{column}" IS NOT NULL AND {member}').fetchall():
                known.add(value)
                if not is_public:
                    gone.add(value)
        if len(gone) > max(min_guard, max_share * len(known)):
            raise TooManyToErase(f"{len(gone):,} of {len(known):,} members are not public now: "
                                 "refusing to erase so many (is the site showing its login page to the crawler?)")
        _erase(con, places, gone)
        return gone
    finally:
        con.execute("DROP TABLE IF EXISTS public_now")


def erase_named(con: duckdb.DuckDBPyConnection, users: set[str] | list[str]) -> set[str]:
    """Cut these members (found private, by name) from `con`'s own database, every schema;
    returns those it held. No guard: the names come from the crawl's login pages one by one."""
    if not users:
        return set()
    places = _places(con)
    held: set[str] = set()
    for schema, table, column, member in places:
        held |= {r[0] for r in con.execute(
            f'SELECT DISTINCT "{column}" FROM "{schema}"."{table}" '
            f'WHERE "{column}" IN (SELECT unnest(?::VARCHAR[])) AND {member}', [sorted(users)]).fetchall()}
    _erase(con, places, held)
    return held


def _erase(con: duckdb.DuckDBPyConnection, places: list[tuple[str, str, str, str]], gone: set[str]) -> None:
    """One transaction: rows keyed by `gone` deleted, their posts without the author."""
    if not gone:
        return
    with transaction(con):
        for schema, table, column, member in places:
            where = f'"{column}" IN (SELECT unnest(?::VARCHAR[])) AND {member}'
            if column == "author_user_id":
                con.execute(f'UPDATE "{schema}"."{table}" SET "{column}" = NULL WHERE {where}', [sorted(gone)])
            else:
                con.execute(f'DELETE FROM "{schema}"."{table}" WHERE {where}', [sorted(gone)])


def purge_members(con: duckdb.DuckDBPyConnection, users: set[str]) -> None:
    """Delete every raw row of these (private) members, and their rows of the marts that outlive a
    night (the collection history, the exposure log: `warehouse.outcomes.kept`); their posts lose
    the author id."""
    if not users:
        return
    delete_members(con, users)
    private = pl.DataFrame({"user_id": sorted(users)}, schema={"user_id": pl.String})
    with registered(con, "private_users", private.to_arrow()):
        con.execute("DELETE FROM raw.collection_entries WHERE user_id IN (SELECT user_id FROM private_users)")
        con.execute("DELETE FROM raw.members WHERE user_id IN (SELECT user_id FROM private_users)")
        con.execute(
            "DELETE FROM raw.listing_crawls WHERE listing = 'collection' "
            "AND key IN (SELECT user_id FROM private_users)"
        )
        con.execute(
            "DELETE FROM raw.crawl_frontier WHERE kind = 'collection' "
            "AND key IN (SELECT user_id FROM private_users)"
        )
        con.execute(
            "UPDATE raw.posts SET author_user_id = NULL "
            "WHERE author_user_id IN (SELECT user_id FROM private_users)"
        )
