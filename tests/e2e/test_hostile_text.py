"""Text from the site is text: a night over a site whose titles are Rich markup and control
characters publishes (exit 0), and every command that prints them prints them as written.

Why real pages: the titles travel the whole way (the site's HTML, the spider's parsing, the
warehouse, the published night) before a command prints them; a title `[/]コインバザール` made
Rich raise in `bodoge run`'s summary (exit 2 after the night was published: cron saw a
failure and no alert went out) and in `bodoge collection`, `similar` and `bodoge sql` for
everyone whose list showed it; `[link=…]` became a terminal hyperlink and `ESC ]0;…` set
the terminal's title. Also here: the SQL shell's locked configuration (`CALL
enable_logging(storage='file', …)` aborted the process, rc 134, with no `bodoge:` line).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from samplesite.server import SampleSiteServer
from tests.support.nightly_process import site  # noqa: F401 - module-scoped fixture
from warehouse.release.publish import published_path

BODOGE = [sys.executable, "-m", "bodoge.cli"]
HOSTILE = "[/]{name}[link=http://evil.example/]x[/link]\x1b]0;pwned\x07[bold]"


@pytest.fixture(scope="module")
def night(site, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:  # noqa: F811
    """A data dir after one night over the site with every Japanese title made hostile."""
    data = tmp_path_factory.mktemp("hostile") / "data"
    hostile = dataclasses.replace(site, games=tuple(
        dataclasses.replace(g, name_ja=HOSTILE.format(name=g.name_ja)) for g in site.games))
    with SampleSiteServer(hostile) as server:
        run = subprocess.run([*BODOGE, "run", "--base-url", server.base_url, "--data-dir", str(data)],
                             capture_output=True, text=True, timeout=400)
    return data, run


def _bodoge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*BODOGE, *args], capture_output=True, text=True, timeout=120)


def _assert_text(out: str) -> None:
    """The titles as the site wrote them, controls escaped: no markup read, no control reached the terminal."""
    assert "[/]" in out and "[link=http://evil.example/]x[/link]" in out, out[:2000]
    assert "\\x1b]0;pwned\\x07" in out
    assert "\x1b" not in out and "\x07" not in out


def test_the_night_over_hostile_titles_is_published_and_exits_0(night) -> None:
    data, run = night
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    _assert_text(run.stdout)  # the summary's tables
    with duckdb.connect(str(published_path(data)), read_only=True) as con:
        names = [r[0] for r in con.execute("SELECT name_ja FROM marts.games").fetchall()]
    assert names and all(n.startswith("[/]") and "\x1b]0;pwned" in n for n in names)  # stored as served


def test_collection_similar_and_sql_print_hostile_titles_as_text(night) -> None:
    data, _ = night
    with duckdb.connect(str(published_path(data)), read_only=True) as con:
        user = con.execute("SELECT user_id FROM marts.collections GROUP BY 1 ORDER BY count(*) DESC, 1 "
                           "LIMIT 1").fetchone()[0]
        game = con.execute("SELECT game_id FROM marts.similar_games ORDER BY 1 LIMIT 1").fetchone()[0]
    for args in (["collection", user], ["similar", game], ["recommend", user],
                 ["sql", "SELECT name_ja FROM marts.games ORDER BY game_id LIMIT 3"]):
        done = _bodoge(*args, "--data-dir", str(data))
        assert done.returncode == 0 and done.stderr == "", (args, done.stderr)
        _assert_text(done.stdout)
    done = _bodoge("sql", "SELECT '[/]' AS \"[bold]\"", "--data-dir", str(data))
    assert done.returncode == 0 and "[/]" in done.stdout and "[bold]" in done.stdout, done.stderr
    done = _bodoge("collection", user, "--json", "--data-dir", str(data))  # JSON keeps the value itself
    assert all(row["name_ja"].startswith("[/]") and "\x1b]0;pwned\x07" in row["name_ja"]
               for row in json.loads(done.stdout))


@pytest.mark.parametrize("sql", [
    "CALL enable_logging(storage='file', storage_path='/tmp/bodoge-sql-log')",
    "SET lock_configuration = false",
    "PRAGMA enable_profiling",
])
def test_the_sql_shell_refuses_configuration_in_one_line(night, sql: str) -> None:
    data, _ = night
    done = _bodoge("sql", sql, "--data-dir", str(data))
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert done.stdout == "" and done.stderr.count("\n") == 1 and done.stderr.startswith("bodoge: error: ")
    assert "settings are fixed" in done.stderr
    assert not Path("/tmp/bodoge-sql-log").exists()


def test_the_sql_shell_refuses_any_data_dirs_warehouse(night, tmp_path: Path) -> None:
    """Issue 39 (case 10): `--db X/warehouse.duckdb` opened the live warehouse unless X was also
    `--data-dir`; any file beside a `.nightly.lock` but the published night is refused."""
    data, _ = night
    done = subprocess.run([*BODOGE, "sql", "SELECT 1", "--db", str(data / "warehouse.duckdb")],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and "is the warehouse the night writes" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1
