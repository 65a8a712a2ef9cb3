"""The exposure log: the top 10 of every list a night serves (``marts.served_lists``).

Why the top 10: it is what the site shows (the export's lines carry 100 games, the page the
first 10), and what ``marts.list_outcomes`` scores. Why arrays: one row per member and list
keeps a month of nights at the real size near 9 million rows rather than 90 million.

Only nights that released a bundle were served: a night's lists are recorded right after
discovery (before the release), and the next night deletes those of a night that never
released (``marts.pipeline_runs.export_run_id`` empty).
"""

from __future__ import annotations

import duckdb

from warehouse.db import ensure_table, scalar, transaction
from warehouse.outcomes.history import MAX_WINDOW

K = 10
"""The list length the site shows and the outcomes score."""
LISTS = {"discovery": "recommendations", "watch_list": "watch_next", "play_next": "next_to_play"}
"""Each list kind and the mart that holds the night's full lists."""


def record_served(con: duckdb.DuckDBPyConnection, *, night_id: str, night_no: int,
                  model: str | None = None) -> dict[str, int]:
    """Replace night ``night_id``'s rows of the exposure log with tonight's lists; drop the
    lists of nights that released nothing and of nights past the longest window.
    ``model``: the champion's name (None: the one marts.recommendation_runs names for the night).
    Returns the members served per list kind."""
    ensure_table(con, "served_lists")
    for table in (*LISTS.values(), "pipeline_runs", "history_nights", "recommendation_runs"):
        ensure_table(con, table)
    if model is None:
        model = scalar(con, "SELECT any_value(model) FROM marts.recommendation_runs WHERE night_id = ?", [night_id])
    with transaction(con):
        con.execute("DELETE FROM marts.served_lists WHERE night_id = ?", [night_id])
        for kind, table in LISTS.items():
            welcome = "bool_or(coalesce(welcome, FALSE))" if kind == "discovery" else "NULL"
            con.execute(f"""
                INSERT INTO marts.served_lists BY NAME
                SELECT $night AS night_id, $kind AS list_kind, user_id,
                       list(game_id ORDER BY rank) AS games, list(score::FLOAT ORDER BY rank) AS scores,
                       {welcome} AS welcome, any_value(run_id) AS run_id, $model AS model
                FROM marts.{table} WHERE rank <= $k GROUP BY user_id
                """, {"night": night_id, "kind": kind, "model": model, "k": K})
        con.execute("""
            DELETE FROM marts.served_lists WHERE night_id <> $night AND (
                night_id NOT IN (SELECT run_id FROM marts.pipeline_runs WHERE export_run_id IS NOT NULL)
                OR night_id NOT IN (SELECT night_id FROM marts.history_nights WHERE night_no > $oldest))
            """, {"night": night_id, "oldest": night_no - MAX_WINDOW - 1})
    rows = con.execute("SELECT list_kind, count(*) FROM marts.served_lists WHERE night_id = ? GROUP BY ALL",
                       [night_id]).fetchall()
    served = {kind: 0 for kind in LISTS} | {kind: int(n) for kind, n in rows}
    return served
