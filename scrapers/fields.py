"""Text → value functions, one per field the site shows.

Why a module of its own: the site writes the same value in several ways (`2人～4人`,
`２人〜４人`, `2～4人`, `1人~4人`), and every page kind (catalogue, game page, cafe list,
collection card) shows the same fields. Parsing them once, here, on normalised text
keeps the page parsers down to "find the element" and lets each format be tested on
real strings. Every function takes whatever text it is given (None included) and
answers None for what it cannot read: garbage never raises.
"""

from __future__ import annotations

import math
import re
import unicodedata

#: Characters the site (and people typing on it) use as a range sign or "and up":
#: `〜` WAVE DASH, `～` FULLWIDTH TILDE, `∼` TILDE OPERATOR, `∽`, `⁓` SWUNG DASH,
#: `〰` WAVY DASH, `˜` SMALL TILDE. All become an ASCII `~`.
_WAVE_DASHES = str.maketrans({ch: "~" for ch in "\u301c\uff5e\u223c\u223d\u2053\u3030\u02dc"})
#: Invisible characters that survive NFKC and would break a full match.
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_WHITESPACE = re.compile(r"\s+")

#: A range sign once the text is normalised: the tilde, or a hyphen/dash between numbers.
_SIGN = r"[~\-\u2010\u2011\u2012\u2013\u2014\u2015\u2212]"
_UNITS = {"人": "players", "分": "minutes", "歳": "age", "才": "age", "年": "year"}
_LABELS = r"(?:プレイ人数|人数|プレイ時間|時間|対象年齢|年齢|発売年|発売日|発売)"
_SPEC = re.compile(
    rf"^(?:{_LABELS}\s*:?\s*)?"
    rf"(?:(?P<lead>{_SIGN})\s*)?"
    r"(?:約\s*)?(?P<a>\d{1,7})\s*(?P<ua>[人分歳才年])?"
    rf"(?:\s*(?P<sep>{_SIGN}|から)\s*(?:約\s*)?(?:(?P<b>\d{{1,7}})\s*(?P<ub>[人分歳才年])?)?)?"
    r"\s*(?P<suffix>以上|以降|以下|まで|前後|程度|くらい|ぐらい|位|頃)?$"
)
_YEAR_DATE = re.compile(r"^(?:発売年|発売日|発売)?\s*:?\s*(\d{4})年(?:\d{1,2}月(?:\d{1,2}日)?)?\s*(?:~|から|以降|頃)?$")
_COUNT = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)|\d+")
_RATING = re.compile(r"^\d+(?:\.\d+)?$")

_MIN_YEAR, _MAX_YEAR = 1000, 2999
_MAX_AGE = 120
#: The largest value the warehouse's INTEGER columns hold (counters, specs are Int32).
INT32_MAX = 2**31 - 1


def as_int32(value: int | None) -> int | None:
    """The value when it fits the warehouse's INTEGER columns, else None.

    Why: a page (or BGG) may print `99999999999999999999`; stored, it would make the
    whole batch fail to load, so a number that cannot be a real count is "unknown".
    """
    return value if value is not None and -INT32_MAX - 1 <= value <= INT32_MAX else None


def normalize(text: str | None) -> str:
    """The text in one canonical form: NFKC, every wave dash as `~`, whitespace collapsed.

    Why: the site mixes full-width and ASCII digits (`２人`), three or more range signs
    (`～`, `〜`, `~`) and ideographic spaces; every parser matches against this one form
    instead of knowing all of them. None gives "".

    ASCII text skips NFKC and the character swaps: NFKC leaves ASCII as it is, and
    every wave dash and invisible character is outside ASCII (most texts a page
    parser reads are ASCII numbers and names).
    """
    if not text:
        return ""
    if text.isascii():
        return _WHITESPACE.sub(" ", text).strip()
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text.translate(_WAVE_DASHES))
    return _WHITESPACE.sub(" ", text).strip()


def _spec_match(text: str | None) -> re.Match[str] | None:
    """The spec grammar's match of the normalised text (None when it is not a spec)."""
    return _SPEC.match(normalize(text))


def _spec_units(match: re.Match[str]) -> set[str]:
    """The units written in a matched fragment (`才` counts as `歳`): empty, one, or a conflict."""
    return {u.replace("才", "歳") for u in (match["ua"], match["ub"]) if u}


def _spec_range(match: re.Match[str]) -> tuple[int | None, int | None]:
    """(low, high) of a matched spec: `a~b`, `a~`/`a以上` open above, `~b`/`aまで` open below.

    A reversed range (`4人～2人`) is a typo on the site; it is kept as written so the
    warehouse's range check can flag it, rather than silently guessed at here.
    """
    a = int(match["a"])
    b = int(match["b"]) if match["b"] else None
    suffix = match["suffix"]
    if match["lead"]:
        return None, a
    if b is not None:
        return a, b  # kept as published even if reversed: the warehouse flags it
    if match["sep"] or suffix in ("以上", "以降"):
        return a, None
    if suffix in ("以下", "まで"):
        return None, a
    return a, a


