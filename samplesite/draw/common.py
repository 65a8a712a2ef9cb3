"""What every part of the generator draws with: seeded streams, unique ids and labels, the clock.

Why one place: each part (games, members, collections, cafes, posts, faults) gets its own
SeedSequence child, and must turn it into random streams the same way, or a change in one
part would shift every draw of another; the reference "now" is shared for the same reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from samplesite import vocab
from samplesite.model import REFERENCE_NOW

N_CLUSTERS = len(vocab.CLUSTERS)
THREE_YEARS_S = 3 * 365 * 86400
NOW64 = np.datetime64(REFERENCE_NOW[:19], "s")  # naive JST wall time of the reference "now"
T = TypeVar("T")


def streams(ss: np.random.SeedSequence) -> tuple[np.random.Generator, random.Random]:
    """A numpy generator for bulk draws and a Random for cheap scalar picks, both from `ss`."""
    state = ss.generate_state(2, dtype=np.uint64)
    return np.random.default_rng(ss), random.Random(int(state[0]) ^ (int(state[1]) << 64))


def weighted(r: random.Random, items: tuple[tuple[str, float], ...]) -> str:
    """One name of `items` drawn with its weight (one uniform draw, so the stream advances by one)."""
    total = sum(w for _, w in items)
    x = r.random() * total
    for name, w in items:
        x -= w
        if x < 0:
            return name
    return items[-1][0]


def first_below(x: float, bands: tuple[tuple[float, Callable[[], T]], ...], otherwise: Callable[[], T]) -> T:
    """The outcome of the first band whose bound `x` is below (bounds rising), else `otherwise`'s.

    Why one function: the generator picks a text's form by one draw against cumulative
    bounds (a title is one word 22 % of the time, two words the next 43 %, ...) and a post's
    age label by the age's size. The outcomes are called lazily, so only the chosen form draws
    further numbers and every stream advances exactly as a chain of `if x < bound` would.
    """
    for bound, outcome in bands:
        if x < bound:
            return outcome()
    return otherwise()


def unique_ids(rng: np.random.Generator, n: int, lo: int, span: int) -> np.ndarray:
    """n distinct sorted ids from [lo, lo + max(span, 3n)): sparse, like the real site's ids."""
    return np.sort(rng.choice(np.arange(lo, lo + max(span, 3 * n)), size=n, replace=False))


def unique_labels(n: int, make: Callable[[], str], fallback: Callable[[int], str]) -> list[str]:
    """n distinct labels from `make`; after many collisions (pool exhausted) use `fallback(k)`."""
    labels: list[str] = []
    seen: set[str] = set()
    misses = 0
    while len(labels) < n:
        label = make() if misses < 200 else fallback(len(labels) + misses)
        if label in seen:
            misses += 1
            continue
        misses = 0
        seen.add(label)
        labels.append(label)
    return labels


def jst_iso(t: np.datetime64) -> str:
    """ISO 8601 text of a naive JST wall time, as the pages show it ("2026-10-31T12:00:00+09:00")."""
    return f"{np.datetime_as_string(t, unit='s')}+09:00"


def iso(seconds_before_now: int) -> str:
    """ISO 8601 JST timestamp `seconds_before_now` before the reference now."""
    return jst_iso(NOW64 - np.timedelta64(int(seconds_before_now), "s"))

