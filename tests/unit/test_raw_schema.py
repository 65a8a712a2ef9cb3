"""The raw layer's columns are declared once (warehouse/sql/raw/*.sql, shared lists in
warehouse/sql/columns/); the writer's schemas follow."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
import pytest

from scrapers.items import ITEM_TYPES, GameListing
from warehouse.ddl import SQL_DIR, UnknownColumns, sql_text
from warehouse.raw import ITEM_TABLES, RAW_TABLES, raw_sql_files


def test_every_item_kind_fills_exactly_its_tables_columns() -> None:
    assert set(RAW_TABLES) == set(ITEM_TABLES) == set(ITEM_TYPES)
    for kind, table in RAW_TABLES.items():
        fields = [dict(table.rename).get(f.name, f.name) for f in dataclasses.fields(ITEM_TYPES[kind])]
        assert sorted(fields) == sorted(table.schema), kind
        assert set(table.key) <= set(table.schema), kind


def test_types_come_from_the_ddl() -> None:
    assert {p.stem for p in raw_sql_files()} >= {"games", "pages", "crawl_frontier", "collection_entries"}
    games = RAW_TABLES["game"].schema
    assert games["min_players"] == pl.Int32 and games["designers"] == pl.List(pl.String)
    assert RAW_TABLES["collection_entry"].schema["have"] == pl.Boolean
    assert RAW_TABLES["collection_entry"].key == ("user_id", "game_id")


def test_a_shared_column_list_is_placed_where_its_tables_name_it(tmp_path: Path) -> None:
    """`{{ columns.game_listing }}` becomes the listing's columns, in the same order in all
    three game tables; a name `sql/columns/` lacks is an error, not an empty list."""
    listing = [f.name for f in dataclasses.fields(GameListing) if f.name != "game_id"]
    for kind in ("game_summary", "cafe_game", "game"):
        columns = list(RAW_TABLES[kind].schema)
        start = columns.index("name_ja")
        assert columns[start:start + len(listing)] == listing, kind
    assert "{{" not in sql_text(SQL_DIR / "raw" / "games.sql")
    stray = tmp_path / "stray.sql"
    stray.write_text("CREATE TABLE t (\n    {{ columns.no_such_list }}\n);\n", encoding="utf-8")
    with pytest.raises(UnknownColumns, match="no_such_list"):
        sql_text(stray)
