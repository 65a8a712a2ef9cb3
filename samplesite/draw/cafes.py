"""Cafes: names, addresses, hours and the games each offers (leaning to popular ones)."""

from __future__ import annotations

import math

import numpy as np

from samplesite import vocab
from samplesite.draw.common import streams
from samplesite.draw.games import Specs
from samplesite.model import Cafe


def draw_cafes(specs: Specs, ss: np.random.SeedSequence) -> list[Cafe]:
    """One cafe per 150 games (at least 5), unique slugs, each offering 30-600 games (at most all)."""
    rng, r = streams(ss)
    n_games = len(specs.games)
    n = max(5, n_games // 150)
    combos = [(p, s) for p in vocab.CAFE_PREFIXES for s in vocab.CAFE_SUFFIXES]
    r.shuffle(combos)
    cafes: list[Cafe] = []
    seen: set[str] = set()
    logpop = np.log(specs.popularity + 0.05) * 0.8
    i = 0
    while len(cafes) < n:
        (pj, pe), (sj, se) = combos[i % len(combos)]
        branch = i // len(combos)
        name, slug = f"{pj}{sj}", f"{pe}-{se}"
        if branch:
            bj, be = vocab.CAFE_BRANCHES[(branch - 1) % len(vocab.CAFE_BRANCHES)]
            suffix = "" if branch <= len(vocab.CAFE_BRANCHES) else str(branch)
            name, slug = f"{name} {bj}{suffix}", f"{slug}-{be}{suffix}"
        i += 1
        if slug in seen:
            continue
        seen.add(slug)
        pref, town = r.choice(vocab.CAFE_AREAS)
        address = f"{pref}{town}{r.randint(1, 5)}-{r.randint(1, 30)}-{r.randint(1, 15)}"
        if r.random() < 0.6:
            address += f" {r.choice(vocab.CAFE_BUILDINGS)}ビル{r.randint(2, 9)}F"
        m = int(round(math.exp(rng.uniform(math.log(30), math.log(600)))))
        m = min(m, n_games)
        keys = logpop + rng.gumbel(size=n_games)
        chosen = np.argpartition(-keys, m - 1)[:m] if m < n_games else np.arange(n_games)
        newest_first = sorted((int(g) for g in chosen), reverse=True)  # catalogue order
        cafes.append(Cafe(index=len(cafes), slug=slug, name=name, address=address,
                          hours=r.choice(vocab.CAFE_HOURS), game_indices=tuple(newest_first)))
    return cafes

