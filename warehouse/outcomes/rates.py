"""``marts.list_outcomes``: what members did with the lists a night served, and the baselines.

For each served night S (``marts.served_lists``), list and window n (``WINDOWS``), once night
S + n has recorded its collections (``marts.history_nights``): the members served at S who
*acted* between S and S + n (``EVENTS``: what they held at S against what they hold at S + n,
``marts.collection_history``), and the share of them who acted on a game of their served top 10.
The same share for two counterfactuals scored for the same members from what they held at S:

- **popularity**: discovery's 10 most-collected games the member did not hold; a shelf's 10
  most-collected games among the member's own candidates (owned unplayed games, watched games);
- **the previous champion** (discovery only): the champion the night before S chose (its
  model and parameters, ``marts.model_runs``), ranking each member from what everyone held at
  S. Where it is S's own champion (the usual night: the choice did not move), its lists are
  S's served lists (the same fit on the same rows with the same seed); where the choice moved,
  it is fitted again on S's collections, which needs the models package the warehouse does not
  import: the caller passes the fitting (``PreviousLists``). Not the previous night's saved
  model: the privacy cut removes a saved model as soon as one member it was fitted on turns
  private, which at the real size is every night.

Why members who acted are the denominator: a member who did nothing could not take any game,
ours or popularity's, and would only dilute both rates alike; the rates answer "when members
acted, how often was it on our list".

The intervals are bootstrap 95 % percentile intervals over the members (``interval``), seeded
by the row's key so a row recomputed gives the same figures.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

import duckdb
import numpy as np
import polars as pl

from warehouse.db import ensure_table, registered, transaction
from warehouse.outcomes.exposure import K, LISTS
from warehouse.outcomes.history import state_sql

WINDOWS = (1, 7, 30)
"""The windows scored: nights after the served night."""
RESAMPLES = 2000
"""Bootstrap resamples per interval."""
EVENTS = {
    # a game the member holds at S + n and did not hold at S (any status)
    "discovery": "SELECT t.user_id, t.game_id FROM t ANTI JOIN s USING (user_id, game_id)",
    # an owned game (持ってる) not played at S, played (経験あり) at S + n
    "play_next": "SELECT s.user_id, s.game_id FROM s JOIN t USING (user_id, game_id) "
                 "WHERE s.have AND NOT s.played AND t.played",
    # a 興味あり game neither owned nor played at S, owned or played at S + n
    "watch_list": "SELECT s.user_id, s.game_id FROM s JOIN t USING (user_id, game_id) "
                  "WHERE s.watching AND NOT s.have AND NOT s.played AND (t.have OR t.played)",
}
"""For each list, the acts a member can do with it between S (``s``) and S + n (``t``)."""
SHELF_CANDIDATES = {"play_next": "have AND NOT played", "watch_list": "watching AND NOT have AND NOT played"}
"""A shelf's candidates at S: the games it may list (the popularity baseline ranks these)."""

PreviousLists = Callable[[dict[str, Any], pl.DataFrame, list[str]], "dict[str, list[str]] | None"]
"""(a champion: ``champion``, ``params``, ``weighting`` as ``champion_config`` gives them; what
everyone held at S: ``user_id``, ``game_id``, the flags, ``rating``; the members to rank) →
each member's top 10 game ids by that champion fitted on those rows (a member it cannot rank
left out), or None when it cannot be fitted."""
RUN_KEYS = ("weighting", "weights", "selection_ndcg", "forward_ndcg")
"""What marts.model_runs.params holds beside the champion's own parameters."""


def interval(hits: np.ndarray, *, seed: int) -> tuple[float | None, float | None, float | None]:
    """The hit rate of 0/1 ``hits`` with a bootstrap 95 % percentile interval.

    Resampling m members with replacement and counting their hits draws Binomial(m, rate):
    the bootstrap of a 0/1 mean is exactly that, so it is drawn directly (no m × RESAMPLES matrix).
    """
    m = int(hits.size)
    if m == 0:
        return None, None, None
    rate = float(hits.mean())
    draws = np.random.default_rng(seed).binomial(m, rate, size=RESAMPLES) / m
    low, high = np.quantile(draws, [0.025, 0.975])
    return rate, float(low), float(high)


def _seed(*key: object) -> int:
    return zlib.crc32("/".join(map(str, key)).encode())


