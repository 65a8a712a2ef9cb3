"""scrapers.bgg_facts: BGG's own facts and the poll rule, hand-computed on real strings and our fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from samplesite.bgg_replay import FIXTURES_DIR
from scrapers.bgg import BggError
from scrapers.bgg_facts import BggThing, bgg_collection, bgg_things, counts_in
from tests.support.conftest_shared import shared_file, shared_files


def _thing(xml: bytes) -> BggThing:
    (thing,) = bgg_things(xml)
    return thing


def _fixture(name: str) -> bytes:
    return (FIXTURES_DIR / name).read_bytes()


@pytest.mark.parametrize(("text", "counts"), [
    ("Best with 3 players", [3]),
    ("Recommended with 2–4 players", [2, 3, 4]),
    ("Recommended with 1-5 players", [1, 2, 3, 4, 5]),
    ("Best with 1, 3–4 players", [1, 3, 4]),
    ("Best with ３〜４ players", [3, 4]),
    ("Best with  players", []),
    ("Recommended with 4–2 players", []),
])
def test_summary_counts(text: str, counts: list[int]) -> None:
    assert counts_in(text) == counts


def test_the_summary_wins_when_present() -> None:
    harbor = _thing(_fixture("thing-900001.xml"))
    assert (harbor.poll_source, harbor.poll_votes) == ("summary", 40)
    assert (harbor.best_players, harbor.recommended_players) == ([3], [2, 3, 4])
    assert (harbor.weight, harbor.n_weights, harbor.n_owned, harbor.n_wishing) == (2.4667, 60, 1200, 250)
    assert harbor.min_age_suggested == 10  # 12 of 25 votes
    assert harbor.alternate_names == ["ハーバーライツ", "Luces del Puerto"] and harbor.thing_type == "boardgame"


def test_without_the_summary_the_raw_poll_decides_each_count() -> None:
    river = _thing(_fixture("thing-900002.xml"))
    # 24 votes. 1: 0/4/20 none. 2: 2/10/12: 12 > 12 is false, not recommended. 3: 10/10/4 recommended
    # (10 > 14 is false, not best). 4: 15/8/1 best. 5: 13/9/2 best. 6: 3/9/12 not recommended. 6+ is no count.
    assert (river.poll_source, river.best_players, river.recommended_players) == ("poll", [4, 5], [3, 4, 5])
    assert river.weight is None and river.n_weights == 0  # nobody voted a weight: unknown, not 0
    assert river.min_age_suggested is None  # 3 votes


def test_a_poll_under_20_votes_says_nothing_even_with_a_summary() -> None:
    market = _thing(_fixture("thing-900003.xml"))
    assert (market.poll_source, market.poll_votes) == ("too_few_votes", 7)
    assert market.best_players is None and market.recommended_players is None
    assert market.thing_type == "boardgameexpansion"


def test_saved_brass_poll_by_hand() -> None:
    xml = shared_files("bgg-xml", "thing__*_id-28720_*.xml")[0].read_bytes()
    brass = _thing(xml)
    # 2: 37/123/93 -> 37 > 216 no; 160 > 93 recommended. 3: 156/175/9 -> 156 > 184 no; recommended.
    # 4: 258/87/5 -> best. 1: 0/3/173 neither. 4+ is no count. 395 voters.
    assert (brass.poll_source, brass.poll_votes) == ("poll", 395)
    assert (brass.best_players, brass.recommended_players) == ([4], [2, 3, 4])
    assert (brass.name, brass.year, brass.weight, brass.min_age_suggested) == ("Brass: Lancashire", 2007, 3.8733, 14)
    assert (brass.n_owned, brass.n_wishing) == (18874, 4591)


def test_saved_coup_2012_poll_by_hand() -> None:
    coup = _thing(shared_files("bgg-xml", "thing__*_id-131357_*.xml")[0].read_bytes())
    # 3: 17/134/90 rec. 4: 102/159/7 rec (102 > 166 no). 5: 179/81/5 best. 6: 88/125/22 rec. 1, 2: neither.
    assert (coup.best_players, coup.recommended_players) == ([5], [3, 4, 5, 6])


@pytest.mark.parametrize("thing_id", ["1653", "23272"])
def test_saved_zero_vote_polls_are_unknown(thing_id: str) -> None:
    thing = _thing(shared_files("bgg-xml", f"thing__*_id-{thing_id}_*.xml")[0].read_bytes())
    assert (thing.poll_source, thing.poll_votes, thing.best_players, thing.recommended_players) == (
        "too_few_votes", 0, None, None)


def test_saved_accessory_and_versions() -> None:
    kit = _thing(shared_files("bgg-xml", "thing__*_id-104163_*.xml")[0].read_bytes())
    assert kit.thing_type == "boardgameaccessory" and kit.poll_source == "none"
    agricola = _thing(shared_files("bgg-xml", "thing__*_id-31260_*.xml")[0].read_bytes())  # versions nested
    assert (agricola.bgg_id, agricola.best_players, agricola.recommended_players) == (31260, [3, 4], [1, 2, 3, 4, 5])


def test_collection_rows_keep_every_flag() -> None:
    rows = {r.bgg_id: r for r in bgg_collection(_fixture("collection-alice.xml"), bgg_user="alice")}
    assert rows[900001].own and rows[900001].numplays == 3 and rows[900001].rating == 8.5
    assert rows[900002].wishlist and rows[900002].rating is None and rows[900002].lastmodified == "2026-10-20T12:30:00"
    assert rows[900003].wanttoplay and rows[900003].subtype == "boardgameexpansion"


def test_saved_collection_and_unknown_user() -> None:
    rows = bgg_collection(shared_file("bgg-xml", "collection__stats-1_subtype-boardgame_username-fagentu007_version-0.xml")
                          .read_bytes(), bgg_user="fagentu007")
    assert len(rows) == 40
    polo = next(r for r in rows if r.bgg_id == 171623)
    assert (polo.own, polo.rating, polo.numplays, polo.lastmodified) == (True, 9.0, 2, "2015-12-07T05:14:20")
    unknown = shared_files("bgg-xml", "collection__*someOneThatHopefullyWontExist*.xml")[0]
    with pytest.raises(BggError, match="Invalid username specified"):
        bgg_collection(unknown.read_bytes(), bgg_user="x")


def test_202_message_and_cut_answers_are_errors() -> None:
    with pytest.raises(BggError, match="accepted"):
        bgg_collection(b"<message>Your request for this collection has been accepted</message>", bgg_user="a")
    with pytest.raises(BggError, match="truncated"):
        bgg_things(_fixture("thing-900001.xml")[:500])


_FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_SEED = _fixture("thing-900001.xml").decode("utf-8")


@_FUZZ
@given(start=st.integers(0, len(_SEED)), length=st.integers(0, 40),
       junk=st.text(alphabet=st.sampled_from(list('<>/="&; 0123456789-+abcx\u3000ー')), max_size=20))
def test_fuzzed_thing_answers_parse_or_are_quarantined(start: int, length: int, junk: str) -> None:
    """Any mutation of a thing answer gives typed things or BggError (quarantined), never another exception."""
    text = _SEED[:start] + junk + _SEED[start + length:]
    try:
        things = bgg_things(text)
    except BggError:
        return
    for thing in things:
        assert isinstance(thing.bgg_id, int)
        assert thing.best_players is None or all(isinstance(n, int) and 0 < n <= 100 for n in thing.best_players)


@_FUZZ
@given(data=st.binary(max_size=300))
def test_fuzzed_bytes_never_raise_anything_but_bgg_error(data: bytes) -> None:
    for parse in (bgg_things, lambda d: bgg_collection(d, bgg_user="u")):
        try:
            parse(data)
        except BggError:
            pass


def test_fixtures_are_our_own() -> None:
    """The replay's fixtures are fictional (ids 9000xx), never copies of the saved real answers."""
    assert all(Path(p).name.startswith(("thing-9000", "collection-")) for p in FIXTURES_DIR.iterdir())
