"""Every table and column is described once, beside its SQL, and the description reaches
the warehouse (DuckDB comments), the published night, the Dagster UI and docs/warehouse.md."""

from __future__ import annotations

import logging
import re
import shutil
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl
import pytest

from models.discovery.run import discover
from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.build import build_all
from warehouse.comments import (
    DescriptionError, apply_comments, load_docs, parse_text, table_docs, undescribed, validate,
)
from warehouse.db import SQL_DIR, connect
from warehouse.dictionary import DOC_PATH, reference_warehouse, render
from warehouse.model_marts import record_pipeline_run, replace_table, write_model_runs
from warehouse.nights import NIGHT_VIEWS, ensure_night_marts, record_lists
from warehouse.release.publish import publish_snapshot, published_path
from warehouse.quality import run_checks

WHEN = datetime(2026, 11, 1, 3, 0, tzinfo=timezone.utc)
SCHEMAS = ("raw", "staging", "marts")


@pytest.fixture(scope="module")
def night_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny warehouse after a night, built once for the module; each test opens its own copy."""
    path = tmp_path_factory.mktemp("night") / "warehouse.duckdb"
    _build_night(path).close()
    return path


def _night(path: Path, built: Path) -> duckdb.DuckDBPyConnection:
    """A copy of the module's night at `path`, open."""
    shutil.copyfile(built, path)
    return connect(path)


def _build_night(path: Path) -> duckdb.DuckDBPyConnection:
    """A tiny warehouse after a night: marts built, checks run, the models' marts written."""
    build_small_warehouse(path)
    con = connect(path)
    ensure_night_marts(con)  # as the night's first step does
    run_checks(con)
    collections = con.sql("SELECT * FROM marts.collections").pl()
    games = con.sql("SELECT * FROM marts.games").pl()
    result = discover(collections=collections, games=games, posts=None, champion="popularity", params={},
                      weighting="graded", run_id="run-1", generated_at=WHEN)
    replace_table(con, "recommendations", result.recommendations)
    replace_table(con, "similar_games", result.similar_games)
    replace_table(con, "next_to_play", result.next_to_play)
    replace_table(con, "watch_next", result.watch_next)
    record_lists(con, night_id="d1", run_id="run-1", model="popularity", generated_at=WHEN)
    write_model_runs(con, pl.DataFrame({"run_id": ["run-1"], "model": ["popularity"], "k": [10], "ndcg": [0.1],
                                        "trained_at": [WHEN], "champion": [True], "split": ["time"]}))
    record_pipeline_run(con, run_id="d1", job="nightly", started_at=WHEN, finished_at=WHEN, status="SUCCESS",
                        checks=[])
    return con


def _tables(con: duckdb.DuckDBPyConnection, schema: str, database: str | None = None) -> set[str]:
    return {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = ? AND database_name = coalesce(?, current_database())",
        [schema, database]).fetchall()}


def test_every_table_and_column_of_a_night_carries_its_description(tmp_path: Path, night_file: Path) -> None:
    con = _night(tmp_path / "warehouse.duckdb", night_file)
    try:
        described_marts = {d.name for d in table_docs().values() if d.schema == "marts"} - {"publication"}
        views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = 'marts' "
                                           "AND database_name = current_database()").fetchall()}
        assert views == set(NIGHT_VIEWS)
        assert _tables(con, "marts") | views == described_marts  # every mart is here, so none escapes the check
        assert undescribed(con, SCHEMAS) == []
        comment = con.execute("SELECT comment FROM duckdb_columns() WHERE schema_name = 'marts' "
                              "AND table_name = 'games' AND column_name = 'n_have'").fetchall()[0][0]
        assert "持ってる" in comment and "private members included" in comment
        build_all(con)  # CREATE OR REPLACE drops comments: the rebuild puts them back
        assert undescribed(con, SCHEMAS) == []
    finally:
        con.close()


def test_an_undescribed_column_is_seen(tmp_path: Path, night_file: Path) -> None:
    con = _night(tmp_path / "warehouse.duckdb", night_file)
    try:
        con.execute("COMMENT ON COLUMN marts.games.n_have IS NULL")
        con.execute("CREATE TABLE marts.scratch (x INTEGER)")
        assert undescribed(con, SCHEMAS) == ["marts.games.n_have", "marts.scratch", "marts.scratch.x"]
        assert apply_comments(con) == 1  # only the missing one is written again
        assert undescribed(con, SCHEMAS) == ["marts.scratch", "marts.scratch.x"]
    finally:
        con.close()


def test_a_copy_made_by_create_table_as_is_described_by_apply_comments(tmp_path: Path, night_file: Path) -> None:
    """How the published night is made (warehouse.release.publish): CREATE TABLE … AS into an
    attached file carries no comment over, so the publish step applies them to the copy."""
    con = _night(tmp_path / "warehouse.duckdb", night_file)
    try:
        con.execute(f"ATTACH '{tmp_path / 'copy.duckdb'}' AS copy")
        for schema in ("marts", "raw"):
            con.execute(f"CREATE SCHEMA copy.{schema}")
        for schema, table in [("marts", t) for t in _tables(con, "marts")] + [("raw", "posts")]:
            con.execute(f"CREATE TABLE copy.{schema}.{table} AS SELECT * FROM {schema}.{table}")
        con.execute("USE copy")
        con.execute((SQL_DIR / "snapshot" / "publication.sql").read_text(encoding="utf-8"))
        con.execute("USE warehouse")
        assert "marts.games.n_have" in undescribed(con, SCHEMAS, database="copy")
        apply_comments(con, database="copy")
        assert undescribed(con, SCHEMAS, database="copy") == []
        assert undescribed(con, SCHEMAS) == []  # the warehouse itself untouched and still described
    finally:
        con.close()


