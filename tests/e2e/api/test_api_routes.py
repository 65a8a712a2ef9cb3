"""`bodoge api`'s routes over the session's demo night (a copy): every route of the contract,
stored lists equal to the export's lines for every member, fold-in equal to the night's lists,
unknown and private members alike, bad requests answered in one line, nothing private logged.

The application runs in this process (Starlette's TestClient: the real app, its real night
loader and watcher thread); `test_api_service.py` runs the real `bodoge api` process.
"""

from __future__ import annotations

import logging
import time
import warnings
from pathlib import Path

import duckdb
import orjson
import pytest

from tests.support.api_night import copy_night, lines
from tests.support.demo_night import shared_demo_night

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from bodoge.api.app import NO_MEMBER, create_app  # noqa: E402
from bodoge.api.serving import Serving  # noqa: E402

FLAGS = ("have", "played", "favorite", "watching")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_night(shared_demo_night(tmp_path_factory), tmp_path_factory.mktemp("api") / "data")


@pytest.fixture(scope="module")
def client(data: Path):
    with TestClient(create_app(Serving(data))) as client:
        yield client


def _collection(data: Path, user_id: str) -> list[dict]:
    with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
        rows = con.execute(f"SELECT game_id, {', '.join(FLAGS)}, rating FROM marts.collections WHERE user_id = ? "
                           "ORDER BY game_id", [user_id]).fetchall()
    return [dict(zip(("game_id", *FLAGS, "rating"), row)) for row in rows]


def test_every_route_of_the_contract_answers(client, data: Path) -> None:
    assert client.get("/healthz").status_code == 200
    ready = client.get("/readyz").json()
    night = client.get("/v1/night").json()
    with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
        night_id, bundle = con.execute("SELECT night_id, export_run_id FROM marts.publication").fetchone()
        champion = con.execute("SELECT any_value(model) FROM marts.recommendations").fetchone()[0]
    assert ready["night_id"] == night["night_id"] == night_id and night["champion"] == champion
    assert (data / "exports" / "LATEST").read_text().strip() == bundle
    user, line = next(iter(lines(data).items()))
    for route in ("discovery", "watch-list", "play-next"):
        answer = client.get(f"/v1/members/{user}/{route}")
        assert answer.status_code == 200 and answer.json()["night_id"] == night_id
        posted = client.post(f"/v1/members/{user}/{route}", json={"collection": _collection(data, user)})
        assert posted.status_code == 200
    game, similar = next(iter(lines(data, "similar_games.jsonl", "game_id").items()))
    assert client.get(f"/v1/games/{game}/similar?n=3").json()["items"] == similar["items"][:3]
    group = list(lines(data))[:3]
    night_list = client.post("/v1/game-night", json={"members": group, "anywhere": True, "n": 5})
    assert night_list.status_code == 200 and 0 < len(night_list.json()["items"]) <= 5
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1") and "/v1/members/{user_id}/discovery" in document["paths"]
    from warehouse.release.schemas import FILE_SCHEMAS

    item = FILE_SCHEMAS["recommendations.jsonl"]["properties"]["items"]["items"]
    assert document["components"]["schemas"]["MemberItem"] == item  # one definition of an item


def test_every_members_stored_lists_are_the_exports_lines(client, data: Path) -> None:
    for file, route in (("recommendations.jsonl", "discovery"), ("watch_next.jsonl", "watch-list"),
                        ("next_to_play.jsonl", "play-next")):
        expected = lines(data, file)
        assert len(expected) > 100
        for user, line in expected.items():
            answer = client.get(f"/v1/members/{user}/{route}?n=100")
            assert answer.status_code == 200
            body = orjson.loads(answer.content)
            assert body["items"] == line["items"], f"{route} of {user}"
            raw = answer.content.split(b'"items":', 1)[1].rsplit(b',"welcome"', 1)[0].rstrip(b"}")
            assert raw == orjson.dumps(line["items"])  # the same bytes as the line's items
            if route == "discovery":
                assert body["welcome"] == line.get("welcome", False)


def test_filters_are_the_rules_of_bodoge_recommend(client, data: Path) -> None:
    from bodoge.recommend import recommend

    users = list(lines(data))[:40]
    with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
        for user in users:
            for players, minutes in ((2, None), (None, 30), (5, 45)):
                query = "&".join(f"{k}={v}" for k, v in (("players", players), ("max_minutes", minutes)) if v)
                served = client.get(f"/v1/members/{user}/discovery?n=10&{query}").json()["items"]
                cli = recommend(con, user, n=10, players=players, max_minutes=minutes,
                                model_dir=data / "models" / "champion")
                assert [i["game_id"] for i in served] == [r["game_id"] for r in cli]
                assert [i["rank"] for i in served] == list(range(1, len(served) + 1))


