"""The raw layer's columns are declared once (warehouse/sql/raw/*.sql); the writer's schemas follow."""

from __future__ import annotations

import dataclasses

import polars as pl

from scrapers.items import ITEM_TYPES
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
