"""scrapers.fields on the literal strings the site shows (site-samples README, real pages)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from scrapers.fields import (
    classify_spec,
    normalize,
    parse_age,
    parse_count,
    parse_minutes,
    parse_players,
    parse_rating,
    parse_year,
)
from tests.support.conftest_shared import shared_file
from tests.support.examples import Table, check, examples

GARBAGE = [
    None, "", " ", "未登録", "abc", "人", "分", "～", "~~~", "人人人", "\x00", "-", "1e5", "NaN",
    "9" * 200, "２" * 50 + "人", "<br>", "null", "None", "約", "前後", "歳から", "年～",
]


FIELD_EXAMPLES: Table = {
    normalize: [
        ("２人～４人", "2人~4人"),
        ("2人〜4人", "2人~4人"),
        ("1人~4人", "1人~4人"),
        ("15分∼30分", "15分~30分"),
        ("  2人\u3000～\n 4人 ", "2人 ~ 4人"),
        ("コーラ：ライズ", "コーラ:ライズ"),
        ("\u200b10歳～", "10歳~"),
        (None, ""),
        ("", ""),
    ],
    parse_players: [
        ("2人～4人", (2, 4)),
        ("2人", (2, 2)),
        ("1人～65536人", (1, 65536)),
        ("3人～50人", (3, 50)),
        ("２人～４人", (2, 4)),
        ("2～4人", (2, 4)),
        ("2人〜4人", (2, 4)),
        ("1人~4人", (1, 4)),  # real page: ASCII tilde
        ("2人~4人", (2, 4)),
        ("2 人 ～ 4 人", (2, 4)),
        ("3人以上", (3, None)),
        ("2人～", (2, None)),
        ("プレイ人数：2人～4人", (2, 4)),
        ("4人～2人", (4, 2)),  # kept as published; the warehouse flags it
        ("0人", (None, None)),
        ("30分～60分", (None, None)),
        ("2人～30分", (None, None)),
        ("未登録", (None, None)),
        ("", (None, None)),
        (None, (None, None)),
    ],
    parse_minutes: [
        ("30分～60分", (30, 60)),
        ("10分前後", (10, 10)),
        ("120分前後", (120, 120)),
        ("3分～25分", (3, 25)),
        ("15分~30分", (15, 30)),  # real page
        ("75分前後", (75, 75)),
        ("１５分〜３０分", (15, 30)),
        ("30～60分", (30, 60)),
        ("約30分", (30, 30)),
        ("～30分", (None, 30)),
        ("60分以上", (60, None)),
        ("2人～4人", (None, None)),
        ("未登録", (None, None)),
        (None, (None, None)),
    ],
    parse_age: [
        ("10歳～", 10),
        ("20歳～", 20),
        ("8歳から", 8),
        ("14歳~", 14),  # real page
        ("８歳〜", 8),
        ("12歳", 12),
        ("10歳以上", 10),
        ("10才以上", 10),
        ("対象年齢：10歳～", 10),
        ("8～12歳", 8),
        ("0歳～", 0),
        ("未登録", None),
        ("10分", None),
        ("200歳～", None),
        ("", None),
        (None, None),
    ],
    parse_year: [
        ("2025年～", 2025),
        ("2025年", 2025),
        ("2021年~", 2021),  # real page
        ("２０２１年", 2021),
        ("2025年10月", 2025),
        ("発売年：2019年", 2019),
        ("1年以上前", None),  # "more than a year ago" next to a post
        ("1年", None),
        ("99999年", None),
        ("未登録", None),
        (None, None),
    ],
    parse_count: [
        ("1,203", 1203),
        ("９", 9),
        ("マイボードゲーム 412", 412),
        ("マイボードゲーム 1,203", 1203),
        ("全21,406個", 21406),
        ("遊べるボードゲーム 608個", 608),
        ("70名", 70),
        ("9興味あり", 9),
        ("１，２０３", 1203),
        ("なし", None),
        ("", None),
        (None, None),
    ],
    parse_rating: [
        ("0", None),
        ("1", 1),
        ("4", 4),
        ("5", 5),
        ("４", 4),
        (" 3 ", 3),
        ("3.5", 4),
        ("6", None),
        ("10", None),
        ("-1", None),
        ("", None),
        ("abc", None),
        (None, None),
    ],
    classify_spec: [
        ("2人～4人", "players"),
        ("2人", "players"),
        ("1人~4人", "players"),
        ("２～４人", "players"),
        ("30分～60分", "minutes"),
        ("10分前後", "minutes"),
        ("10歳～", "age"),
        ("8歳から", "age"),
        ("2025年～", "year"),
        ("2021年", "year"),
        ("未登録", None),
        ("8人の侍", None),
        ("1年以上前", None),
        ("約1ヶ月前", None),
        ("マイボードゲーム 412", None),
        ("2025", None),
        ("2人～30分", None),
        ("", None),
        (None, None),
    ],
}


@pytest.mark.parametrize(("function", "text", "expected"), examples(FIELD_EXAMPLES))
def test_field_examples(function: Callable[[str | None], object], text: str | None, expected: object) -> None:
    check(function, text, expected)


@pytest.mark.parametrize("text", GARBAGE)
def test_garbage_never_raises(text: str | None) -> None:
    """Every field function answers None (or a pair of them) instead of raising."""
    for parse in (parse_players, parse_minutes):
        low, high = parse(text)
        assert low is None or isinstance(low, int)
        assert high is None or isinstance(high, int)
    for parse_one in (parse_age, parse_year, parse_rating):
        assert parse_one(text) is None or isinstance(parse_one(text), int)
    assert parse_count(text) is None or isinstance(parse_count(text), int)
    assert classify_spec(text) in (None, "players", "minutes", "age", "year")


def _spec_lines(text: str) -> list[str]:
    """The bullet lines of a real page's spec list (`• 1人~4人`, `- 2人~4人`)."""
    lines = (re.sub(r"^[\s•\-]+", "", line).strip() for line in text.splitlines())
    return [line for line in lines if classify_spec(line)]


@pytest.mark.shared
@pytest.mark.parametrize(
    ("name", "players", "minutes", "age", "year"),
    [
        ("game-page-propolis-with-rules.txt", (1, 4), (15, 30), 10, 2025),
        ("rule-post-khora.txt", (2, 4), (75, 75), 14, 2021),
    ],
)
def test_real_page_specs(name: str, players: tuple[int, int], minutes: tuple[int, int], age: int, year: int) -> None:
    """The spec bullets of real pages (ASCII `~`) read as the game's values."""
    lines = _spec_lines(shared_file("real-pages", name).read_text(encoding="utf-8"))
    by_kind = {classify_spec(line): line for line in reversed(lines)}
    assert parse_players(by_kind["players"]) == players
    assert parse_minutes(by_kind["minutes"]) == minutes
    assert parse_age(by_kind["age"]) == age
    assert parse_year(by_kind["year"]) == year


@pytest.mark.shared
def test_real_page_counters() -> None:
    """The counters of a real game page (`9興味あり`) read as numbers."""
    text = shared_file("real-pages", "game-page-propolis-with-rules.txt").read_text(encoding="utf-8")
    counters = dict(
        (label, parse_count(number))
        for number, label in re.findall(r"^\s*•?\s*([\d,]+)(興味あり|経験あり|お気に入り|持ってる)\s*$", text, re.M)
    )
    assert counters == {"興味あり": 9, "経験あり": 13, "お気に入り": 2, "持ってる": 14}
