"""Checks beside the recommendation marts: privacy of what a member has blocks; drift warns."""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from warehouse.db import scalar
from warehouse.model_marts import previous_champion

RECS = dg.AssetKey(["marts", "recommendations"])


@dg.asset_check(asset=RECS, blocking=True, description="No member is recommended a game they have or have played.")
def no_owned_or_played_recommended(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    with duckdb.get_connection() as con:
        bad = con.execute(
            "SELECT r.user_id, r.game_id FROM marts.recommendations r "
            "JOIN marts.collections c USING (user_id, game_id) WHERE c.have OR c.played LIMIT 5"
        ).fetchall()
        total = int(scalar(con, "SELECT count(*) FROM marts.recommendations") or 0)
    return dg.AssetCheckResult(passed=not bad and total > 0, metadata={"examples": str(bad), "rows": total})


@dg.asset_check(asset=RECS, blocking=True,
                description="No member's discovery list holds a game they marked 興味あり (it belongs on marts.watch_next).")
def no_watched_game_recommended(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    return _no_rows(duckdb, "SELECT r.user_id, r.game_id FROM marts.recommendations r "
                            "JOIN marts.collections c USING (user_id, game_id) WHERE c.watching")


@dg.asset_check(asset=dg.AssetKey(["marts", "watch_next"]), blocking=True,
                description="The watch-list shelf holds only the member's 興味あり games, neither had nor played.")
def watch_next_only_the_watch_list(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    return _no_rows(duckdb, "SELECT w.user_id, w.game_id FROM marts.watch_next w "
                            "LEFT JOIN marts.collections c USING (user_id, game_id) "
                            "WHERE NOT coalesce(c.watching AND NOT c.have AND NOT c.played, false)")


def _no_rows(duckdb: DuckDBResource, query: str) -> dg.AssetCheckResult:
    """Passes when `query` (the offending (member, game) pairs) finds none; up to 5 are shown."""
    with duckdb.get_connection() as con:
        bad = con.execute(f"{query} LIMIT 5").fetchall()
    return dg.AssetCheckResult(passed=not bad, metadata={"examples": str(bad)})


@dg.asset_check(asset=RECS, blocking=True, description="(user_id, rank) is unique and ranks start at 1.")
def recommendations_unique_key(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    with duckdb.get_connection() as con:
        dupes = int(scalar(con, "SELECT count(*) FROM (SELECT user_id, rank FROM marts.recommendations "
                                "GROUP BY ALL HAVING count(*) > 1)") or 0)
        bad_start = int(scalar(con, "SELECT count(*) FROM (SELECT user_id FROM marts.recommendations "
                                    "GROUP BY user_id HAVING min(rank) <> 1)") or 0)
    return dg.AssetCheckResult(passed=dupes == 0 and bad_start == 0,
                               metadata={"duplicate_keys": dupes, "users_not_starting_at_1": bad_start})


@dg.asset_check(asset=dg.AssetKey(["marts", "similar_games"]), blocking=True,
                description="No game is listed as similar to itself.")
def similar_games_not_self(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    with duckdb.get_connection() as con:
        n = int(scalar(con, "SELECT count(*) FROM marts.similar_games WHERE game_id = similar_game_id") or 0)
    return dg.AssetCheckResult(passed=n == 0, metadata={"self_pairs": n})


def _drift_check(metric: str, tolerance: float) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=dg.AssetKey(["marts", "model_runs"]),
        name=f"champion_{metric}_no_drop",
        description=f"The champion's {metric}@10 did not drop more than {tolerance:.0%} against the previous run.",
    )
    def _check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
        with duckdb.get_connection() as con:
            latest = con.sql("SELECT * FROM marts.model_runs WHERE champion ORDER BY run_id DESC, split = 'time' DESC LIMIT 1").pl().to_dicts()
            if not latest:
                return dg.AssetCheckResult(passed=False, severity=dg.AssetCheckSeverity.WARN,
                                           metadata={"reason": "no champion recorded"})
            before = previous_champion(con, latest[0]["run_id"])
        now = float(latest[0][metric])
        if before is None:
            return dg.AssetCheckResult(passed=True, metadata={metric: now, "previous": "none (first run)"})
        prev = float(before[metric])
        drop = (prev - now) / prev if prev else 0.0
        return dg.AssetCheckResult(
            passed=drop <= tolerance,
            severity=dg.AssetCheckSeverity.WARN,
            metadata={metric: now, "previous": prev, "relative_drop": round(drop, 4),
                      "previous_model": before["model"]},
        )

    return _check


drift_checks = [_drift_check("ndcg", 0.10), _drift_check("coverage", 0.20)]
