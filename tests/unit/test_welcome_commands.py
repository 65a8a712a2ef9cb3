"""`bodoge recommend` for a member with nothing personal to go on (a welcome list, named as such),
and `--best`/`--recommended` where BoardGameGeek's poll says nothing (one line, exit 0), on a
demo warehouse (`tests/support/discovery_warehouse.py`), in process."""

from __future__ import annotations

import json

import pytest

from bodoge.cli import main
from models.discovery.welcome import REASON_WELCOME, REASON_WELCOME_NEAR
from tests.support.discovery_warehouse import build_discovery_warehouse
from warehouse.db import connect


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return build_discovery_warehouse(tmp_path_factory.mktemp("welcome-data"), welcome=True)


def _run(demo: dict, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--data-dir", str(demo["paths"].data_dir)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _newcomer(demo: dict) -> str:
    with connect(demo["paths"].data_dir / "published.duckdb", read_only=True) as con:
        return con.execute("SELECT min(user_id) FROM marts.members WHERE n_games = 0").fetchone()[0]


def test_every_public_member_has_a_list_and_a_newcomer_gets_a_welcome_list(demo: dict, capsys) -> None:
    with connect(demo["paths"].data_dir / "published.duckdb", read_only=True) as con:
        missing = con.execute("SELECT count(*) FROM marts.members m WHERE NOT EXISTS "
                              "(SELECT 1 FROM marts.recommendations r WHERE r.user_id = m.user_id)").fetchone()[0]
    assert missing == 0
    user = _newcomer(demo)
    assert user in demo["welcome"]
    code, out, _ = _run(demo, capsys, "recommend", user, "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 10 and all(row["welcome"] for row in rows)
    assert {row["reason"] for row in rows} <= {REASON_WELCOME, REASON_WELCOME_NEAR}
    code, out, _ = _run(demo, capsys, "recommend", user)
    assert code == 0 and "welcome list" in out


def test_a_thin_filtered_welcome_list_is_ranked_again_by_the_welcome_rule(demo: dict, capsys) -> None:
    user = _newcomer(demo)
    stored = json.loads(_run(demo, capsys, "recommend", user, "-n", "100", "--json")[1])
    code, out, _ = _run(demo, capsys, "recommend", user, "-n", "120", "--json")
    more = json.loads(out)  # past the 100 stored rows: the whole catalogue by the same rule
    assert code == 0 and len(more) == 120 and more[:100] == stored and all(row["welcome"] for row in more)
    code, out, _ = _run(demo, capsys, "recommend", user, "--players", "6", "-n", "40", "--json")
    six = json.loads(out)
    assert code == 0 and six and all(row["welcome"] and row["max_players"] >= 6 for row in six)


def test_best_without_any_poll_data_says_so_in_one_line(demo: dict, capsys) -> None:
    user = _newcomer(demo)
    code, out, err = _run(demo, capsys, "recommend", user, "--players", "3", "--best")
    assert code == 0 and out.count("\n") == 1 and "no BoardGameGeek poll data" in out and err == ""
    code, out, err = _run(demo, capsys, "recommend", user, "--players", "3", "--recommended", "--json")
    assert code == 0 and json.loads(out) == [] and "no BoardGameGeek poll data" in err
    with pytest.raises(SystemExit):
        main(["recommend", "--help"])
    assert "without BGG poll data are left out" in " ".join(capsys.readouterr().out.split())
