"""Checks beside the marts: keys and schema block the run; data-quality findings warn."""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from warehouse.quality import run_checks

# CONTRACT.md: the columns each public mart has at least.
CONTRACT_COLUMNS = {
    "games": [
        "game_id", "name_ja", "name_en", "min_players", "max_players", "min_minutes", "max_minutes", "min_age",
        "year", "n_watching", "n_played", "n_favorite", "n_have", "designers", "mechanics", "themes", "url",
        "crawled_at",
    ],
    "collections": ["user_id", "game_id", "have", "played", "favorite", "watching", "rating", "updated_at", "crawled_at"],
    "cafe_games": ["space_slug", "game_id", "space_name"],
}
KEYS = {"games": ["game_id"], "collections": ["user_id", "game_id"], "cafe_games": ["space_slug", "game_id"]}


def _key_check(table: str, key: list[str]) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=dg.AssetKey(["marts", table]),
        name=f"{table}_unique_key",
        blocking=True,
        description=f"({', '.join(key)}) is unique in marts.{table}.",
    )
    def _check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
        cols = ", ".join(key)
        with duckdb.get_connection() as con:
            dupes = con.execute(
                f"SELECT {cols}, count(*) AS n FROM marts.{table} GROUP BY {cols} HAVING count(*) > 1 LIMIT 5"
            ).fetchall()
        return dg.AssetCheckResult(passed=not dupes, metadata={"examples": str(dupes)})

    return _check


def _schema_check(table: str, columns: list[str]) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=dg.AssetKey(["marts", table]),
        name=f"{table}_contract_columns",
        blocking=True,
        description=f"marts.{table} has every column CONTRACT.md promises.",
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


@dg.asset_check(
    asset=dg.AssetKey(["marts", "member_profiles"]),
    description="Data quality over all marts (ranges, known games, statuses); findings warn with examples.",
    additional_deps=[dg.AssetKey(["marts", t]) for t in ("games", "collections", "cafe_games")],
)
def data_quality(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    with duckdb.get_connection() as con:
        results = run_checks(con)
    failing = [r for r in results if not r.passed]
    return dg.AssetCheckResult(
        passed=not failing,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"checks": len(results), "failing": len(failing), "report": "\n".join(r.line() for r in results)},
    )


key_checks = [_key_check(t, k) for t, k in KEYS.items()]
schema_checks = [_schema_check(t, c) for t, c in CONTRACT_COLUMNS.items()]
