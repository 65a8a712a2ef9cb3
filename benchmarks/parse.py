"""Parsing speed: our game-page parser against bare lxml selecting the same fields.

Why bare lxml is the yardstick: our parsers sit on Scrapy's selectors (parsel over
lxml) and add completeness checks and value cleaning (full-width digits, ranges such
as 2人～4人, 未登録); the ratio says what that costs over the cheapest way to pull the
same strings out of the same pages. Pages are the sample site's game pages, rendered
once and parsed from bytes, as the crawler receives them.
"""

from __future__ import annotations

import time
from typing import Any

from lxml import html as lxml_html
from scrapy.http import HtmlResponse

from samplesite.generator import generate_site
from samplesite.render import render
from scrapers.pages.games import game_item

ORIGIN = "https://bodoge.hoobby.net"


def game_pages(n_games: int, seed: int = 0) -> list[tuple[str, bytes]]:
    """(url, body) of every well-formed game page of a generated site."""
    site = generate_site(n_games=n_games, n_users=50, seed=seed, faults=False)
    return [(ORIGIN + g.url, render(site, g.url).body_bytes) for g in site.games]


def bare_lxml_fields(body: bytes) -> dict[str, Any]:
    """The same fields as `game_item`, selected with lxml XPath and nothing else."""
    root = lxml_html.fromstring(body)
    main = root.find(".//main")

    def texts(query: str) -> list[str]:
        return [t.strip() for t in main.xpath(query)]

    credits = {}
    for item in main.xpath(".//ul[contains(@class, 'games-credit-list')]/li"):
        head = item.xpath("string(./span)")
        credits[head] = [a.text_content() for a in item.xpath("./a")]
    return {
        "game_id": root.xpath("string(//link[@rel='canonical']/@href)").rsplit("/", 1)[-1],
        "numeric_id": main.get("data-game-id"),
        "name_ja": texts(".//span[contains(@class, 'games-title-japanese')]/text()"),
        "name_en": texts(".//span[contains(@class, 'games-title-english')]/text()"),
        "specs": texts(".//li[contains(@class, 'games-spec-item')]/text()"),
        "counts": texts(".//span[contains(@class, 'games-interest-count')]/text()"),
        "credits": credits,
        "overview": main.xpath("string(.//section[contains(@class, 'games-overview')])"),
    }


def ours(url: str, body: bytes) -> object:
    """What the spider does with a game page's response."""
    return game_item(HtmlResponse(url, body=body, encoding="utf-8").selector, url)


def parse_ratio(n_games: int = 2_000, repeats: int = 3) -> dict[str, Any]:
    """Pages per second of both, best of ``repeats`` passes over every page."""
    pages = game_pages(n_games)

    def rate(parse) -> float:  # type: ignore[no-untyped-def]
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            for url, body in pages:
                parse(url, body)
            best = min(best, time.perf_counter() - started)
        return len(pages) / best

    ours_rate = rate(ours)
    bare_rate = rate(lambda _url, body: bare_lxml_fields(body))
    return {
        "pages": len(pages),
        "ours_pages_per_s": round(ours_rate, 1),
        "bare_lxml_pages_per_s": round(bare_rate, 1),
        "ratio": round(ours_rate / bare_rate, 3),
    }
