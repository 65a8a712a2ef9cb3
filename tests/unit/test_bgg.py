"""scrapers.bgg (and `bodoge parse` on BGG XML): inline responses, then the saved real ones."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scrapers.bgg import BggError, bgg_collection_items, bgg_thing_items, is_japanese_name, username_from_source
from scrapers.items import CollectionEntry, Game
from scrapers.parse import ParseError, detect_kind, parse_document
from tests.support.conftest_shared import shared_file, shared_files, shared_params
from tests.support.examples import Table, check, examples

# --- inline responses in BGG's shape -------------------------------------------------

THING_XML = """<?xml version="1.0" encoding="utf-8"?>
<items termsofuse="https://boardgamegeek.com/xmlapi/termsofuse">
  <item type="boardgameexpansion" id="42">
    <name type="primary" sortindex="1" value="Test Game: More"/>
    <name type="alternate" sortindex="1" value="테스트"/>
    <name type="alternate" sortindex="1" value="测试游戏"/>
    <name type="alternate" sortindex="1" value="テストゲーム：拡張"/>
    <description>Line one&amp;#10;&amp;#10;Line &amp;quot;two&amp;quot; &amp;mdash; end</description>
    <yearpublished value="0"/>
    <minplayers value="2"/><maxplayers value="4"/>
    <playingtime value="45"/><minplaytime value="30"/><maxplaytime value="45"/>
    <minage value="10"/>
    <link type="boardgamecategory" id="1" value="Card Game"/>
    <link type="boardgamemechanic" id="2" value="Set Collection"/>
    <link type="boardgamedesigner" id="3" value="(Uncredited)"/>
    <link type="boardgamedesigner" id="4" value="A. Designer"/>
    <link type="boardgamepublisher" id="5" value="Someone"/>
    <versions><item type="boardgameversion" id="9"><name type="primary" value="v1"/></item></versions>
    <statistics page="1"><ratings><owned value="120"/><wishing value="7"/></ratings></statistics>
  </item>
  <item type="videogame" id="43"><name type="primary" value="Not a board game"/></item>
</items>"""

COLLECTION_XML = """<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<items totalitems="4" termsofuse="https://boardgamegeek.com/xmlapi/termsofuse">
  <item objecttype="thing" objectid="1" subtype="boardgame" collid="10">
    <name sortindex="1">Owned, rated 9.5</name>
    <stats minplayers="2" maxplayers="4"><rating value="9.5"/></stats>
    <status own="1" prevowned="0" fortrade="0" want="0" wanttoplay="1" wanttobuy="0" wishlist="0" preordered="0" lastmodified="2016-05-31 22:30:02"/>
    <numplays>0</numplays>
  </item>
  <item objecttype="thing" objectid="2" subtype="boardgame" collid="11">
    <stats><rating value="N/A"/></stats>
    <status own="0" prevowned="0" fortrade="0" want="0" wanttoplay="0" wanttobuy="0" wishlist="1" wishlistpriority="3" preordered="0" lastmodified="2015-01-01 00:00:00"/>
    <numplays>0</numplays>
  </item>
  <item objecttype="thing" objectid="3" subtype="boardgameexpansion" collid="12">
    <stats><rating value="1"/></stats>
    <status own="0" want="1" wishlist="0" lastmodified="bad"/>
    <numplays>3</numplays>
  </item>
  <item objecttype="thing" objectid="4" subtype="boardgame" collid="13">
    <stats><rating value="8"/></stats>
    <status own="0" want="0" wishlist="0" lastmodified="2014-02-03 04:05:06"/>
    <numplays>0</numplays>
  </item>
</items>"""

ERROR_XML = """<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<errors><error><message>Invalid username specified</message></error></errors>"""
ACCEPTED_XML = """<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<message>
	Your request for this collection has been accepted and will be processed.  Please try again later for access.
