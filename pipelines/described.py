"""An asset's description and column schema, from the descriptions beside its table's SQL.

Why here: an asset that stands for a table (`raw.games`, `marts.recommendations`, …)
shows in the Dagster UI what an analyst sees in DuckDB (`warehouse.comments`), so both
come from one text; the column types are those of a night's tables
(`warehouse.dictionary.reference_columns`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import dagster as dg

from warehouse.comments import column_descriptions, table_description

WAREHOUSE = Path(__file__).resolve().parent.parent / "warehouse"
CACHE = Path(__file__).resolve().parent / "__pycache__"


@cache
def night_columns() -> dict[str, list[tuple[str, str]]]:
    """`warehouse.dictionary.reference_columns`, kept on disk for the code that makes it.

    Why: it builds every table and view of a night in an in-memory DuckDB (their types),
    ~0.6 s of each process that loads the definitions (the night's worker, each code
    server and run of `bodoge serve`). The file beside this module is named by a digest of
    every file under warehouse/ (SQL and Python) and DuckDB's version, so any change there
    builds it afresh; where it cannot be written, each process builds it as before."""
    digest = hashlib.sha256(version("duckdb").encode())
    for path in sorted(p for p in WAREHOUSE.rglob("*") if p.suffix in (".py", ".sql") and p.is_file()):
        digest.update(str(path.relative_to(WAREHOUSE)).encode())
        digest.update(path.read_bytes())
    kept = CACHE / f"night_columns-{digest.hexdigest()[:32]}.json"
    try:
        return {table: [tuple(c) for c in cols] for table, cols in json.loads(kept.read_text("utf-8")).items()}
    except (OSError, ValueError, AttributeError):
        pass
    from warehouse.dictionary import reference_columns

    columns = reference_columns()
    try:
        CACHE.mkdir(exist_ok=True)
        for old in CACHE.glob("night_columns-*.json"):
            old.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=CACHE, suffix=".tmp", delete=False, encoding="utf-8") as tmp:
            json.dump(columns, tmp)
        os.replace(tmp.name, kept)
    except OSError:
        pass  # a read-only checkout: built in each process
    return columns


def table_metadata(schema: str, name: str) -> dict[str, Any]:
    """`dagster/column_schema` of `schema.name`: every column with its type and description."""
    columns = night_columns()[f"{schema}.{name}"]
    texts = column_descriptions(schema, name, [column for column, _ in columns])
    return {"dagster/column_schema": dg.TableSchema(
        columns=[dg.TableColumn(column, dtype, description=texts[column]) for column, dtype in columns]
    )}


def described(schema: str, name: str) -> dict[str, Any]:
    """Keyword arguments of an asset or AssetSpec that stands for `schema.name`:
    its `description` and its column schema `metadata`."""
    return {"description": table_description(schema, name), "metadata": table_metadata(schema, name)}
