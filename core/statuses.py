"""The four statuses a member gives a game in their collection (マイボードゲーム), and the site's
word for each.

Why one module, at the bottom layer: the scrapers read these words off the site's pages,
the sample site writes them into its pages, and the CLI and the dashboard show them to
people. Written once, a word cannot drift in one of them (the watch list is 興味あり, as
the site says it) without the parser and the pages that test it drifting too.
"""

from __future__ import annotations

STATUS_LABELS: dict[str, str] = {"have": "持ってる", "played": "経験あり", "favorite": "お気に入り", "watching": "興味あり"}
"""Each status (the column name in `marts.collections` and the class the site's markup uses)
and the label the site shows for it, in the site's order."""

STATUSES: tuple[str, ...] = tuple(STATUS_LABELS)
"""The four statuses, in the site's order."""
