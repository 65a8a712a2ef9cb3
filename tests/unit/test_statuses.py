"""The four statuses and their labels are defined once (core.statuses) and read everywhere.

The sample site writes the labels into its pages, the scrapers read them back, the CLI and
the dashboard show them; if any of them spelled a status its own way (the watch list is
興味あり, as the site says it), a crawl of the sample site would still pass while the real
site's pages went unread. So: one definition, every reader holding that one, and the
sample site's pages parsed back to the statuses they were written from.
"""

from __future__ import annotations

import re
from pathlib import Path

import lxml.html

from core.statuses import STATUS_LABELS, STATUSES

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "scrapers", "warehouse", "models", "samplesite", "pipelines", "bodoge", "dashboards", "benchmarks")


def test_the_four_statuses_in_the_sites_order() -> None:
    assert STATUSES == ("have", "played", "favorite", "watching")
    assert list(STATUS_LABELS.values()) == ["持ってる", "経験あり", "お気に入り", "興味あり"]


def test_every_reader_shows_the_one_label() -> None:
    from bodoge.display import statuses
    from dashboards.labels import label
    from warehouse.views import STATUSES as VIEW_STATUSES

    assert VIEW_STATUSES is STATUSES
    for status, word in STATUS_LABELS.items():
        assert label(status) == word  # the dashboard's column header
        assert statuses({status: True}) == word  # the CLI's collection table


def test_the_scrapers_read_back_every_label_the_sample_site_writes() -> None:
    """A game page's four counters, as the sample site renders them, read by their label alone."""
    from samplesite.generator import generate_site
    from samplesite.pages.games import interests
    from scrapers.pages.specs import status_of

    game = generate_site(n_games=3, n_users=2, seed=1, faults=False).games[0]
    read = {}
    for li in lxml.html.fromstring(interests(game)).iter("li"):
        written = li.get("class").split()[-1]
        del li.attrib["class"]  # no class to go by: the label has to say it
        read[written] = status_of(li)
    assert read == {status: status for status in STATUSES}


def test_no_module_writes_the_labels_again() -> None:
    """A status mapped to a label anywhere but core.statuses is a second definition."""
    pattern = re.compile("|".join(rf"['\"]{s}['\"]\s*:\s*['\"]" for s in STATUSES))
    found = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["core/statuses.py"]
