"""An analyst's first ten minutes: `bodoge demo`, then the cookbook's queries through `bodoge sql`.

Each ```sql block of docs/analysts.md runs as the analyst would run it (`bodoge sql` in a
subprocess) against the published night the demo leaves, and must answer with rows. Why
a real demo night and not a warehouse written by hand: the queries must hold on what a
night really publishes (which tables a first night has, the keys a crawl writes into
`raw.crawl_runs.stats`, the rows a training writes into `marts.model_runs`). One demo for
the session (`tests/support/demo_night.py`, `bodoge demo`'s defaults, shared with the README's
examples), where some games that members watch are offered by no cafe (the cafe question
needs one).

The rest pins the shell's promises: one line `bodoge: error: …` and exit 2 for bad SQL, a
missing file or a write, no traceback ever; the night's file is never changed; the
interactive prompt goes on after a mistake.
"""

from __future__ import annotations

import hashlib
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bodoge.demo import DEMO_SITE
from tests.support.demo_night import shared_demo_night


REPO = Path(__file__).resolve().parents[2]
COOKBOOK = REPO / "docs" / "analysts.md"
GAMES = DEMO_SITE["games"]
QUESTIONS = ("Most owned games", "Most wanted games", "Share of members with at least one お気に入り",
             "Games for N players in under M minutes", "A member's recommendations", "Model quality, night over night",
             "Did the lists come true?",
             "Crawl health, night over night", "Demand at cafes")


def cookbook_blocks() -> list[tuple[str, str]]:
    """(the heading above it, the SQL) for every ```sql block of the cookbook, in order."""
    blocks, heading = [], ""
    for match in re.finditer(r"^(#+ [^\n]*)$|^```sql\n(.*?)^```$", COOKBOOK.read_text(encoding="utf-8"), re.M | re.S):
        if match.group(1):
            heading = match.group(1).lstrip("# ").strip()
        else:
            blocks.append((heading, match.group(2)))
    return blocks


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without this machine's bodoge and Dagster settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BODOGE_", "DAGSTER_"))}
    return {**env, "TERM": "dumb", "NO_COLOR": "1", **extra}


def bodoge(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=REPO, timeout=120, input=stdin if stdin is not None else "",
                          env=env or clean_env())


