"""An asset's description and column schema, from the descriptions beside its table's SQL.

Why here: an asset that stands for a table (`raw.games`, `marts.recommendations`, …)
shows in the Dagster UI what an analyst sees in DuckDB (`warehouse.comments`), so both
come from one text; the column types are those of a night's tables
(`warehouse.dictionary.reference_columns`).
"""

from __future__ import annotations

from typing import Any

import dagster as dg

from warehouse.comments import column_descriptions, table_description
from warehouse.dictionary import reference_columns


def table_metadata(schema: str, name: str) -> dict[str, Any]:
    """`dagster/column_schema` of `schema.name`: every column with its type and description."""
    columns = reference_columns()[f"{schema}.{name}"]
    texts = column_descriptions(schema, name, [column for column, _ in columns])
    return {"dagster/column_schema": dg.TableSchema(
        columns=[dg.TableColumn(column, dtype, description=texts[column]) for column, dtype in columns]
    )}


def described(schema: str, name: str) -> dict[str, Any]:
    """Keyword arguments of an asset or AssetSpec that stands for `schema.name`:
    its `description` and its column schema `metadata`."""
    return {"description": table_description(schema, name), "metadata": table_metadata(schema, name)}
