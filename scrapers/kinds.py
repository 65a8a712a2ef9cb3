"""The kinds of document `bodoge parse --kind` accepts, in a module that imports nothing.

Why apart from `scrapers.parse`: the command line declares its `--kind` choices from this
tuple, and building the parser must stay instant (parse.py loads parsel and lxml).
"""

from __future__ import annotations

KINDS: tuple[str, ...] = (
    "auto", "catalog", "game", "post", "members", "collection", "space", "bgg-thing", "bgg-collection",
)