def one_error_line(run: subprocess.CompletedProcess) -> str:
    assert run.returncode == 2, run
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bodoge: error: "), run.stderr
    return lines[0]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data directory `bodoge demo` leaves: one night of the sample site, published (the
    session's, shared with the README's examples)."""
    data_dir = shared_demo_night(tmp_path_factory)
    assert (data_dir / "published.duckdb").is_file()
    return data_dir


def test_the_cookbook_answers_every_question() -> None:
    headings = [heading for heading, _ in cookbook_blocks()]
    for question in QUESTIONS:
        assert sum(h.startswith(question) for h in headings) == 1, (question, headings)


@pytest.mark.parametrize(("heading", "sql"), cookbook_blocks(), ids=[h for h, _ in cookbook_blocks()])
def test_each_cookbook_query_returns_rows(night: Path, heading: str, sql: str) -> None:
    run = bodoge("sql", sql, "--data-dir", str(night), "--format", "json")
    assert run.returncode == 0 and not run.stderr, run.stderr
    answers = run.stdout.splitlines()
    assert len(answers) == 1, f"{heading}: one answer per block, got {len(answers)}"
    rows = json.loads(answers[0])
    assert rows and all(isinstance(row, dict) for row in rows), f"{heading}: no rows"


def test_a_file_or_stdin_runs_statement_after_statement_in_csv(night: Path, tmp_path: Path) -> None:
    script = tmp_path / "two.sql"
    script.write_text("SELECT count(*) AS games FROM marts.games;\nSELECT 'ボードゲーム' AS word, NULL AS nothing;\n",
                      encoding="utf-8")
    from_file = bodoge("sql", "-f", str(script), "--data-dir", str(night), "--format", "csv")
    from_stdin = bodoge("sql", "--data-dir", str(night), "--format", "csv", stdin=script.read_text(encoding="utf-8"))
    for run in (from_file, from_stdin):
        assert run.returncode == 0, run.stderr
        lines = run.stdout.splitlines()
        assert lines[0] == "games" and int(lines[1]) == GAMES and lines[2:] == ["word,nothing", "ボードゲーム,"]


def test_the_table_and_the_dictionary_commands(night: Path) -> None:
    table = bodoge("sql", "SELECT name_ja FROM marts.games ORDER BY game_id LIMIT 2", "--data-dir", str(night))
    assert table.returncode == 0 and "name_ja" in table.stdout and "2 rows" in table.stdout
    tables = bodoge("sql", ".tables", "--data-dir", str(night))
    assert "marts.games" in tables.stdout and "raw.crawl_runs" in tables.stdout
    assert "warehouse.duckdb" not in tables.stdout
    described = bodoge("sql", ".describe game_popularity", "--data-dir", str(night))
    assert described.returncode == 0
    assert re.search(r"members_have\s+BIGINT\s+Public members who set 持ってる", described.stdout), described.stdout


@pytest.mark.parametrize(("sql", "names"), [
    ("SELEC name_ja FROM marts.games", "syntax error"),
    ("SELECT * FROM marts.no_such_table", "no_such_table"),
    ("", "no SQL statement"),
])
def test_bad_sql_is_one_line(night: Path, sql: str, names: str) -> None:
    assert names in one_error_line(bodoge("sql", sql, "--data-dir", str(night)))


@pytest.mark.parametrize(("sql", "names"), [  # the interactive test drops marts.games too
    ("CREATE TABLE marts.mine AS SELECT 1 AS a", "read-only"),
    ("DROP TABLE marts.games", "read-only"),
    ("SELECT 1; UPDATE marts.games SET name_ja = 'x'", "read-only"),
    ("ATTACH '{data}/warehouse.duckdb' AS night_writer", "night's file only"),
    ("COPY marts.games TO '{data}/games.csv'", "night's file only"),
    ("SET enable_external_access = true", "settings are fixed"),
])
def test_the_shell_never_writes(night: Path, sql: str, names: str) -> None:
    published = night / "published.duckdb"
    before = sha256(published)
    line = one_error_line(bodoge("sql", sql.format(data=night), "--data-dir", str(night)))
    assert names in line, line
    assert sha256(published) == before
    assert not (night / "games.csv").exists()


def test_a_temporary_table_is_the_analysts_own(night: Path) -> None:
    """Temporary tables and variables live in memory: allowed, and gone with the session."""
    run = bodoge("sql", "CREATE TEMP TABLE mine AS SELECT game_id FROM marts.games LIMIT 3; "
                        "SELECT count(*) AS n FROM mine", "--data-dir", str(night), "--format", "json")
    assert run.returncode == 0 and json.loads(run.stdout) == [{"n": 3}], run.stderr


def test_missing_files_and_the_night_writers_file_are_one_line(night: Path, tmp_path: Path) -> None:
    assert "no such file" in one_error_line(bodoge("sql", "SELECT 1", "--db", str(tmp_path / "nope.duckdb")))
    line = one_error_line(bodoge("sql", "SELECT 1", "--data-dir", str(tmp_path / "empty")))
    assert "no night has been published" in line
    not_duckdb = tmp_path / "notes.duckdb"
    not_duckdb.write_text("not a database", encoding="utf-8")
    assert "cannot open" in one_error_line(bodoge("sql", "SELECT 1", "--db", str(not_duckdb)))
    line = one_error_line(bodoge("sql", "SELECT 1", "--db", str(night / "warehouse.duckdb"), "--data-dir", str(night)))
    assert "the warehouse the night writes" in line
    env = clean_env(BODOGE_DATA_DIR=str(night))  # the default data dir comes from the environment
    assert bodoge("sql", "SELECT 1 AS one", "--format", "csv", env=env).stdout.splitlines() == ["one", "1"]


def test_a_backup_or_copy_opens_with_db(night: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes((night / "published.duckdb").read_bytes())
    run = bodoge("sql", "SELECT count(*) AS n FROM marts.games", "--db", str(copy), "--format", "csv")
    assert run.stdout.splitlines() == ["n", str(GAMES)], run.stderr


class Terminal:
    """`bodoge sql` at a real terminal (a pty): what an analyst types and sees."""

    def __init__(self, *args: str, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen([sys.executable, "-m", "bodoge.cli", "sql", *args], stdin=slave,
                                        stdout=slave, stderr=slave, cwd=REPO, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""

    def expect(self, text: str, timeout: float = 60) -> str:
        """Read until `text` appears; returns what came since the last expect."""
        deadline, start = time.monotonic() + timeout, len(self.seen)
        while text not in self.seen[start:]:
            ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"no {text!r} in {self.seen[start:]!r}")
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the shell has exited
                chunk = b""
            if not chunk:
                raise AssertionError(f"exited before {text!r}: {self.seen[start:]!r}")
            self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return self.seen[start:]

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode("utf-8"))

    def close(self) -> int:
        code = self.process.wait(timeout=60)
        os.close(self.master)
        return code


def test_the_interactive_shell_goes_on_after_a_mistake(night: Path, tmp_path: Path) -> None:
    term = Terminal("--data-dir", str(night), env=clean_env(HOME=str(tmp_path)))
    try:
        assert "read-only" in term.expect("bodoge> ")
        term.type(".format csv")
        term.expect("bodoge> ")
        term.type("SELECT count(*) AS n_games")
        term.expect("...> ")
        term.type("FROM marts.games;")
        assert f"n_games\n{GAMES}\n" in term.expect("bodoge> ")
        term.type("SELEC 1;")
        answer = term.expect("bodoge> ")
        assert "bodoge: error: Parser Error" in answer and "Traceback" not in answer
        term.type("DROP TABLE marts.games;")
        assert "bodoge: error: the night is read-only" in term.expect("bodoge> ")
        term.type(".describe marts.collections")
        assert "The member set お気に入り (favorite)." in term.expect("bodoge> ")
        term.type(".nope")
        assert "bodoge: error: unknown command .nope" in term.expect("bodoge> ")
        term.type("SELECT count(*) AS still FROM marts.games;")
        assert f"still\n{GAMES}\n" in term.expect("bodoge> ")
        term.type(".quit")
    finally:
        code = term.close()
    assert code == 0
    assert "SELECT count(*) AS still FROM marts.games;" in (tmp_path / ".bodoge_sql_history").read_text(encoding="utf-8")
