"""The scrub's fast look at a bundle file: it may only ever say "nobody is cut" when reading
every line as JSON says so too, and it must answer for the files the export itself writes."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import duckdb
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from warehouse.release.export import write_grouped
from warehouse.release.retention import _keeps_everyone, _public_lines

IDS = st.text(min_size=0, max_size=8)
"""Member ids of any characters: quotes, backslashes, newlines and Japanese included."""


@cache
def _duckdb() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB for the module's files: opening one (~30 ms) was most of an example."""
    return duckdb.connect()


def written(tmp_path: Path, users: list[str]) -> bytes:
    """A per-user file exactly as `export_bundle` writes it (DuckDB's COPY of grouped rows)."""
    rows = pl.DataFrame({
        "user_id": [u for u in users for _ in range(2)], "rank": [1, 2] * len(users),
        "game_id": ["a", "b"] * len(users), "score": [0.9, 0.5] * len(users),
        "reason": ["「ヒミツの森」が好きなあなたに"] * (2 * len(users)),
    })
    path = tmp_path / "recommendations.jsonl"
    con = _duckdb()
    con.register("rows", rows)
    try:
        write_grouped(con, "rows", "user_id", {"game_id": "game_id", "score": "score", "reason": "reason"}, path)
    finally:
        con.unregister("rows")
    return path.read_bytes()


def test_the_exports_own_files_are_answered_without_parsing(tmp_path: Path) -> None:
    users = ["1", "u-2", "会員3", "4"]
    data = written(tmp_path, users)
    assert _keeps_everyone(data, lambda user: True)  # the fast path engages on the writer's layout
    assert not _keeps_everyone(data, lambda user: user != "会員3")  # someone to cut: read it all
    similar = b'{"game_id":"a","items":[{"rank":1,"game_id":"b","score":0.8}]}\n'
    assert _keeps_everyone(similar, lambda user: False)  # no per-user line at all


@settings(max_examples=30, deadline=None)  # each example is a DuckDB COPY to a file: 30 keep the unit tier fast
@given(users=st.lists(IDS, min_size=1, max_size=6, unique=True), public=st.sets(IDS, max_size=6))
def test_writer_files_agree_with_reading_every_line(tmp_path_factory, users: list[str], public: set[str]) -> None:
    data = written(tmp_path_factory.mktemp("w"), users)
    keeps = public.__contains__
    if _keeps_everyone(data, keeps):
        assert _public_lines(data, keeps)[2] == 0


LINES = st.one_of(
    st.builds(lambda u, rest: json.dumps({"user_id": u, **rest}, ensure_ascii=False),
              IDS, st.dictionaries(st.sampled_from(["items", "user_id", "x"]), st.integers(), max_size=2)),
    st.builds(lambda u: '{"user_id":"%s","user_id":"%s"}' % (u, "private"), st.sampled_from(["1", "2"])),
    st.builds(lambda u: '{"user_id":"1","\\u0075ser_id":"%s"}' % u, st.sampled_from(["1", "private"])),
    st.builds(lambda u: '{"user_id":"1","items":[],"user_id" : "%s"}' % u, st.sampled_from(["1", "private"])),
    st.just(""), st.just("   "), st.just('{"game_id":"a"}'),
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(LINES, min_size=1, max_size=5), end=st.sampled_from(["\n", ""]))
def test_any_layout_is_never_answered_wrongly(lines: list[str], end: str) -> None:
    """Duplicate keys, escaped keys, blank lines, spacing: "nobody is cut" only when true."""
    data = ("\n".join(lines) + end).encode("utf-8")
    keeps = lambda user: user != "private"  # noqa: E731
    if _keeps_everyone(data, keeps):
        assert _public_lines(data, keeps)[2] == 0
