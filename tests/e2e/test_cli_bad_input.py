"""Bad input on the command line ends in one line and a non-zero exit, never in a silent success.

Each case runs `bodoge` as a user does (a subprocess) and checks: exit code, exactly one
line on stderr starting `bodoge: error:`, no traceback, and what the line names.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from warehouse.raw import ensure_raw_schema

REPO = Path(__file__).resolve().parents[2]
UNREACHABLE = "http://127.0.0.1:9"  # never contacted: the input is refused first


def bodoge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=REPO, timeout=120)


def one_error_line(run: subprocess.CompletedProcess) -> str:
    assert run.returncode != 0, run
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bodoge: error: "), run.stderr
    return lines[0]


@pytest.mark.parametrize("value", ["0", "-1", "ten"])
def test_max_pages_must_be_at_least_one(tmp_path, value) -> None:
    run = bodoge("crawl", "--base-url", UNREACHABLE, "--data-dir", str(tmp_path), "--max-pages", value)
    line = one_error_line(run)
    assert "--max-pages" in line and ("at least 1" in line or "whole number" in line), line
    assert run.returncode == 2 and not (tmp_path / "warehouse.duckdb").exists()


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_empty_sections_are_refused(tmp_path, value) -> None:
    line = one_error_line(bodoge("crawl", "--base-url", UNREACHABLE, "--data-dir", str(tmp_path), "--sections", value))
    assert "--sections" in line, line


def test_unknown_sections_are_refused_naming_the_valid_ones(tmp_path) -> None:
    line = one_error_line(bodoge("crawl", "--base-url", UNREACHABLE, "--data-dir", str(tmp_path),
                                 "--sections", "games,boardgames"))
    assert "boardgames" in line and "games, posts, members, cafes" in line, line
    assert not (tmp_path / "warehouse.duckdb").exists()


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        ("user_id,game_id,rating\n1,a,5\n2,b,five\n", ["column rating", "row 2", "'five'"]),
        ("user_id,game_id,rating\n1,a,4\n2,b,6\n", ["column rating", "row 2", "6"]),
        ("user_id,game_id,rating\n1,a,3.5\n", ["column rating", "row 1", "3.5"]),
        ("user_id,game_id,have,played\n1,a,1,0\n2,b,1,maybe\n", ["column played", "row 2", "'maybe'"]),
        ("user_id,game_id,favorite\n1,a,2\n", ["column favorite", "row 1", "2"]),
    ],
)
def test_evaluate_refuses_bad_ratings_and_flags(tmp_path, content, fragments) -> None:
    train = tmp_path / "train.csv"
    train.write_text(content, encoding="utf-8")
    test = tmp_path / "test.csv"
    test.write_text("user_id,game_id\n1,a\n", encoding="utf-8")
    line = one_error_line(bodoge("evaluate", "--train", str(train), "--test", str(test)))
    for fragment in [str(train), *fragments]:
        assert fragment in line, line


def test_evaluate_k_must_be_at_least_one(tmp_path) -> None:
    line = one_error_line(bodoge("evaluate", "--train", "x.csv", "--test", "y.csv", "--k", "0"))
    assert "--k" in line and "at least 1" in line, line


def test_build_on_a_missing_warehouse_creates_nothing(tmp_path) -> None:
    typo = tmp_path / "dtaa"
    line = one_error_line(bodoge("build", "--data-dir", str(typo)))
    assert str(typo / "warehouse.duckdb") in line and "bodoge run" in line and "bodoge crawl" in line, line
    assert not typo.exists()


def test_build_on_a_warehouse_no_crawl_wrote_is_refused(tmp_path) -> None:
    duckdb.connect(str(tmp_path / "warehouse.duckdb")).close()
    line = one_error_line(bodoge("build", "--data-dir", str(tmp_path)))
    assert "no raw tables" in line and "bodoge crawl" in line, line


def test_build_on_a_truncated_warehouse_fails(tmp_path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    con = duckdb.connect(str(warehouse))
    ensure_raw_schema(con)
    con.execute("INSERT INTO raw.crawl_runs (run_id, base_url, started_at, finished_at, status, stats) "
                "VALUES ('r1', 'http://x', now(), now(), 'finished', NULL)")
    # Data the build never reads, written last: cutting it off is invisible to a lazy reader.
    con.execute("CREATE TABLE main.padding AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(300000)")
    con.execute("CHECKPOINT")
    con.close()
    os.truncate(warehouse, warehouse.stat().st_size - 200_000)
    run = bodoge("build", "--data-dir", str(tmp_path))
    line = one_error_line(run)
    assert "damaged" in line and str(warehouse) in line, line
    assert run.stdout == ""  # not a single "ok" check


def test_a_bad_flag_is_one_line_too() -> None:
    line = one_error_line(bodoge("dashboard", "--port", "70000"))
    assert "--port" in line, line


@pytest.mark.parametrize("command", [["recommend", "{id}"], ["recommend", "--group", "41256,{id}"],
                                     ["collection", "{id}"]])
def test_an_id_that_is_not_utf8_is_refused_naming_it(tmp_path, command) -> None:
    """Bytes that are not UTF-8 (here Latin-1's "ü") reach Python as a lone surrogate: the
    argument is refused as such, before any warehouse is opened."""
    broken = os.fsdecode(b"m\xfcller")
    argv = [part.format(id=broken) for part in command] + ["--data-dir", str(tmp_path)]
    run = subprocess.run([os.fsencode(sys.executable), b"-m", b"bodoge.cli", *map(os.fsencode, argv)],
                         capture_output=True, cwd=REPO, timeout=120)
    stderr = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 2 and "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bodoge: error: "), stderr
    assert "not valid UTF-8" in lines[0] and "m\\xfcller" in lines[0], lines[0]
    assert not (tmp_path / "warehouse.duckdb").exists()
