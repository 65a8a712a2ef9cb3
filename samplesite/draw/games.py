"""Game specs: taste clusters, popularity, tags, names, specs, credits and text of every game.

Why: the games carry the recommendation signal (a taste vector over latent clusters, a
long-tailed popularity, a quality) and the text the parsers must read; `game_specs` is
one pass over the games in id order, so the draws stay in a fixed sequence.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass

import numpy as np

from samplesite import vocab
from samplesite.draw.common import N_CLUSTERS, streams, unique_ids, weighted
from samplesite.draw.names import designer_pool, english_words, japanese_original, katakana, maker_pool, slugify
from samplesite.model import IMAGE_HOST, NO_IMAGE, Credit


@dataclass(slots=True)
class GameSpec:
    """Mutable working record of one game while the site is being generated."""

    index: int
    numeric_id: int
    cluster: int
    second: int
    weight: float  # share of the primary cluster in the game's taste vector
    popularity: float
    cold: bool
    quality: float
    name_ja: str
    name_en_shown: str | None
    slug: str
    players: tuple[int, int] | None
    minutes: tuple[int, int] | None
    age: int | None
    year: int | None
    sign: str
    fullwidth: bool
    kara: bool
    age_missing_shown: bool  # "未登録" on game pages when age is missing
    mechanics: tuple[str, ...]
    themes: tuple[str, ...]
    designers: tuple[Credit, ...]
    makers: tuple[Credit, ...]
    image_url: str
    catchcopy: str | None
    overview: str


@dataclass(slots=True)
class Specs:
    """All game specs and the arrays the other parts draw from (taste, popularity, pools)."""

    games: list[GameSpec]
    taste: np.ndarray  # (n_games, K) float32, rows sum to 1
    popularity: np.ndarray
    cluster_p: np.ndarray
    designers: dict[int, str]
    makers: dict[int, str]


def _pick_tags(r: random.Random, primary: tuple[tuple[str, float], ...],
               secondary: tuple[tuple[str, float], ...], k: int, p_primary: float,
               universe: tuple[vocab.Tag, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for _ in range(k * 4):
        if len(out) == k:
            break
        x = r.random()
        if x < p_primary:
            s = weighted(r, primary)
        elif x < p_primary + (1 - p_primary) * 0.6:
            s = weighted(r, secondary)
        else:
            s = r.choice(universe).slug
        if s not in out:
            out.append(s)
    return tuple(out)


def _catchcopy(r: random.Random, name_ja: str, mechs: tuple[str, ...], themes: tuple[str, ...]
               ) -> str | None:
    if r.random() < 0.15 or not mechs:
        return None
    m = vocab.MECHANICS[vocab.MECHANIC_INDEX[mechs[0]]]
    if themes:
        t = vocab.THEMES[vocab.THEME_INDEX[themes[0]]]
        if r.random() < 0.5:
            return f"{t.phrase}を舞台に、{m.phrase}で勝利を目指せ！"
        return f"{t.phrase}で繰り広げられる、{m.label}の傑作！"
    if len(mechs) > 1:
        m2 = vocab.MECHANICS[vocab.MECHANIC_INDEX[mechs[1]]]
        return f"{m.label}×{m2.label}の新感覚ゲーム！"
    return f"{name_ja}で{m.phrase}を楽しもう！"


def _overview(r: random.Random, g: GameSpec, cluster: vocab.Cluster) -> str:
    """Several sentences built from the game's mechanics and themes (text similarity signal)."""
    mlabels = [vocab.MECHANICS[vocab.MECHANIC_INDEX[m]].label for m in g.mechanics]
    if g.players is None:
        pp = ""
    elif g.players[0] == g.players[1]:
        pp = f"{g.players[0]}人で遊べる"
    else:
        pp = f"{g.players[0]}～{g.players[1]}人で遊べる"
    if mlabels:
        parts = [f"{g.name_ja}は、{pp}{'、'.join(mlabels[:3])}のゲームです。"]
    else:
        parts = [f"{g.name_ja}は、{pp}ボードゲームです。"]
    for t in g.themes:
        parts.append(vocab.THEMES[vocab.THEME_INDEX[t]].sentences[r.randrange(2)])
    for m in g.mechanics:
        tag = vocab.MECHANICS[vocab.MECHANIC_INDEX[m]]
        parts.append(tag.sentences[0])
        if r.random() < 0.5:
            parts.append(tag.sentences[1])
    parts.append(cluster.closing)
    if g.minutes is not None:
        parts.append(f"1回のプレイ時間は約{g.minutes[1]}分です。")
    return "".join(parts)