def pending(con: duckdb.DuckDBPyConnection, night_no: int) -> list[tuple[int, str, int, str]]:
    """(served night's number, its id, window, outcome night's id) of every row whose window
    has closed by night ``night_no`` and is not in marts.list_outcomes yet."""
    rows = con.execute("""
        SELECT s.night_no, s.night_id, w.n, t.night_id
        FROM marts.history_nights s CROSS JOIN (SELECT unnest($windows::INTEGER[]) AS n) w
        JOIN marts.history_nights t ON t.night_no = s.night_no + w.n
        WHERE t.night_no <= $no AND s.night_id IN (SELECT night_id FROM marts.served_lists)
          AND NOT EXISTS (SELECT 1 FROM marts.list_outcomes o
                          WHERE o.served_night_id = s.night_id AND o.nights_after = w.n)
        ORDER BY s.night_no, w.n
        """, {"windows": list(WINDOWS), "no": night_no}).fetchall()
    return [(int(a), str(b), int(c), str(d)) for a, b, c, d in rows]


def acts(con: duckdb.DuckDBPyConnection, *, kind: str, served_id: str, served_no: int, outcome_no: int) -> pl.DataFrame:
    """``user_id``, ``events`` (the games acted on), ``served`` (the top 10) and ``popular``
    (the popularity baseline's 10) of each member served ``kind`` at S who acted by S + n."""
    candidates = SHELF_CANDIDATES.get(kind)
    if candidates is None:  # discovery: the most-collected games the member did not hold
        baseline = """
            held AS (SELECT user_id, count(*) AS n_held FROM s WHERE user_id IN (SELECT user_id FROM acted) GROUP BY ALL),
            baseline AS (
                SELECT a.user_id, p.game_id, p.pop_rank
                FROM acted a LEFT JOIN held h USING (user_id)
                JOIN pop p ON p.pop_rank <= coalesce(h.n_held, 0) + $k
                ANTI JOIN s ON s.user_id = a.user_id AND s.game_id = p.game_id)"""
    else:  # a shelf: the most-collected of the member's own candidates
        baseline = f"""
            baseline AS (
                SELECT s.user_id, s.game_id, coalesce(p.pop_rank, 2147483647) AS pop_rank
                FROM s LEFT JOIN pop p USING (game_id)
                WHERE s.user_id IN (SELECT user_id FROM acted) AND {candidates})"""
    return con.sql(f"""
        WITH s AS ({state_sql(served_no)}), t AS ({state_sql(outcome_no)}),
        served AS (SELECT user_id, games FROM marts.served_lists WHERE night_id = $served AND list_kind = $kind),
        events AS ({EVENTS[kind]}),
        acted AS (SELECT e.user_id, list(e.game_id ORDER BY e.game_id) AS events, any_value(v.games) AS served
                  FROM events e JOIN served v USING (user_id) GROUP BY e.user_id),
        pop AS (SELECT game_id, row_number() OVER (ORDER BY count(*) DESC, game_id) AS pop_rank
                FROM s GROUP BY game_id),
        {baseline},
        popular AS (SELECT user_id, list(game_id ORDER BY pop_rank, game_id)[1:$k] AS popular
                    FROM baseline GROUP BY user_id)
        SELECT a.user_id, a.events, a.served, coalesce(p.popular, []::VARCHAR[]) AS popular
        FROM acted a LEFT JOIN popular p USING (user_id) ORDER BY a.user_id
        """, params={"served": served_id, "kind": kind, "k": K}).pl()


def hit_flags(frame: pl.DataFrame, lists: str) -> np.ndarray:
    """Per member of ``frame``: did they act on a game of ``lists`` (each list's first K)?"""
    return np.array([bool(set(events) & set(games[:K])) for events, games in
                     zip(frame.get_column("events").to_list(), frame.get_column(lists).to_list())], dtype=bool)


def held_at(con: duckdb.DuckDBPyConnection, night_no: int) -> pl.DataFrame:
    """What every member held on night ``night_no`` (the rows a champion is fitted on, with their
    times: a recency weighting ages them as that night did)."""
    return con.sql(f"SELECT * FROM ({state_sql(night_no, timed=True)}) ORDER BY user_id, game_id").pl()


def champion_config(con: duckdb.DuckDBPyConnection, run_id: str | None) -> dict[str, Any] | None:
    """The champion a training run chose: ``champion``, ``params`` (its own parameters only),
    ``weighting`` (equal for two runs that chose the same); None when the run named none."""
    import json

    rows = con.execute("SELECT model, params FROM marts.model_runs WHERE run_id = ? AND champion "
                       "ORDER BY split = 'time' DESC LIMIT 1", [run_id]).fetchall()
    if not rows:
        return None
    params = json.loads(rows[0][1] or "{}")
    weighting = params.get("weighting", "graded")
    own = {key: value for key, value in params.items() if key not in RUN_KEYS}
    return {"champion": rows[0][0], "params": own, "weighting": weighting}


