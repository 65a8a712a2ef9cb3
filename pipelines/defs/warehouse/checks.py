"""Checks beside the marts: one asset check per SQL check file, at the severity it declares.

A file that says `-- severity: error` (the keys) is a blocking check: when it fails, the
assets downstream of its mart do not run. `warn` files report and let the night go on.
The contract-column checks block too: the public interface (docs/interface.md) promises those columns to readers.
"""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from warehouse.quality import CheckSpec, check_specs, run_check

# The public interface (docs/interface.md): the columns each public mart has at least.
CONTRACT_COLUMNS = {
    "games": [
        "game_id", "name_ja", "name_en", "min_players", "max_players", "min_minutes", "max_minutes", "min_age",
        "year", "n_watching", "n_played", "n_favorite", "n_have", "designers", "mechanics", "themes", "url",
        "crawled_at",
    ],
    "collections": ["user_id", "game_id", "have", "played", "favorite", "watching", "rating", "updated_at", "crawled_at"],
    "cafe_games": ["space_slug", "game_id", "space_name"],
}


def _sql_check(spec: CheckSpec) -> dg.AssetChecksDefinition:
    error = spec.severity == "error"

    @dg.asset_check(
        asset=dg.AssetKey(["marts", spec.table]),
        name=spec.name,
        blocking=error,
        description=f"{spec.description} (warehouse/sql/checks/{spec.name}.sql, severity {spec.severity})",
        pool="warehouse_writer",
    )
    def _check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
        with duckdb.get_connection() as con:
            result = run_check(con, spec)
        return dg.AssetCheckResult(
            passed=result.passed,
            severity=dg.AssetCheckSeverity.ERROR if error else dg.AssetCheckSeverity.WARN,
            metadata={"failing_rows": result.n_failures, "report": result.line()},
        )

    return _check


def _schema_check(table: str, columns: list[str]) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=dg.AssetKey(["marts", table]),
        name=f"{table}_contract_columns",
        blocking=True,
        description=f"marts.{table} has every column the public interface (docs/interface.md) promises.",
    )
    def _check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
        with duckdb.get_connection() as con:
            have = {r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = ?",
                [table],
            ).fetchall()}
        missing = [c for c in columns if c not in have]
        return dg.AssetCheckResult(passed=not missing, metadata={"missing": ", ".join(missing) or "none"})

    return _check


sql_checks = [_sql_check(spec) for spec in check_specs()]
schema_checks = [_schema_check(t, c) for t, c in CONTRACT_COLUMNS.items()]
