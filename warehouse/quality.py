"""Data-quality checks over the marts: counts and examples, never a crash.

Each check is one SQL file in `warehouse/sql/checks/` that selects the offending rows as
(`key`, `detail`) and names its severity in a `-- severity:` comment. A check that
itself fails to run is reported as an error result, so one broken check never hides
the others.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone

import duckdb
import polars as pl

from warehouse.db import sql_files

_SEVERITY = re.compile(r"--\s*severity:\s*(error|warn)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome: how many rows fail it and a few of them."""

    name: str
    severity: str
    n_failures: int
    examples: list[dict[str, str]]
    description: str

    @property
    def passed(self) -> bool:
        return self.n_failures == 0

    def line(self) -> str:
        """A one-line report, with up to three examples."""
        if self.passed:
            return f"ok    {self.name}"
        shown = "; ".join(f"{e['key']} ({e['detail']})" for e in self.examples[:3])
        return f"{self.severity.upper():5} {self.name}: {self.n_failures:,} rows, e.g. {shown}"


def run_checks(con: duckdb.DuckDBPyConnection, *, n_examples: int = 5) -> list[CheckResult]:
    """Run every check; results are also written to `marts.quality_checks`."""
    results = []
    for path in sql_files("checks"):
        text = path.read_text(encoding="utf-8")
        match = _SEVERITY.search(text)
        severity = match.group(1).lower() if match else "warn"
        description = next(
            (ln.lstrip("- ").strip() for ln in text.splitlines() if ln.startswith("--") and "severity" not in ln), ""
        )
        try:
            frame = con.sql(text).pl()
            examples = [
                {"key": str(r["key"]), "detail": str(r["detail"])} for r in frame.head(n_examples).iter_rows(named=True)
            ]
            results.append(CheckResult(path.stem, severity, frame.height, examples, description))
        except duckdb.Error as exc:
            detail = str(exc).splitlines()[0]
            results.append(CheckResult(path.stem, "error", 1, [{"key": "check", "detail": detail}], description))
    _store(con, results)
    return results


def _store(con: duckdb.DuckDBPyConnection, results: list[CheckResult]) -> None:
    checked_at = datetime.now(timezone.utc)
    frame = pl.DataFrame(
        {
            "check_name": [r.name for r in results],
            "severity": [r.severity for r in results],
            "description": [r.description for r in results],
            "n_failures": [r.n_failures for r in results],
            "passed": [r.passed for r in results],
            "examples": [json.dumps(r.examples, ensure_ascii=False) for r in results],
        },
        schema={
            "check_name": pl.String, "severity": pl.String, "description": pl.String,
            "n_failures": pl.Int64, "passed": pl.Boolean, "examples": pl.String,
        },
    ).with_columns(pl.lit(checked_at).cast(pl.Datetime("us", "UTC")).alias("checked_at"))
    con.execute("CREATE SCHEMA IF NOT EXISTS marts")
    con.register("check_results", frame.to_arrow())
    try:
        con.execute("CREATE OR REPLACE TABLE marts.quality_checks AS SELECT * FROM check_results")
    finally:
        con.unregister("check_results")
