"""The BGG replay server: real HTTP answers from the project's fixtures (and ../shared/bgg-xml when present)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from samplesite.bgg_replay import BggReplayServer
from tests.support.conftest_shared import shared_dir

TOKEN = "replay-test-token-3f9a"


def _get(url: str, *, token: str | None = TOKEN) -> tuple[int, bytes, dict[str, str]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as resp:
            return resp.status, resp.read(), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


def test_without_the_token_every_call_is_401_and_the_log_never_holds_it() -> None:
    with BggReplayServer(token=TOKEN) as srv:
        assert _get(f"{srv.api_url}/thing?id=900001", token=None)[0] == 401
        assert _get(f"{srv.api_url}/thing?id=900001", token="wrong")[0] == 401
        assert _get(f"{srv.base_url}/robots.txt", token=None)[0] == 200
        assert _get(f"{srv.api_url}/thing?id=900001")[0] == 200
    assert [r.authorized for r in srv.requests] == [False, False, False, True]
    assert TOKEN not in repr(srv.requests)


def test_things_are_batched_from_fixtures_and_more_than_20_ids_are_refused() -> None:
    with BggReplayServer(token=TOKEN) as srv:
        status, body, _ = _get(f"{srv.api_url}/thing?id=900001,900003,42&stats=1")
        assert status == 200
        assert body.count(b"<item ") == 2 and b'id="900001"' in body and b'id="900003"' in body
        ids = ",".join(str(900000 + i) for i in range(21))
        status, body, _ = _get(f"{srv.api_url}/thing?id={ids}")
        assert status == 400 and b"more than 20" in body


def test_a_collection_answers_202_until_prepared_then_200() -> None:
    with BggReplayServer(token=TOKEN, script={"collection:alice": [202, 202]}) as srv:
        url = f"{srv.api_url}/collection?username=alice&stats=1"
        assert [_get(url)[0] for _ in range(3)] == [202, 202, 200]
        assert b"Harbor Lights" in _get(f"{srv.api_url}/collection?username=Alice&stats=1")[1]  # names as BGG: any case


def test_throttling_answers_carry_retry_after() -> None:
    with BggReplayServer(token=TOKEN, script={"thing": [429, 503]}, retry_after="2") as srv:
        first, second, third = (_get(f"{srv.api_url}/thing?id=900002") for _ in range(3))
    assert (first[0], first[2]["Retry-After"]) == (429, "2")
    assert (second[0], second[2]["Retry-After"]) == (503, "2")
    assert third[0] == 200 and b"River Traders" in third[1]


def test_an_unknown_user_gets_the_errors_document() -> None:
    with BggReplayServer(token=TOKEN) as srv:
        status, body, _ = _get(f"{srv.api_url}/collection?username=nobody-here&stats=1")
    assert status == 200 and b"<errors>" in body and b"Invalid username specified" in body


def test_modifiedsince_keeps_only_the_items_changed_since() -> None:
    with BggReplayServer(token=TOKEN) as srv:
        status, body, _ = _get(f"{srv.api_url}/collection?username=alice&stats=1&modifiedsince=2026-10-15")
    assert status == 200 and b'totalitems="2"' in body
    assert b'objectid="900001"' not in body and b'objectid="900002"' in body


def test_saved_real_responses_are_served_in_place() -> None:
    saved = shared_dir() / "bgg-xml"
    if not saved.is_dir():
        pytest.skip("../shared/bgg-xml is absent")
    with BggReplayServer(token=TOKEN, saved_dir=saved) as srv:
        status, body, _ = _get(f"{srv.api_url}/thing?id=1653,28720&stats=1")
        assert status == 200 and body.count(b'<item type="boardgame"') == 2
        status, body, _ = _get(f"{srv.api_url}/collection?username=fagentu007&stats=1")
        assert status == 200 and b'totalitems="40"' in body
        status, body, _ = _get(
            f"{srv.api_url}/collection?username=someOneThatHopefullyWontExistPlsGuysDontCreateThisUser&stats=1")
        assert b"Invalid username specified" in body