def game_specs(n: int, ss: np.random.SeedSequence) -> Specs:
    """The n games in id order (the newest last), each drawn from the `ss` streams."""
    rng, r = streams(ss)
    numeric = unique_ids(rng, n, 1000, 30000)
    cluster_p = rng.dirichlet(np.full(N_CLUSTERS, 8.0))
    clusters = rng.choice(N_CLUSTERS, size=n, p=cluster_p)
    second = (clusters + rng.integers(1, N_CLUSTERS, size=n)) % N_CLUSTERS
    weight = rng.uniform(0.75, 0.95, size=n)
    popularity = rng.lognormal(0.0, 1.3, size=n)
    quality = rng.normal(0.0, 0.5, size=n)
    n_cold = max(1, round(0.03 * n)) if n >= 20 else 0
    cold = np.zeros(n, dtype=bool)
    if n_cold:
        cold[n - n_cold:] = True  # the newest games (highest ids): nobody collected them yet
    popularity[cold] = 0.0
    rank = (np.arange(n) + 0.5) / n
    years = np.clip(np.round(1982 + 44 * rank ** 0.45 + rng.normal(0, 1.2, size=n)), 1970, 2026)
    years[cold] = 2026 - (rng.random(n_cold) < 0.3)

    designers, designers_by_cluster, designer_ids = designer_pool(n, rng, r)
    makers = maker_pool(n, rng, r)
    maker_ids = list(makers)

    # a handful of party games get joke upper bounds ("1人～65536人")
    n_absurd = max(2, round(0.003 * n)) if n >= 200 else (1 if n >= 50 else 0)
    party = [i for i in range(n) if vocab.CLUSTERS[clusters[i]].name == "party"] or list(range(n))
    absurd = {i: vocab.ABSURD_PLAYERS[k % len(vocab.ABSURD_PLAYERS)]
              for k, i in enumerate(r.sample(party, min(n_absurd, len(party))))}

    games: list[GameSpec] = []
    used_names: set[str] = set()
    used_slugs: set[str] = set()
    for i in range(n):
        c = vocab.CLUSTERS[int(clusters[i])]
        c2 = vocab.CLUSTERS[int(second[i])]
        k_m = 0 if r.random() < 0.03 else r.choices((1, 2, 3, 4), (0.15, 0.40, 0.30, 0.15))[0]
        mechs = _pick_tags(r, c.mechanics, c2.mechanics, k_m, 0.85, vocab.MECHANICS)
        k_t = r.choices((0, 1, 2, 3), (0.10, 0.55, 0.28, 0.07))[0]
        themes = _pick_tags(r, c.themes, c2.themes, k_t, 0.85, vocab.THEMES)

        # names (English decides the slug; a few games show no English name)
        for _attempt in range(8):
            if r.random() < 0.22:
                name_ja, name_en = japanese_original(r)
            else:
                name_en = english_words(r, themes, c)
                name_ja = katakana(name_en, r)
            if name_en not in used_names and slugify(name_en) not in used_slugs:
                break
        used_names.add(name_en)
        base = slugify(name_en)
        slug, k = base, 2
        while slug in used_slugs:
            slug, k = f"{base}-{k}", k + 1
        used_slugs.add(slug)
        name_en_shown = None if r.random() < 0.02 else name_en

        # specs
        players: tuple[int, int] | None = absurd.get(i) or r.choice(c.players)
        lo, hi = r.choice(c.minutes)
        if r.random() < 0.25:
            f = r.choice((0.5, 0.75, 1.5, 2.0))
            lo, hi = max(5, round(lo * f / 5) * 5), max(5, round(hi * f / 5) * 5)
        minutes: tuple[int, int] | None = (lo, hi)
        age: int | None = 20 if "alcohol" in themes else r.choice(c.ages)
        year: int | None = int(years[i])
        if i in absurd:  # keep the joke bounds visible, in ASCII digits
            pass
        elif r.random() < 0.01:  # everything missing, like yes-man-wo-sagase
            players = minutes = None
            age = year = None
        else:
            if r.random() < 0.03:
                players = None
            if r.random() < 0.04:
                minutes = None
            if r.random() < 0.06:
                age = None
            if r.random() < 0.05:
                year = None
        x = r.random()
        sign = "～" if x < 0.88 else ("〜" if x < 0.96 else "~")

        k_d = r.choices((0, 1, 2, 3), (0.05, 0.70, 0.21, 0.04))[0]
        dids: list[int] = []
        for _ in range(k_d * 3):
            if len(dids) == k_d:
                break
            pool = designers_by_cluster[int(clusters[i])]
            d = r.choice(pool) if pool and r.random() < 0.8 else r.choice(designer_ids)
            if d not in dids:
                dids.append(d)
        k_mk = r.choices((0, 1, 2), (0.10, 0.85, 0.05))[0]
        mids = r.sample(maker_ids, min(k_mk, len(maker_ids)))
        if players is None and minutes is None and age is None and year is None:
            image = NO_IMAGE
        elif r.random() < 0.08:
            image = NO_IMAGE
        else:
            ext = r.choice(("jpg", "jpg", "png", "webp", "jpeg"))
            image = f"{IMAGE_HOST}/picture_{uuid.UUID(int=r.getrandbits(128), version=4)}.{ext}"

        g = GameSpec(
            index=i, numeric_id=int(numeric[i]), cluster=int(clusters[i]), second=int(second[i]),
            weight=float(weight[i]), popularity=float(popularity[i]), cold=bool(cold[i]),
            quality=float(quality[i]), name_ja=name_ja, name_en_shown=name_en_shown, slug=slug,
            players=players, minutes=minutes, age=age, year=year, sign=sign,
            fullwidth=r.random() < 0.03 and i not in absurd, kara=r.random() < 0.10,
            age_missing_shown=r.random() < 0.8, mechanics=mechs, themes=themes,
            designers=tuple(Credit(d, designers[d]) for d in dids),
            makers=tuple(Credit(m, makers[m]) for m in mids),
            image_url=image, catchcopy=None, overview="",
        )
        g.catchcopy = _catchcopy(r, name_ja, mechs, themes)
        g.overview = _overview(r, g, c)
        games.append(g)

    taste = np.zeros((n, N_CLUSTERS), dtype=np.float32)
    taste[np.arange(n), clusters] = weight
    taste[np.arange(n), second] = 1.0 - weight
    return Specs(games, taste, popularity, cluster_p, designers, makers)