def previous_bundle(con: duckdb.DuckDBPyConnection, night_id: str) -> str | None:
    """The bundle the last night before ``night_id`` released (its model ranks the counterfactual)."""
    rows = con.execute("""
        SELECT export_run_id FROM marts.pipeline_runs
        WHERE export_run_id IS NOT NULL AND run_id <> $night
          AND started_at < (SELECT started_at FROM marts.pipeline_runs WHERE run_id = $night)
        ORDER BY started_at DESC LIMIT 1
        """, {"night": night_id}).fetchall()
    return rows[0][0] if rows else None


def outcome_row(con: duckdb.DuckDBPyConnection, *, kind: str, served: tuple[int, str], window: int,
                outcome: tuple[int, str], previous: PreviousLists | None) -> dict[str, Any]:
    """One row of marts.list_outcomes (without ``computed_at``)."""
    (served_no, served_id), (outcome_no, outcome_id) = served, outcome
    frame = acts(con, kind=kind, served_id=served_id, served_no=served_no, outcome_no=outcome_no)
    n_served = con.execute("SELECT count(*) FROM marts.served_lists WHERE night_id = ? AND list_kind = ?",
                           [served_id, kind]).fetchall()[0][0]
    ours = hit_flags(frame, "served")
    rate, low, high = interval(ours, seed=_seed(served_id, kind, window, "served"))
    pop_rate, pop_low, pop_high = interval(hit_flags(frame, "popular"), seed=_seed(served_id, kind, window, "popular"))
    row: dict[str, Any] = {
        "served_night_id": served_id, "list_kind": kind, "nights_after": window, "outcome_night_id": outcome_id,
        "served": int(n_served), "members": frame.height, "hits": int(ours.sum()),
        "hit_rate_at_10": rate, "hit_rate_low": low, "hit_rate_high": high,
        "popularity_hit_rate_at_10": pop_rate, "popularity_low": pop_low, "popularity_high": pop_high,
        "previous_run_id": None, "previous_members": None,
        "previous_hit_rate_at_10": None, "previous_low": None, "previous_high": None,
    }
    if kind == "discovery" and frame.height:
        row |= _previous_champion(con, frame, served=served, key=(served_id, kind, window), previous=previous)
    return row


def _previous_champion(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, *, served: tuple[int, str],
                       key: tuple[str, str, int], previous: PreviousLists | None) -> dict[str, Any]:
    """The previous champion's columns of a discovery row (empty when there is none to score)."""
    served_no, served_id = served
    bundle = previous_bundle(con, served_id)
    before = champion_config(con, bundle) if bundle else None
    if before is None:
        return {}
    run = con.execute("SELECT any_value(run_id) FROM marts.served_lists WHERE night_id = ? AND list_kind = 'discovery'",
                      [served_id]).fetchall()[0][0]
    users = frame.get_column("user_id").to_list()
    if champion_config(con, run) == before:  # the choice did not move: its lists are the served ones
        lists: dict[str, list[str]] | None = dict(zip(users, frame.get_column("served").to_list()))
    else:
        lists = previous(before, held_at(con, served_no), users) if previous is not None else None
    if lists is None:
        return {}
    ranked = frame.filter(pl.col("user_id").is_in(list(lists)))
    ranked = ranked.with_columns(pl.Series("previous", [lists[u] for u in ranked.get_column("user_id")],
                                           dtype=pl.List(pl.String)))
    rate, low, high = interval(hit_flags(ranked, "previous"), seed=_seed(*key, "previous"))
    return {"previous_run_id": bundle, "previous_members": ranked.height, "previous_hit_rate_at_10": rate,
            "previous_low": low, "previous_high": high}


def record_outcomes(con: duckdb.DuckDBPyConnection, *, night_no: int, outcome_night_id: str, computed_at: datetime,
                    previous: PreviousLists | None = None) -> list[dict[str, Any]]:
    """Add every row of marts.list_outcomes whose window closed by night ``night_no``; returns them.

    Incremental: rows already there are kept; the rows whose outcome is this night are computed
    again (a night run again may have recorded other collections).
    """
    ensure_table(con, "list_outcomes")
    ensure_table(con, "served_lists")
    ensure_table(con, "pipeline_runs")
    con.execute("DELETE FROM marts.list_outcomes WHERE outcome_night_id = ?", [outcome_night_id])
    rows = []
    for served_no, served_id, window, outcome_id in pending(con, night_no):
        for kind in LISTS:
            row = outcome_row(con, kind=kind, served=(served_no, served_id), window=window,
                              outcome=(served_no + window, outcome_id), previous=previous)
            rows.append(row | {"computed_at": computed_at})
    if rows:
        frame = pl.DataFrame(rows, infer_schema_length=None)
        with registered(con, "_outcomes", frame), transaction(con):
            con.execute("INSERT INTO marts.list_outcomes BY NAME SELECT * FROM _outcomes")
    return rows
