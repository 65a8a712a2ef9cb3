"""Who is public: the one statement every writer cuts by.

The rule: a member is public while the site shows their collection. The crawl learns it
from each member's collection page: a real collection page (any listing outcome in
`COMPLETE_LISTINGS`, or `incomplete` after page 1 was read) shows them public; the login
page (`private`) shows them private, and a private member leaves no trace anywhere.

Why the warehouse keeps no list of private members: that list would itself be a trace. So
every copy is cut the other way round, down to the members the warehouse knows as public
now (`public_users`), or, during a crawl, by the ids the crawl has just found private
(`warehouse.privacy.erasure`, whose journal holds them only until every cut is done).
"""

from __future__ import annotations

from typing import Any

import duckdb

#: Collection outcomes after which the warehouse holds the member's whole collection (public).
COMPLETE_LISTINGS = ("public", "empty", "updated", "unchanged")


def shows_collection(row: dict[str, Any]) -> bool:
    """Whether a collection outcome proves page 1 was a real collection page (not private).

    `updated` and `unchanged` come from an incremental night, which reads a collection
    only when the directory shows it public. `incomplete` on page 1 says nothing when no
    card was read: that page may have been the login page that failed to arrive. With
    cards read (a listing short of its stated total), or ended on a later page, page 1
    was a real one.
    """
    status = row["status"]
    read_a_page = (row.get("n_pages") or 0) > 1 or (row.get("n_entries") or 0) > 0
    return status in COMPLETE_LISTINGS or (status == "incomplete" and read_a_page)


def public_users(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Members the warehouse knows as public now.

    Raw first: a crawl that finds a member private purges them from raw at once, while the
    marts still show them until the next build; after a crawl, raw is the truth. The marts
    are the fallback for a warehouse without raw tables.
    """
    if _has_table(con, "raw", "collection_entries") and _has_table(con, "raw", "listing_crawls"):
        query = (
            "SELECT user_id FROM raw.collection_entries UNION "
            "SELECT key FROM raw.listing_crawls WHERE listing = 'collection' AND list_contains(?, status)"
        )
        return {row[0] for row in con.execute(query, [list(COMPLETE_LISTINGS)]).fetchall()}
    elif _has_table(con, "marts", "collections"):
        query = "SELECT DISTINCT user_id FROM marts.collections"
        if _has_table(con, "marts", "members"):  # public with an empty collection (a welcome list's member)
            query += " UNION SELECT user_id FROM marts.members"
    else:
        return set()
    return {row[0] for row in con.execute(query).fetchall()}


def shown_in_earlier_runs(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Members whose last collection outcome in raw showed a real collection page (an outcome
    of `COMPLETE_LISTINGS`, or `incomplete` past page 1): a post may name them as its author
    before this crawl reads their collection again."""
    return {r[0] for r in con.execute(
        "SELECT key FROM raw.listing_crawls WHERE listing = 'collection' "
        "AND (list_contains(?, status) OR (status = 'incomplete' AND n_pages > 1))",
        [list(COMPLETE_LISTINGS)]).fetchall()}


def _has_table(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> bool:
    rows = con.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", [schema, table]
    ).fetchall()
    return bool(rows)