def test_the_published_night_carries_the_descriptions(tmp_path: Path, night_file: Path) -> None:
    """docs/interface.md: the descriptions are also in the published night."""
    con = _night(tmp_path / "warehouse.duckdb", night_file)
    try:
        publish_snapshot(con, tmp_path, run_id="night-1")
    finally:
        con.close()
    with duckdb.connect(str(published_path(tmp_path)), read_only=True) as reader:
        assert undescribed(reader, SCHEMAS) == []
        views = {r[0] for r in reader.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = 'marts' "
                                              "AND NOT internal").fetchall()}
        assert views == set(NIGHT_VIEWS)  # made anew in the file: a copy takes tables only
        assert reader.execute("SELECT count(*) FROM marts.model_quality").fetchall() == [(1,)]


def test_docs_warehouse_md_is_what_the_generator_prints() -> None:
    assert DOC_PATH.read_text(encoding="utf-8") == render(), (
        "docs/warehouse.md is not current: run `uv run python -m warehouse.dictionary --write`")


def test_a_description_of_a_column_the_table_has_not_is_stale(caplog: pytest.LogCaptureFixture) -> None:
    docs = load_docs()
    games = docs["marts.games"]
    docs["marts.games"] = replace(games, columns={**games.columns, "n_owners": "A column that was renamed."})
    con = reference_warehouse()
    try:
        assert validate(con, docs) == ["games.sql: @column n_owners is not a column of marts.games (stale)"]
        assert validate(con) == []  # the project's own descriptions match a night's tables
        con.execute("ALTER TABLE marts.games DROP COLUMN source")  # a table older than its file
        with caplog.at_level(logging.DEBUG, logger="bodoge.warehouse"):
            apply_comments(con)  # a night never fails over a description (a debug line says it)
        assert "source" in caplog.text
    finally:
        con.close()


def test_a_column_without_description_and_a_bad_join_are_reported() -> None:
    docs = load_docs()
    games = docs["marts.games"]
    docs["marts.games"] = replace(games, columns={k: v for k, v in games.columns.items() if k != "source"})
    recs = docs["marts.recommendations"]
    docs["marts.recommendations"] = replace(recs, joins=[*recs.joins, replace(recs.joins[0], to=("member_id",))])
    con = reference_warehouse()
    try:
        assert validate(con, docs) == [
            "games.sql: column marts.games.source has no description",
            "recommendations.sql: @join marts.members(member_id): no such column",
        ]
    finally:
        con.close()


@pytest.mark.parametrize(("text", "error"), [
    ("CREATE TABLE raw.t (a INTEGER);", "no `-- @table raw.t"),
    ("-- @table raw.u: A table.\nCREATE TABLE raw.t (a INTEGER);", "@table names raw.u, the file creates raw.t"),
    ("-- @table raw.t: A.\n-- @table raw.t: B.\nCREATE TABLE raw.t (a INTEGER);", "one `@table"),
    ("-- @table raw.t: A.\n-- @column a: one.\n-- @column a: two.\nCREATE TABLE raw.t (a INTEGER);", "twice"),
    ("-- @table raw.t: A.\n-- @join a = raw.u\nCREATE TABLE raw.t (a INTEGER);", "expected `@join"),
])
def test_a_malformed_source_names_its_file_and_line(text: str, error: str) -> None:
    with pytest.raises(DescriptionError, match=re.escape(error)):
        parse_text(text, Path("t.sql"))


def test_a_description_goes_on_over_comment_lines_until_a_bare_one() -> None:
    doc = parse_text(
        "-- @table raw.t: First line\n--   and its second.\n-- @column a: A's text\n--   continued.\n--\n"
        "-- a note for developers only\nCREATE TABLE raw.t (a INTEGER);", Path("t.sql"))
    assert doc.description == "First line and its second."
    assert doc.columns == {"a": "A's text continued."}


def test_the_dagster_assets_describe_their_tables() -> None:
    from pipelines.definitions import defs

    graph = defs().resolve_asset_graph()
    for key in (["marts", "games"], ["raw", "collection_entries"], ["marts", "recommendations"],
                ["staging", "stg_members"]):
        node = graph.get(dg.AssetKey(key))
        assert node.description == table_docs()[".".join(key)].description
        schema = node.metadata["dagster/column_schema"]
        assert all(column.description for column in schema.columns)
    games = graph.get(dg.AssetKey(["marts", "games"])).metadata["dagster/column_schema"]
    assert {c.name: c.type for c in games.columns}["designers"] == "VARCHAR[]"
