"""Every kind of champion the discovery tests hold to the same lists, with parameters that
suit the demo's site (1,000 games): the engines, fold-in and the member buckets all take
this one table, so a new champion kind is tested by all three the moment it is listed."""

from __future__ import annotations

from typing import Any

CHAMPIONS: dict[str, dict[str, Any]] = {
    "ease": {"max_items": 400},  # 1,000 games: some not modelled (-inf before clipping)
    "edlae": {"max_items": 400},
    "bpr": {},
    "cosine": {},
    "bm25": {},
    "rp3beta": {},
    "als": {},
    "popularity": {},
    # shares summing to 3, so that dividing by the sum rounds
    "ensemble": {"members": {"ease": {"max_items": 400}, "cosine": {}}, "shares": {"cosine": 2, "ease": 1}},
}