def test_fold_in_of_an_unchanged_collection_is_the_nights_list(client, data: Path) -> None:
    expected = {route: lines(data, file) for route, file in (
        ("discovery", "recommendations.jsonl"), ("watch-list", "watch_next.jsonl"), ("play-next", "next_to_play.jsonl"))}
    welcome = [user for user, line in expected["discovery"].items() if line.get("welcome")]
    users = list(expected["discovery"])[::97][:20] + welcome[:5]
    assert welcome, "the demo night has members without a collection (welcome lists)"
    for user in users:
        body = {"collection": _collection(data, user)}
        for route, by_user in expected.items():
            answer = client.post(f"/v1/members/{user}/{route}?n=100", json=body).json()
            assert answer["items"] == by_user.get(user, {"items": []})["items"], f"{route} of {user}"
            if route == "discovery":
                assert answer["welcome"] == by_user[user].get("welcome", False)


def test_a_changed_collection_drops_the_game_and_names_only_the_body(client, data: Path) -> None:
    user, line = next(iter(lines(data).items()))
    collection = _collection(data, user)
    added = line["items"][0]["game_id"]
    changed = collection + [{"game_id": added, "have": True, "played": True, "favorite": True, "watching": False,
                             "rating": None}]
    answer = client.post(f"/v1/members/{user}/discovery?n=100", json={"collection": changed}).json()["items"]
    assert added not in [item["game_id"] for item in answer]
    assert [i["game_id"] for i in answer] != [i["game_id"] for i in line["items"]][1:]  # order and reasons moved too
    with duckdb.connect(str(data / "published.duckdb"), read_only=True) as con:
        names = {r[0] for r in con.execute(
            "SELECT coalesce(name_ja, name_en, game_id) FROM marts.games WHERE game_id IN (SELECT unnest(?))",
            [[c["game_id"] for c in changed]]).fetchall()}
        everyone = {r[0] for r in con.execute("SELECT coalesce(name_ja, name_en, game_id) FROM marts.games").fetchall()}
    for item in answer:
        named = {name for name in everyone if f"「{name}」" in item["reason"]}
        assert named <= names, item["reason"]


def test_a_new_member_gets_a_list_from_the_body(client, data: Path) -> None:
    user = next(iter(lines(data)))
    assert client.get("/v1/members/brand-new/discovery").status_code == 404
    answer = client.post("/v1/members/brand-new/discovery", json={"collection": _collection(data, user)[:3]})
    assert answer.status_code == 200 and len(answer.json()["items"]) == 10
    empty = client.post("/v1/members/brand-new/discovery", json={"collection": []})
    assert empty.status_code == 200 and len(empty.json()["items"]) == 10


def test_unknown_and_private_members_get_the_same_404(client, data: Path) -> None:
    from warehouse.privacy.erasure import journal_path, note

    user = list(lines(data))[5]
    assert client.get(f"/v1/members/{user}/discovery").status_code == 200
    note(data, {user})
    try:
        deadline = time.monotonic() + 1.0
        while client.get(f"/v1/members/{user}/discovery").status_code != 404:
            assert time.monotonic() < deadline, "a journalled member still answered after a second"
            time.sleep(0.05)
        for route in ("discovery", "watch-list", "play-next"):
            private = client.get(f"/v1/members/{user}/{route}")
            unknown = client.get(f"/v1/members/nobody-{route}/{route}")
            assert private.status_code == unknown.status_code == 404 and private.content == unknown.content
        assert orjson.loads(unknown.content) == {"error": NO_MEMBER}
        group = client.post("/v1/game-night", json={"members": [user, list(lines(data))[6]], "anywhere": True})
        assert group.status_code == 404 and group.json() == {"error": NO_MEMBER}
    finally:
        journal_path(data).unlink()


