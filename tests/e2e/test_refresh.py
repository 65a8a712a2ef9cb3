"""`bodoge refresh`: a member who changed their collection gets a new list now, by the night's model.

A copy of the session's demo night (night 1 of the sample site), the sample site served as
it stands on night 2 (some members added games), and the real `bodoge refresh` process:
the member's list in the published night and in the delta bundle is what the night's saved
model ranks for their new collection, the added games gone, other members untouched, the
night's ids and LATEST kept; an unknown member and a night holding the lock change nothing.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import duckdb
import orjson
import polars as pl
import pytest

from tests.support.api_night import copy_night, lines
from tests.support.demo_night import shared_demo_night
from tests.support.serve_process import free_port, stop


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory):
    """The demo's sample site as it stands on night 2 (the demo's defaults), and its truth."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "bodoge.cli", "site", "serve", "--night", "2", "--port", str(port),
                               "--data-dir", str(tmp_path_factory.mktemp("no-note"))],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/robots.txt", timeout=5):
                break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("the sample site did not start") from None
            time.sleep(0.2)
    truth = {}
    for night in (1, 2):
        out = tmp_path_factory.mktemp(f"truth{night}")
        subprocess.run([sys.executable, "-m", "bodoge.cli", "site", "truth", "--night", str(night), "--out", str(out),
                        "--data-dir", str(out)], check=True, capture_output=True)
        truth[night] = pl.read_parquet(out / "collections.parquet")
        truth[f"private{night}"] = set(pl.read_parquet(out / "private_users.parquet").get_column("user_id"))
    try:
        yield url, truth
    finally:
        stop(server)


def _refresh(data: Path, url: str, *users: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", "refresh", *users, "--base-url", url,
                           "--data-dir", str(data)], capture_output=True, text=True, encoding="utf-8", timeout=300)


def _digest(path: Path, query: str) -> str:
    with duckdb.connect(str(path), read_only=True) as con:
        return hashlib.sha256(repr(con.execute(query).fetchall()).encode()).hexdigest()


def _changed_member(data: Path, truth: dict) -> tuple[str, set[str]]:
    """A member with a list on night 1 who added games by night 2, and those games."""
    key = ["user_id", "game_id"]
    added = truth[2].join(truth[1].select(key), on=key, how="anti")
    listed = lines(data)
    counts = added.filter(pl.col("user_id").is_in(list(listed))).group_by("user_id").len().sort(["len", "user_id"],
                                                                                                 descending=[True, False])
    user = counts.get_column("user_id")[0]
    return user, set(added.filter(pl.col("user_id") == user).get_column("game_id"))