</message>"""


def test_thing_inline() -> None:
    assert bgg_thing_items(THING_XML) == [
        Game(
            game_id="bgg-42", name_ja="テストゲーム：拡張", name_en="Test Game: More",
            min_players=2, max_players=4, min_minutes=30, max_minutes=45, min_age=10, year=None,
            n_watching=7, n_played=None, n_favorite=None, n_have=120,
            designers=["A. Designer"], mechanics=["Set Collection"], themes=["Card Game"],
            overview='Line one\n\nLine "two" — end', url="https://boardgamegeek.com/boardgame/42",
        )
    ]
    assert bgg_thing_items(THING_XML.encode("utf-8"))[0].game_id == "bgg-42"


def test_collection_inline() -> None:
    assert bgg_collection_items(COLLECTION_XML, username="alice") == [
        CollectionEntry(user_id="alice", game_id="bgg-1", have=True, played=False, favorite=True, watching=False,
                        rating=5, updated_at="2016-05-31T22:30:02"),
        CollectionEntry(user_id="alice", game_id="bgg-2", have=False, played=False, favorite=False, watching=True,
                        rating=None, updated_at="2015-01-01T00:00:00"),
        CollectionEntry(user_id="alice", game_id="bgg-3", have=False, played=True, favorite=False, watching=False,
                        rating=1, updated_at=None),
        CollectionEntry(user_id="alice", game_id="bgg-4", have=False, played=False, favorite=True, watching=False,
                        rating=4, updated_at="2014-02-03T04:05:06"),
    ]


def test_duplicate_copies_merge_into_one_entry() -> None:
    doubled = COLLECTION_XML.replace('objectid="2"', 'objectid="1"')
    entries = bgg_collection_items(doubled, username="alice")
    first = next(e for e in entries if e.game_id == "bgg-1")
    assert (first.have, first.watching, first.rating, first.updated_at) == (True, False, 5, "2016-05-31T22:30:02")
    assert len(entries) == 3


@pytest.mark.parametrize("xml", [ERROR_XML, ACCEPTED_XML, "not xml at all", "<user id='1'/>"])
def test_errors_raise(xml: str) -> None:
    with pytest.raises(BggError):
        bgg_collection_items(xml, username="x")
    with pytest.raises(BggError):
        bgg_thing_items(xml)


def test_error_messages() -> None:
    with pytest.raises(BggError, match="^Invalid username specified$"):
        bgg_collection_items(ERROR_XML, username="x")
    with pytest.raises(BggError, match="has been accepted and will be processed"):
        bgg_collection_items(ACCEPTED_XML, username="x")


BGG_EXAMPLES: Table = {
    username_from_source: [
        ("https://boardgamegeek.com/xmlapi2/collection?username=fagentu007&stats=1", "fagentu007"),
        ("https://boardgamegeek.com/xmlapi2/collection?stats=1&username=Some%20One", "Some One"),
        ("https://boardgamegeek.com/collection/user/bob", "bob"),
        ("collection__stats-1_subtype-boardgame_username-fagentu007_version-0.xml", "fagentu007"),
        ("/data/bgg/collection__stats-1_username-some_user_version-1.xml", "some_user"),
        ("collection__stats-1_subtype-boardgame_username-someOne.xml", "someOne"),
        ("thing__id-31260.xml", None),
        ("https://boardgamegeek.com/xmlapi2/thing?id=1", None),
        ("", None),
        (None, None),
    ],
    is_japanese_name: [
        ("アグリコラ", True), ("クー", True), ("大名", True), ("农场主", False), ("農家樂", False), ("星蚀", False),
        ("아그리콜라", False), ("Агрикола", False), ("Coup", False), ("深入絕地 (繁體版)", False),
    ],
}


@pytest.mark.parametrize(("function", "given", "expected"), examples(BGG_EXAMPLES))
def test_bgg_examples(function: Callable[[str | None], object], given: str | None, expected: object) -> None:
    check(function, given, expected)


def test_parse_document_bgg_inline() -> None:
    assert detect_kind(THING_XML, "thing.xml") == "bgg-thing"
    assert detect_kind(COLLECTION_XML.encode(), "x.xml") == "bgg-collection"
    items = parse_document(COLLECTION_XML, url="https://boardgamegeek.com/xmlapi2/collection?username=alice")
    assert {i.user_id for i in items} == {"alice"}
    with pytest.raises(ParseError, match="no BoardGameGeek user name"):
        parse_document(COLLECTION_XML, url="saved.xml")
    with pytest.raises(ParseError, match="Invalid username specified"):
        parse_document(ERROR_XML, url="collection__username-nobody.xml")
    with pytest.raises(ParseError, match="accepted"):
        parse_document(ACCEPTED_XML, url="collection__username-busy.xml", kind="bgg-collection")


# --- the saved real responses --------------------------------------------------------


def thing(thing_id: int) -> Game:
    """The one Game of the saved thing response for thing_id."""
    (path,) = shared_files("bgg-xml", f"thing__*_id-{thing_id}_*.xml")
    (game,) = bgg_thing_items(path.read_bytes())
    return game


@pytest.mark.shared
def test_agricola() -> None:
    game = thing(31260)
    assert (game.game_id, game.name_en, game.name_ja) == ("bgg-31260", "Agricola", "アグリコラ")
    assert (game.min_players, game.max_players, game.min_minutes, game.max_minutes) == (1, 5, 30, 150)
    assert (game.min_age, game.year, game.n_have, game.n_watching) == (12, 2007, 62141, 8407)
    assert (game.n_played, game.n_favorite) == (None, None)
    assert game.designers == ["Uwe Rosenberg"]
    assert game.mechanics == ["Area Enclosure", "Card Drafting", "Hand Management", "Variable Player Powers",
                              "Worker Placement"]
    assert game.themes == ["Animals", "Economic", "Farming"]
    assert game.url == "https://boardgamegeek.com/boardgame/31260"
    assert game.overview is not None
    assert game.overview.startswith("Description from BoardgameNews\n\nIn Agricola, you're a farmer")
    assert "&#10;" not in game.overview and "&amp;" not in game.overview


@pytest.mark.shared
@pytest.mark.parametrize(
    ("thing_id", "name_en", "name_ja", "players", "minutes", "age", "year"),
    [
        (131357, "Coup", "クー", (2, 6), (15, 15), 9, 2012),
        (72125, "Eclipse", None, (2, 6), (60, 200), 14, 2011),  # 星蚀 is Chinese
        (23272, "Eclipse", None, (2, 4), (20, 20), 8, None),  # yearpublished 0 = unknown
        (1653, "Coup", None, (2, 2), (60, 60), 12, 1991),
        (104163, "Descent: Journeys in the Dark (second edition) – Conversion Kit", None,
         (None, None), (None, None), None, 2012),
    ],
)
def test_saved_things(thing_id: int, name_en: str, name_ja: str | None, players: tuple[int | None, int | None],
                      minutes: tuple[int | None, int | None], age: int | None, year: int | None) -> None:
    game = thing(thing_id)
    assert (game.game_id, game.name_en, game.name_ja) == (f"bgg-{thing_id}", name_en, name_ja)
    assert (game.min_players, game.max_players) == players
    assert (game.min_minutes, game.max_minutes) == minutes
    assert (game.min_age, game.year) == (age, year)


@pytest.mark.shared
def test_fagentu007_collection() -> None:
    path = shared_files("bgg-xml", "collection__*username-fagentu007_version-0.xml")[0]
    username = username_from_source(str(path))
    assert username == "fagentu007"
    entries = bgg_collection_items(path.read_bytes(), username=username)
    assert len(entries) == 40
    assert len({e.game_id for e in entries}) == 40
    assert {e.user_id for e in entries} == {"fagentu007"}
    by_id = {e.game_id: e for e in entries}
    assert by_id["bgg-147253"] == CollectionEntry(  # The Ancient World: own, unrated
        user_id="fagentu007", game_id="bgg-147253", have=True, played=False, favorite=False, watching=False,
        rating=None, updated_at="2016-05-31T22:30:02")
    assert by_id["bgg-171623"] == CollectionEntry(  # Marco Polo: own, 2 plays, rated 9
        user_id="fagentu007", game_id="bgg-171623", have=True, played=True, favorite=True, watching=False,
        rating=5, updated_at="2015-12-07T05:14:20")
    assert by_id["bgg-34219"].rating == 3 and not by_id["bgg-34219"].favorite  # Biblios rated 6
    assert by_id["bgg-127060"].watching and not by_id["bgg-127060"].have  # Bora Bora: wishlist
    assert sum(e.have for e in entries) == 26
    assert sum(e.played for e in entries) == 13
    assert sum(e.watching for e in entries) == 5
    assert sum(e.favorite for e in entries) == 15
    assert sorted((e.rating for e in entries if e.rating is not None)) == [2] * 3 + [3] * 5 + [4] * 13 + [5] * 8
    assert not any(e.watching and (e.have or e.played) for e in entries)


@pytest.mark.shared
def test_unknown_user_error() -> None:
    (path,) = shared_files("bgg-xml", "collection__*someOneThatHopefullyWontExist*.xml")
    with pytest.raises(BggError, match="Invalid username specified"):
        bgg_collection_items(path.read_bytes(), username="someone")


EXPECTED_BGG = {"thing": ("bgg-thing", 1), "collection": ("bgg-collection", 40)}


@pytest.mark.shared
@pytest.mark.parametrize("name", shared_params("bgg-xml", "*.xml"))
def test_every_saved_response_through_parse_document(name: str) -> None:
    """Things and collections parse; the error page and unsupported endpoints give ParseError."""
    path = shared_file("bgg-xml", name)
    body, prefix = path.read_bytes(), name.split("__", 1)[0]
    if "someOneThatHopefullyWontExist" in name or prefix not in EXPECTED_BGG:
        with pytest.raises(ParseError):
            parse_document(body, url=str(path))
        return
    kind, count = EXPECTED_BGG[prefix]
    assert detect_kind(body, str(path)) == kind
    assert len(parse_document(body, url=str(path))) == count
    assert len(parse_document(body, url=str(path), kind=kind)) == count