def test_bad_requests_are_one_line_naming_the_field(client) -> None:
    user = "x"
    cases = [
        (client.get("/v1/members/x/discovery?n=abc"), 422, "n"),
        (client.get("/v1/members/x/discovery?n=101"), 422, "n"),
        (client.get("/v1/members/x/discovery?players=0"), 422, "players"),
        (client.get("/v1/members/x/watch-list?players=2"), 422, "players"),
        (client.post(f"/v1/members/{user}/discovery", content=b"{"), 422, "JSON"),
        (client.post(f"/v1/members/{user}/discovery", json={"collection": [{"game_id": "no-such-game"}]}), 422,
         "no-such-game"),
        (client.post(f"/v1/members/{user}/discovery", json={"collection": [{"game_id": "g", "rating": 9}]}), 422,
         "rating"),
        (client.post(f"/v1/members/{user}/discovery", json={"collection": [{"game_id": "g", "have": "yes"}]}), 422,
         "have"),
        (client.post(f"/v1/members/{user}/discovery", content=b" " * (2 << 20)), 413, "larger"),
        (client.post(f"/v1/members/{user}/discovery", json={"collection": [{"game_id": "g"}] * 10_001}), 413,
         "entries"),
        (client.post("/v1/game-night", json={"members": ["a"]}), 422, "members"),
        (client.get("/v1/games/no-such-game/similar"), 404, "unknown game"),
        (client.get("/v2/nothing"), 404, "route"),
        (client.delete("/v1/night"), 405, "method"),
    ]
    for answer, status, named in cases:
        assert answer.status_code == status, (answer.request.url, answer.text)
        message = answer.json()["error"]
        assert "\n" not in message and named in message, message


def test_a_set_token_is_enforced_and_never_logged(data: Path, caplog) -> None:
    token = "s3cret-token-value"
    caplog.set_level(logging.DEBUG)
    with TestClient(create_app(Serving(data), token=token)) as client:
        user = next(iter(lines(data)))
        assert client.get("/healthz").status_code == 200 and client.get("/readyz").status_code == 200
        assert client.get("/v1/night").status_code == 401
        assert client.get("/v1/night", headers={"Authorization": "Bearer wrong"}).status_code == 401
        ok = {"Authorization": f"Bearer {token}"}
        assert client.get("/v1/night", headers=ok).status_code == 200
        collection = _collection(data, user)
        assert client.post(f"/v1/members/{user}/discovery", json={"collection": collection}, headers=ok).status_code == 200
    logged = "\n".join(record.getMessage() for record in caplog.records  # the service's, not the test client's
                        if not record.name.startswith(("httpx", "httpcore")))
    assert "/v1/members/{user_id}/discovery" in logged  # one line per request, by route
    for secret in (token, user, *[c["game_id"] for c in collection]):
        assert secret not in logged


def test_a_member_cut_for_privacy_leaves_the_service(tmp_path: Path, tmp_path_factory) -> None:
    """The real privacy cut (`cut_everywhere`) while the service runs: it moves to the cut
    night, the member is gone from every answer, the night's model (fitted on them) is gone
    from the service too (fold-in 503 until the next night), the old night is closed."""
    from warehouse.privacy.cut import cut_everywhere

    data = copy_night(shared_demo_night(tmp_path_factory), tmp_path / "data")
    user, other = list(lines(data))[3:5]
    serving = Serving(data)
    with TestClient(create_app(serving)) as client:
        before = client.get("/v1/night").json()["night_id"]
        assert client.post(f"/v1/members/{other}/discovery", json={"collection": _collection(data, other)}).status_code == 200
        old = serving.night
        cut_everywhere(data, {user})
        deadline = time.monotonic() + 5
        while serving.night is old:
            assert time.monotonic() < deadline, "the service kept the uncut night"
            time.sleep(0.05)
        assert client.get("/v1/night").json()["night_id"] == before  # the same night, cut
        assert client.get(f"/v1/members/{user}/discovery").status_code == 404
        assert client.get(f"/v1/members/{other}/discovery").status_code == 200
        folded = client.post(f"/v1/members/{other}/discovery", json={"collection": _collection(data, other)})
        assert folded.status_code == 503 and "model" in folded.json()["error"]
        assert serving.night is not None and serving.night.model_dir is None and user not in serving.night.members
        assert serving._retired == [] and old is not None and old._fold is None  # the old night let go


def test_a_model_removed_after_its_night_loaded_is_let_go(tmp_path: Path, tmp_path_factory) -> None:
    """The cut removes models/ after the published night: a night loaded in between, whose
    model was already in memory, drops it at the watcher's next look."""
    import shutil

    data = copy_night(shared_demo_night(tmp_path_factory), tmp_path / "data")
    serving = Serving(data)
    serving.refresh()
    night = serving.night
    assert night is not None and night.model_dir is not None and night.fold_in() is not None
    shutil.rmtree(night.model_dir)
    serving.refresh()
    assert serving.night is night and night.model_dir is None and night._fold is None and night.fold_in() is None
    serving.stop()