def test_a_changed_member_gets_the_nights_model_list_for_their_new_collection(site, tmp_path_factory, tmp_path) -> None:
    from models.discovery.foldin import FoldIn
    from models.discovery.members import normalise_marked
    from models.discovery.store import load_state
    from warehouse.bgg_training import member_rows
    from warehouse.release.schemas import validate_bundle
    from warehouse.release.served import night_model

    url, truth = site
    data = copy_night(shared_demo_night(tmp_path_factory), tmp_path / "data")
    user, added = _changed_member(data, truth)
    before = lines(data)[user]
    assert added & {item["game_id"] for item in before["items"]}, "the night listed a game the member then added"
    published = data / "published.duckdb"
    others = ("SELECT * FROM marts.recommendations WHERE user_id <> '{u}' ORDER BY user_id, rank").format(u=user)
    others_before = _digest(published, others)
    with duckdb.connect(str(published), read_only=True) as con:
        ids_before = con.execute("SELECT run_id, export_run_id, night_id FROM marts.publication").fetchall()
    latest = (data / "exports" / "LATEST").read_text()

    done = _refresh(data, url, user)
    assert done.returncode == 0, done.stderr
    assert "refreshed 1 member(s)" in done.stdout and "Traceback" not in done.stderr

    deltas = sorted((data / "exports" / "deltas").iterdir())
    assert len(deltas) == 1
    assert validate_bundle(deltas[0]).lines["recommendations.jsonl"] == 1
    line = orjson.loads((deltas[0] / "recommendations.jsonl").read_bytes())
    assert line["user_id"] == user and line["welcome"] is False
    items = line["items"]
    assert not added & {item["game_id"] for item in items}  # the games they added are gone
    assert [i["game_id"] for i in items] != [i["game_id"] for i in before["items"]]  # a new order, not one game less

    # What the night's saved model ranks for the member's rows now (the batch engine, apart from FoldIn).
    with duckdb.connect(str(published), read_only=True) as con:
        model_dir = night_model(con, data, fallback=data / "models" / "champion")
        stored = con.execute("SELECT game_id, score, reason FROM marts.recommendations WHERE user_id = ? "
                             "ORDER BY rank", [user]).fetchall()
        assert con.execute("SELECT run_id, export_run_id, night_id FROM marts.publication").fetchall() == ids_before
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        rows = normalise_marked(member_rows(con, user), source="test")
    held = set(rows.get_column("game_id"))
    assert added <= held
    state, meta = load_state(model_dir)
    weights = FoldIn.load(model_dir).weights
    expected, _ = state.folded(rows, weights).rank(rows, [user], int(meta["depth"]))
    assert [(i["game_id"], i["score"], i["reason"]) for i in items] == list(expected.select(
        "game_id", "score", "reason").iter_rows())
    assert stored == [(i["game_id"], i["score"], i["reason"]) for i in items]  # the published night says the same
    assert _digest(published, others) == others_before  # nobody else moved
    assert (data / "exports" / "LATEST").read_text() == latest  # LATEST names the whole bundle still

    # `bodoge api` answers the member's stored list from the delta, everyone else's from the bundle,
    # and a night published again with the same bundle reuses the bundle's scan.
    from bodoge.api.night import Night

    night = Night.load(data)
    again = Night.load(data, before=night)
    try:
        for served in (night, again):
            assert served.line("discovery", user) == (deltas[0] / "recommendations.jsonl").read_bytes()
            other = next(u for u in lines(data) if u != user)
            assert orjson.loads(served.line("discovery", other)) == lines(data)[other]
        assert again.lists["discovery"].base.spans is night.lists["discovery"].base.spans
    finally:
        night.close()
        again.close()


def test_an_unknown_member_and_a_running_night_change_nothing(site, tmp_path_factory, tmp_path) -> None:
    from ops.lock import try_acquire

    url, _ = site
    data = copy_night(shared_demo_night(tmp_path_factory), tmp_path / "data")
    published = data / "published.duckdb"
    identity = (published.stat().st_ino, published.stat().st_mtime_ns)
    unknown = _refresh(data, url, "no-such-member")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr == "bodoge: error: no public member with id 'no-such-member'\n"
    lock = try_acquire(data)
    assert lock is not None
    try:
        user = next(iter(lines(data)))
        held = _refresh(data, url, user)
    finally:
        lock.release()
    assert held.returncode == 2 and held.stderr.count("\n") == 1 and "a night is running" in held.stderr
    assert (published.stat().st_ino, published.stat().st_mtime_ns) == identity
    assert not (data / "exports" / "deltas").exists()


def test_a_member_found_private_is_erased_and_gets_no_list(site, tmp_path_factory, tmp_path) -> None:
    url, truth = site
    data = copy_night(shared_demo_night(tmp_path_factory), tmp_path / "data")
    listed = lines(data)
    user = sorted((truth["private2"] - truth["private1"]) & set(listed))[0]  # public on night 1, private on night 2
    done = _refresh(data, url, user)
    assert done.returncode == 0, done.stderr
    assert f"refresh: {user} is private now: erased, no list" in done.stdout
    for path in (data / "published.duckdb", data / "warehouse.duckdb"):
        with duckdb.connect(str(path), read_only=True) as con:
            for table in ("recommendations", "collections", "next_to_play", "watch_next"):
                assert con.execute(f"SELECT count(*) FROM marts.{table} WHERE user_id = ?", [user]).fetchone() == (0,)
    assert user not in lines(data)  # cut from the bundle too
    assert not (data / "exports" / "deltas").exists() or not any((data / "exports" / "deltas").iterdir())
