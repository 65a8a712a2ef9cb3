"""Names the generator makes up: game titles and slugs, designers, makers, nicknames.

Why apart: names carry the site's text formats (katakana transliterations, romaji,
"Name（English）" credits) and must stay unique; they are drawn with the game and member
streams but hold no recommendation signal.
"""

from __future__ import annotations

import random
import re

import numpy as np

from samplesite import vocab
from samplesite.draw.common import N_CLUSTERS, first_below, unique_ids, unique_labels

_SLUG_DROP = {"of", "the"}


def slugify(name: str) -> str:
    """URL slug of an English name: ASCII letters/digits only, 'of'/'the' dropped.

    Mirrors the real site ("Khôra: Rise of an Empire" -> "khra-rise-an-empire").
    """
    words = re.split(r"[^a-z0-9]+", "".join(c for c in name.lower() if c.isascii()))
    words = [w for w in words if w and w not in _SLUG_DROP]
    return "-".join(words) or "game"


def designer_pool(n_games: int, rng: np.random.Generator, r: random.Random
                   ) -> tuple[dict[int, str], list[list[int]], list[int]]:
    """Designers {id: "カナ（Latin）"}, their ids by taste cluster (designers stick to a
    style) and all ids."""
    n = min(max(12, n_games // 4), 8000)

    def make() -> str:
        if r.random() < 0.6:
            fe, fk = r.choice(vocab.FOREIGN_FIRST)
            le, lk = r.choice(vocab.FOREIGN_LAST)
            if r.random() < 0.25:
                mid = r.choice(vocab.MIDDLE_INITIALS)
                return f"{fk}・{mid}・{lk}（{fe} {mid}. {le}）"
            return f"{fk}・{lk}（{fe} {le}）"
        sk, se = r.choice(vocab.JA_SURNAMES)
        gk, ge = r.choice(vocab.JA_GIVEN)
        return f"{sk}{gk}（{ge} {se}）"

    def fallback(k: int) -> str:
        (fe, fk), (le, lk) = vocab.FOREIGN_FIRST[k % 42], vocab.FOREIGN_LAST[(k // 42) % 44]
        return f"{fk}・{lk}{k}（{fe} {le} {k}）"

    ids = unique_ids(rng, n, 100, 6000)
    labels = unique_labels(n, make, fallback)
    pool = {int(i): lab for i, lab in zip(ids, labels)}
    by_cluster: list[list[int]] = [[] for _ in range(N_CLUSTERS)]
    for i in ids:
        by_cluster[r.randrange(N_CLUSTERS)].append(int(i))
    return pool, by_cluster, [int(i) for i in ids]


def maker_pool(n_games: int, rng: np.random.Generator, r: random.Random) -> dict[int, str]:
    """Makers {id: label}, English or Japanese company names."""
    n = min(max(6, n_games // 30), 2000)

    def make() -> str:
        word = r.choice(vocab.MAKER_WORDS)

        def japanese() -> str:
            kana = vocab.NAME_WORDS.get(word) or vocab.NAME_WORDS[r.choice(vocab.NAME_WORD_LIST)]
            return f"{kana}{r.choice(vocab.MAKER_SUFFIXES_JA)}"

        return first_below(r.random(), (
            (0.45, lambda: f"{word} {r.choice(vocab.MAKER_SUFFIXES_EN)}"),
            (0.7, lambda: f"{word} {r.choice(vocab.MAKER_WORDS)} {r.choice(vocab.MAKER_SUFFIXES_EN)}"),
        ), japanese)

    ids = unique_ids(rng, n, 1, 900)
    labels = unique_labels(n, make, lambda k: f"{vocab.MAKER_WORDS[k % 25]} Games {k}")
    return {int(i): lab for i, lab in zip(ids, labels)}


def english_words(r: random.Random, themes: tuple[str, ...], cluster: vocab.Cluster) -> str:
    """An English title from theme, cluster and generic words, so titles hint at the taste."""
    used: set[str] = set()

    def word() -> str:
        for _ in range(20):
            x = r.random()
            if themes and x < 0.4:
                w = r.choice(vocab.THEME_WORDS[r.choice(themes)])
            elif x < 0.7:
                w = r.choice(cluster.words)
            else:
                w = r.choice(vocab.NAME_WORD_LIST)
            if w not in used:
                break
        used.add(w)
        return w

    return first_below(r.random(), (
        (0.22, word),
        (0.65, lambda: f"{word()} {word()}"),
        (0.75, lambda: f"The {word()}"),
        (0.85, lambda: f"{word()} of {word()}"),
        (0.95, lambda: f"{word()}: {word()} {word()}"),
    ), lambda: f"{word()} {word()}!")


def katakana(english: str, r: random.Random) -> str:
    """Japanese title of a transliterated name: "Sky Team" -> "スカイチーム"."""
    joiner = "" if r.random() < 0.5 else "・"
    if ": " in english:
        head, tail = english.split(": ", 1)
        return f"{katakana(head, r)}：{'・'.join(vocab.NAME_WORDS[w] for w in tail.split())}"
    bang = english.endswith("!")
    words = english.rstrip("!").split()
    out: list[str] = []
    for w in words:
        if w == "The":
            out.append("ザ・")
        elif w == "of":
            out.append("・オブ・")
        else:
            if out and not out[-1].endswith("・"):
                out.append(joiner)
            out.append(vocab.NAME_WORDS[w])
    return "".join(out) + ("！" if bang else "")


def japanese_original(r: random.Random) -> tuple[str, str]:
    """A Japanese original title and its romaji (the English name shown on the site)."""
    a_ja, a_ro = r.choice(vocab.JA_NOUNS)
    p = r.random()
    if p < 0.4:
        b_ja, b_ro = r.choice(vocab.JA_NOUNS)
        ja, ro = f"{a_ja}の{b_ja}", f"{a_ro} no {b_ro}"
    elif p < 0.8:
        s_ja, s_ro = r.choice(vocab.JA_SUFFIXES)  # 〜大作戦 after an ideographic space (U+3000), as real titles do
        ja, ro = f"{a_ja}{chr(0x3000) if s_ja == '大作戦' else ''}{s_ja}", f"{a_ro} {s_ro}"
    else:
        return a_ja, a_ro.upper()
    return ja, ro[:1].upper() + ro[1:]


def nickname(r: random.Random) -> str:
    """A member nickname: Japanese words, romaji handles or word+number (also used by nights.py)."""
    def words() -> str:
        w = r.choice(vocab.NICK_WORDS)
        return first_below(r.random(), (
            (0.35, lambda: f"{r.choice(vocab.NICK_PREFIXES)}{w}"),
            (0.7, lambda: f"{w}{r.choice(vocab.NICK_SUFFIXES)}"),
            (0.85, lambda: f"{w}{r.randint(1, 999)}"),
        ), lambda: w)

    def handle() -> str:
        h = "".join(r.choice(vocab.ROMAJI_SYLLABLES) for _ in range(r.randint(2, 3)))
        if r.random() < 0.3:
            h = h.capitalize()
        return h + r.choice(vocab.HANDLE_SUFFIXES)

    return first_below(r.random(), ((0.45, words), (0.85, handle)),
                       lambda: f"{r.choice(vocab.HANDLE_WORDS)}{r.choice(vocab.HANDLE_SUFFIXES)}{r.randint(1, 99)}")