def classify_spec(text: str | None) -> str | None:
    """Which field a spec fragment is: "players", "minutes", "age", "year" or None.

    Why: catalogue rows, cafe rows and collection cards list the specs without labels
    and not always all four (`3人～6人 / 15分～25分`); the unit tells them apart where
    the position cannot. Only a whole fragment in the spec grammar counts, so a game
    name such as `8人の侍` or a note like `1年以上前` is not mistaken for a spec.
    """
    match = _spec_match(text)
    if match:
        units = _spec_units(match)
        if len(units) != 1 or (units == {"年"} and parse_year(text) is None):
            return None
        return _UNITS[units.pop()]
    return "year" if _YEAR_DATE.match(normalize(text)) else None


def _parse_range(text: str | None, unit: str) -> tuple[int | None, int | None]:
    """(low, high) of a fragment in `unit`, or (None, None); a bare number is accepted."""
    match = _spec_match(text)
    if not match or not _spec_units(match) <= {unit}:
        return None, None
    return _spec_range(match)


def _positive(value: int | None) -> int | None:
    """The value when it is a positive count; 0 means "not given" on the site."""
    return value if value is not None and value > 0 else None


def parse_players(text: str | None) -> tuple[int | None, int | None]:
    """(min, max) players: `2人～4人`→(2, 4), `2人`→(2, 2), `2～4人`, `3人以上`→(3, None).

    Why: one game is "exactly two" (`2人`), others joke with `1人～65536人`; both must
    land in the same two integer columns that `bodoge recommend --players` filters on.
    `未登録`, empty or garbage → (None, None).
    """
    low, high = _parse_range(text, "人")
    return _positive(low), _positive(high)


def parse_minutes(text: str | None) -> tuple[int | None, int | None]:
    """(min, max) minutes: `30分～60分`→(30, 60), `10分前後` ("about ten")→(10, 10).

    Why: "about N minutes" is the site's most common single value and the CLI's
    `--max-minutes` needs both ends; `～30分` (up to 30) gives (None, 30).
    """
    low, high = _parse_range(text, "分")
    return _positive(low), _positive(high)


def parse_age(text: str | None) -> int | None:
    """Minimum age: `10歳～`→10, `8歳から`→8, `20歳～` (alcohol games)→20, `未登録`→None.

    Why: game pages write the same minimum as `N歳～` or `N歳から`; only the lower
    bound is a fact about the game, so a range (`8～12歳`) gives its low end.
    """
    low, _high = _parse_range(text, "歳")
    return low if low is not None and 0 <= low <= _MAX_AGE else None


def parse_year(text: str | None) -> int | None:
    """Release year: `2025年～` (game pages), `2025年` (lists), `2025年10月`→2025.

    Why: the year is written with a trailing range sign on game pages and without it
    in lists; a value outside 1000–2999 (`1年以上前`, a typo) is not a year.
    """
    norm = normalize(text)
    dated = _YEAR_DATE.match(norm)
    if dated:
        year: int | None = int(dated[1])
    else:
        low, high = _parse_range(norm, "年")
        year = low if low is not None else high
    return year if year is not None and _MIN_YEAR <= year <= _MAX_YEAR else None


def parse_count(text: str | None) -> int | None:
    """The first whole number in the text: `1,203`→1203, `９`→9, `全21,406個`→21406.

    Why: counters come wrapped in labels (`マイボードゲーム 412`, `遊べるボードゲーム 608個`)
    and with thousands separators; the number is what matters. No digits, or a number
    too large for the warehouse (`99999999999999999999`) → None.
    """
    if text and text.isascii() and text.isdigit():  # the usual counter: the answer below, without its work
        return as_int32(int(text)) if len(text) <= 10 else None
    match = _COUNT.search(normalize(text))
    digits = match[0].replace(",", "") if match else ""
    return as_int32(int(digits)) if 0 < len(digits) <= 10 else None  # int() of 4,300+ digits raises


def parse_rating(text: str | None) -> int | None:
    """Star rating 1–5 from `data-rating-result`: `"4"`→4, `"0"`→None.

    Why: the site draws 0 stars both for "not rated" and for a hidden rating, so 0
    carries no opinion and must not drag averages down; anything outside 0–5 is
    garbage. A half star (`"3.5"`) rounds half up.
    """
    norm = normalize(text)
    if not _RATING.match(norm) or len(norm) > 16:  # a longer "number" is garbage (and float() may be inf)
        return None
    value = math.floor(float(norm) + 0.5)
    return value if 1 <= value <= 5 else None
