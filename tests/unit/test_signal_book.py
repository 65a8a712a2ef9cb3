"""What a night remembers of the site's signals (raw.crawl_signals), on a real DuckDB warehouse.

Why: the fast way is taken only on a signal the newest night able to judge it confirmed,
for the same site; a warehouse from before the table must fall back, not fail.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from scrapers.signals import SIGNALS, STRATEGIES, SignalBook
from warehouse.raw import RawWriter, ensure_raw_schema

SITE = "http://site.example"


def _night(con: duckdb.DuckDBPyConnection, run_id: str, states: dict[str, str], base_url: str = SITE) -> None:
    """A finished run of `base_url` whose book measured `states` (others unmeasured)."""
    writer = RawWriter(con, run_id=run_id)
    writer.start_run(base_url=base_url)
    book = SignalBook({n: "unmeasured" for n in SIGNALS}, incremental=False)
    for name, state in states.items():
        what = {"confirmed": "agree", "contradicted": "contradict", "absent": "missing", "unconfirmed": "seen"}[state]
        book.note(name, what, "example")
    writer.finish_run(status="finished", stats={}, signals=book.rows())


def test_the_newest_judging_night_decides_per_site(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    _night(con, "r1", {"private_marker": "confirmed", "sort_order": "contradicted"})
    _night(con, "r2", {"private_marker": "unconfirmed", "sort_order": "confirmed"})  # marker not judged
    _night(con, "r3", {"private_marker": "contradicted"}, base_url="http://other.example")
    book = SignalBook.load(con, base_url=SITE, run_id="r4", incremental=True)
    assert book.remembered["private_marker"] == "confirmed" and book.trusted("private_marker")
    assert book.remembered["sort_order"] == "confirmed"
    assert book.strategy("directory_updates") == STRATEGIES["directory_updates"][1]  # never measured: fallback
    other = SignalBook.load(con, base_url="http://other.example", run_id="r4", incremental=True)
    assert other.strategy("private_marker") == "read-page-1"


def test_a_contradiction_tonight_takes_trust_away_once(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    _night(con, "r1", {"directory_updates": "confirmed"})
    book = SignalBook.load(con, base_url=SITE, run_id="r2", incremental=True)
    assert book.strategy("directory_updates") == "skip-unchanged"
    assert book.note("directory_updates", "agree") is False
    assert book.note("directory_updates", "contradict", "member 1") is True  # the caller falls back now
    assert book.note("directory_updates", "contradict", "member 2") is False
    assert book.strategy("directory_updates") == "read-page-1"
    row = next(r for r in book.rows() if r["signal"] == "directory_updates")
    assert row["state"] == "contradicted" and row["example"] == "contradicted: member 1"
    full = SignalBook.load(con, base_url=SITE, run_id="r2", incremental=False)
    assert set(full.stats().values()) == {"full-read"}


def test_an_older_warehouse_gets_the_table_and_falls_back(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA raw")
    con.execute("CREATE TABLE raw.crawl_runs (run_id VARCHAR PRIMARY KEY, base_url VARCHAR NOT NULL, "
                "started_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ, status VARCHAR NOT NULL, stats JSON)")
    con.execute("INSERT INTO raw.crawl_runs VALUES ('old', ?, now(), now(), 'finished', '{}')", [SITE])
    ensure_raw_schema(con)
    assert con.execute("SELECT count(*) FROM raw.crawl_runs").fetchone()[0] == 1  # nothing lost
    book = SignalBook.load(con, base_url=SITE, run_id="new", incremental=True)
    expected = {n: STRATEGIES[n][1] for n in SIGNALS} | {"listing_totals": "read-whole"}  # no count to lean on
    assert {n: book.strategy(n) for n in SIGNALS} == expected
