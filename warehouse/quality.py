"""Data-quality checks over the marts: counts and examples, never a crash.

Each check is one SQL file in `warehouse/sql/checks/` that selects the offending rows as
(`key`, `detail`), names its severity in a `-- severity: error|warn` comment and is named
after the mart it checks (`games_unique_key` checks `marts.games`). The orchestrator runs
each file as its own asset check, blocking where the file says `error`
(`pipelines/defs/warehouse/checks.py`); `bodoge build` runs them all. A check that itself
fails to run is reported as an error result, so one broken check never hides the others.
Every result lands in `marts.quality_checks` (DDL in `warehouse/sql/marts/`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl

from warehouse.build import MARTS
from warehouse.db import ensure_table, insert_by_name, sql_files

_SEVERITY = re.compile(r"--\s*severity:\s*(error|warn)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """One check file: its name, declared severity, first comment line, SQL and mart."""

    name: str
    severity: str
    description: str
    sql: str
    table: str

    @classmethod
    def read(cls, path: Path, tables: Iterable[str]) -> CheckSpec:
        """Parse a check file; `tables` are the marts a check may be named after."""
        text = path.read_text(encoding="utf-8")
        match = _SEVERITY.search(text)
        description = next(
            (ln.lstrip("- ").strip() for ln in text.splitlines() if ln.startswith("--") and "severity" not in ln), ""
        )
        owners = [t for t in sorted(tables, key=len, reverse=True) if path.stem.startswith(f"{t}_")]
        if not owners:
            raise ValueError(f"check {path.name} is not named after a mart ({', '.join(sorted(tables))})")
        return cls(path.stem, match.group(1).lower() if match else "warn", description, text, owners[0])


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


def check_specs() -> list[CheckSpec]:
    """Every check file, in name order."""
    return [CheckSpec.read(path, MARTS) for path in sql_files("checks")]


def run_check(con: duckdb.DuckDBPyConnection, spec: CheckSpec, *, n_examples: int = 5) -> CheckResult:
    """Run one check and record its result in `marts.quality_checks`."""
    try:
        frame = con.sql(spec.sql).pl()
        examples = [{"key": str(r["key"]), "detail": str(r["detail"])} for r in frame.head(n_examples).iter_rows(named=True)]
        result = CheckResult(spec.name, spec.severity, frame.height, examples, spec.description)
    except duckdb.Error as exc:
        detail = str(exc).splitlines()[0]
        result = CheckResult(spec.name, "error", 1, [{"key": "check", "detail": detail}], spec.description)
    store_results(con, [result])
    return result


def run_checks(con: duckdb.DuckDBPyConnection, *, n_examples: int = 5) -> list[CheckResult]:
    """Run every check; `marts.quality_checks` then holds exactly these results."""
    results = [run_check(con, spec, n_examples=n_examples) for spec in check_specs()]
    con.execute("DELETE FROM marts.quality_checks WHERE NOT list_contains(?, check_name)", [[r.name for r in results]])
    return results


def store_results(con: duckdb.DuckDBPyConnection, results: list[CheckResult]) -> None:
    """Replace these checks' rows of `marts.quality_checks` (one row per check, the latest)."""
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
    ensure_table(con, "quality_checks")
    con.execute("DELETE FROM marts.quality_checks WHERE list_contains(?, check_name)", [frame["check_name"].to_list()])
    insert_by_name(con, "quality_checks", frame)
