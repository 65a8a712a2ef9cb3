"""Deterministic generator of the sample site (games, members, collections, posts, cafes).

Why: no machine here reaches bodoge.hoobby.net, so spiders, the warehouse and the
recommender are developed against this generated site. It must (a) produce pages of the
real site's shape and text formats, (b) carry real recommendation signal (latent taste
clusters over mechanics/themes, long-tailed popularity, affinity-driven statuses and
ratings), and (c) be a pure function of its arguments: same arguments -> identical site,
byte-identical pages. Every random draw comes from generators derived from `seed`
(numpy SeedSequence children, one per component); the wall clock is never read.

Bulk work (collections, ~160k entries for 5,000 members) is vectorised with numpy;
per-game text is built in plain Python loops over a few thousand games.
"""

from __future__ import annotations

import math
import random
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from samplesite import vocab
from samplesite.model import (
    IMAGE_HOST,
    NO_IMAGE,
    REFERENCE_NOW,
    Cafe,
    Collections,
    Credit,
    Game,
    Member,
    Post,
    Site,
)

N_CLUSTERS = len(vocab.CLUSTERS)
AFFINITY_BETA = 3.0  # how strongly taste (vs popularity) drives what members collect
MAX_COLLECTION = 400  # cap of one member's collection size
THREE_YEARS_S = 3 * 365 * 86400
_NOW64 = np.datetime64(REFERENCE_NOW[:19], "s")  # naive JST wall time of the reference "now"

_FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
_SLUG_DROP = {"of", "the"}


def generate_site(*, n_games: int, n_users: int, seed: int = 0, faults: bool = True) -> Site:
    """Generate the whole site; a pure function of its arguments.

    `faults=True` adds the permanent faults (malformed game pages, HTTP 500 posts); the
    transient ones (503/429 on a first request) are the server's business, see faults.py.
    """
    if n_games < 1 or n_users < 1:
        raise ValueError("n_games and n_users must be >= 1")
    if seed < 0:
        raise ValueError("seed must be >= 0")
    root = np.random.SeedSequence([int(seed), 0xB0D06E])
    s_games, s_members, s_coll, s_cafes, s_posts, s_faults = root.spawn(6)

    specs = _game_specs(n_games, s_games)
    members = _member_specs(n_users, specs, s_members)
    coll = _collections(specs, members, s_coll)
    cafes = _cafes(specs, s_cafes)
    posts = _posts(specs, members, s_posts)
    malformed, broken_posts = _faults(specs, posts, s_faults) if faults else (set(), set())
    return _assemble(n_games, n_users, seed, faults, specs, members, coll, cafes, posts,
                     malformed, broken_posts)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _streams(ss: np.random.SeedSequence) -> tuple[np.random.Generator, random.Random]:
    """A numpy generator for bulk draws and a Random for cheap scalar picks, both from `ss`."""
    state = ss.generate_state(2, dtype=np.uint64)
    return np.random.default_rng(ss), random.Random(int(state[0]) ^ (int(state[1]) << 64))


def _weighted(r: random.Random, items: tuple[tuple[str, float], ...]) -> str:
    total = sum(w for _, w in items)
    x = r.random() * total
    for name, w in items:
        x -= w
        if x < 0:
            return name
    return items[-1][0]


def slugify(name: str) -> str:
    """URL slug of an English name: ASCII letters/digits only, 'of'/'the' dropped.

    Mirrors the real site ("Khôra: Rise of an Empire" -> "khra-rise-an-empire").
    """
    words = re.split(r"[^a-z0-9]+", "".join(c for c in name.lower() if c.isascii()))
    words = [w for w in words if w and w not in _SLUG_DROP]
    return "-".join(words) or "game"


def range_text(lo: int | None, hi: int | None, unit: str, sign: str, *, about: bool,
               fullwidth: bool = False) -> str | None:
    """`2人～4人`, `2人`, `10分前後` (about=True when lo == hi), or None when missing."""
    if lo is None or hi is None:
        return None
    if lo == hi:
        text = f"{lo}{unit}前後" if about else f"{lo}{unit}"
    else:
        text = f"{lo}{unit}{sign}{hi}{unit}"
    return text.translate(_FULLWIDTH) if fullwidth else text


def age_label(seconds: int) -> str:
    """The relative date the site shows next to posts ("約1ヶ月前", "1年以上前")."""
    days = seconds / 86400
    if days < 1:
        return f"約{max(1, int(seconds // 3600))}時間前"
    if days < 7:
        return f"{int(days)}日前"
    if days < 30:
        return f"約{int(days // 7)}週間前"
    if days < 365:
        return f"約{max(1, int(days // 30))}ヶ月前"
    return "1年以上前"


def _iso(seconds_before_now: int) -> str:
    t = _NOW64 - np.timedelta64(int(seconds_before_now), "s")
    return f"{np.datetime_as_string(t, unit='s')}+09:00"


# ---------------------------------------------------------------------------
# games
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _GameSpec:
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
class _Specs:
    games: list[_GameSpec]
    taste: np.ndarray  # (n_games, K) float32, rows sum to 1
    popularity: np.ndarray
    cluster_p: np.ndarray
    designers: dict[int, str]
    makers: dict[int, str]


def _unique_ids(rng: np.random.Generator, n: int, lo: int, span: int) -> np.ndarray:
    return np.sort(rng.choice(np.arange(lo, lo + max(span, 3 * n)), size=n, replace=False))


def _unique_labels(n: int, make: Callable[[], str], fallback: Callable[[int], str]) -> list[str]:
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


def _designer_pool(n_games: int, rng: np.random.Generator, r: random.Random
                   ) -> tuple[dict[int, str], list[list[int]], list[int]]:
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

    ids = _unique_ids(rng, n, 100, 6000)
    labels = _unique_labels(n, make, fallback)
    pool = {int(i): lab for i, lab in zip(ids, labels)}
    by_cluster: list[list[int]] = [[] for _ in range(N_CLUSTERS)]
    for i in ids:
        by_cluster[r.randrange(N_CLUSTERS)].append(int(i))
    return pool, by_cluster, [int(i) for i in ids]


def _maker_pool(n_games: int, rng: np.random.Generator, r: random.Random) -> dict[int, str]:
    n = min(max(6, n_games // 30), 2000)

    def make() -> str:
        word = r.choice(vocab.MAKER_WORDS)
        x = r.random()
        if x < 0.45:
            return f"{word} {r.choice(vocab.MAKER_SUFFIXES_EN)}"
        if x < 0.7:
            return f"{word} {r.choice(vocab.MAKER_WORDS)} {r.choice(vocab.MAKER_SUFFIXES_EN)}"
        kana = vocab.NAME_WORDS.get(word) or vocab.NAME_WORDS[r.choice(vocab.NAME_WORD_LIST)]
        return f"{kana}{r.choice(vocab.MAKER_SUFFIXES_JA)}"

    ids = _unique_ids(rng, n, 1, 900)
    labels = _unique_labels(n, make, lambda k: f"{vocab.MAKER_WORDS[k % 25]} Games {k}")
    return {int(i): lab for i, lab in zip(ids, labels)}


def _english_words(r: random.Random, themes: tuple[str, ...], cluster: vocab.Cluster) -> str:
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

    p = r.random()
    if p < 0.22:
        return word()
    if p < 0.65:
        return f"{word()} {word()}"
    if p < 0.75:
        return f"The {word()}"
    if p < 0.85:
        return f"{word()} of {word()}"
    if p < 0.95:
        return f"{word()}: {word()} {word()}"
    return f"{word()} {word()}!"


def _katakana(english: str, r: random.Random) -> str:
    """Japanese title of a transliterated name: "Sky Team" -> "スカイチーム"."""
    joiner = "" if r.random() < 0.5 else "・"
    if ": " in english:
        head, tail = english.split(": ", 1)
        return f"{_katakana(head, r)}：{'・'.join(vocab.NAME_WORDS[w] for w in tail.split())}"
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


def _japanese_original(r: random.Random) -> tuple[str, str]:
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


def _pick_tags(r: random.Random, primary: tuple[tuple[str, float], ...],
               secondary: tuple[tuple[str, float], ...], k: int, p_primary: float,
               universe: tuple[vocab.Tag, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for _ in range(k * 4):
        if len(out) == k:
            break
        x = r.random()
        if x < p_primary:
            s = _weighted(r, primary)
        elif x < p_primary + (1 - p_primary) * 0.6:
            s = _weighted(r, secondary)
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


def _overview(r: random.Random, g: _GameSpec, cluster: vocab.Cluster) -> str:
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


def _game_specs(n: int, ss: np.random.SeedSequence) -> _Specs:
    rng, r = _streams(ss)
    numeric = _unique_ids(rng, n, 1000, 30000)
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

    designers, designers_by_cluster, designer_ids = _designer_pool(n, rng, r)
    makers = _maker_pool(n, rng, r)
    maker_ids = list(makers)

    # a handful of party games get joke upper bounds ("1人～65536人")
    n_absurd = max(2, round(0.003 * n)) if n >= 200 else (1 if n >= 50 else 0)
    party = [i for i in range(n) if vocab.CLUSTERS[clusters[i]].name == "party"] or list(range(n))
    absurd = {i: vocab.ABSURD_PLAYERS[k % len(vocab.ABSURD_PLAYERS)]
              for k, i in enumerate(r.sample(party, min(n_absurd, len(party))))}

    games: list[_GameSpec] = []
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
                name_ja, name_en = _japanese_original(r)
            else:
                name_en = _english_words(r, themes, c)
                name_ja = _katakana(name_en, r)
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
        players = absurd.get(i) or r.choice(c.players)
        lo, hi = r.choice(c.minutes)
        if r.random() < 0.25:
            f = r.choice((0.5, 0.75, 1.5, 2.0))
            lo, hi = max(5, round(lo * f / 5) * 5), max(5, round(hi * f / 5) * 5)
        minutes = (lo, hi)
        age: int | None = 20 if "alcohol" in themes else r.choice(c.ages)
        year: int | None = int(years[i])
        if i in absurd:  # keep the joke bounds visible, in ASCII digits
            pass
        elif r.random() < 0.01:  # everything missing, like yes-man-wo-sagase
            players = minutes = None  # type: ignore[assignment]
            age = year = None
        else:
            if r.random() < 0.03:
                players = None  # type: ignore[assignment]
            if r.random() < 0.04:
                minutes = None  # type: ignore[assignment]
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

        g = _GameSpec(
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
    return _Specs(games, taste, popularity, cluster_p, designers, makers)


# ---------------------------------------------------------------------------
# members
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Members:
    user_ids: list[str]
    names: list[str]
    private: np.ndarray
    empty: np.ndarray
    sizes: np.ndarray  # collection size per member (0 for empty ones)
    taste: np.ndarray  # (n_users, K)


def _nickname(r: random.Random) -> str:
    p = r.random()
    if p < 0.45:
        w = r.choice(vocab.NICK_WORDS)
        q = r.random()
        if q < 0.35:
            return f"{r.choice(vocab.NICK_PREFIXES)}{w}"
        if q < 0.7:
            return f"{w}{r.choice(vocab.NICK_SUFFIXES)}"
        if q < 0.85:
            return f"{w}{r.randint(1, 999)}"
        return w
    if p < 0.85:
        h = "".join(r.choice(vocab.ROMAJI_SYLLABLES) for _ in range(r.randint(2, 3)))
        if r.random() < 0.3:
            h = h.capitalize()
        return h + r.choice(vocab.HANDLE_SUFFIXES)
    return f"{r.choice(vocab.HANDLE_WORDS)}{r.choice(vocab.HANDLE_SUFFIXES)}{r.randint(1, 99)}"


def _member_specs(n: int, specs: _Specs, ss: np.random.SeedSequence) -> _Members:
    rng, r = _streams(ss)
    ids = _unique_ids(rng, n, 1, 99999)
    names = [_nickname(r) for _ in range(n)]
    private = rng.random(n) < 0.05
    empty = (rng.random(n) < 0.053) & ~private
    if n >= 20:
        if not private.any():
            private[int(rng.integers(n))] = True
        if not empty.any():
            empty[int(np.flatnonzero(~private)[rng.integers((~private).sum())])] = True
    primary = rng.choice(N_CLUSTERS, size=n, p=specs.cluster_p)
    secondary = (primary + rng.integers(1, N_CLUSTERS, size=n)) % N_CLUSTERS
    w1 = np.where(rng.random(n) < 0.4, 1.0, rng.uniform(0.55, 0.9, size=n))
    taste = np.zeros((n, N_CLUSTERS), dtype=np.float32)
    taste[np.arange(n), primary] = w1
    taste[np.arange(n), secondary] += 1.0 - w1
    n_avail = int((specs.popularity > 0).sum())
    cap = min(MAX_COLLECTION, n_avail)
    sizes = np.clip(np.round(rng.lognormal(math.log(20), 1.0, size=n)), 1, max(cap, 0)).astype(np.int64)
    if cap == 0:
        sizes[:] = 0
    sizes[empty] = 0
    return _Members([str(int(i)) for i in ids], names, private, empty, sizes, taste)


# ---------------------------------------------------------------------------
# collections
# ---------------------------------------------------------------------------


def _collections(specs: _Specs, members: _Members, ss: np.random.SeedSequence) -> Collections:
    """Choose each member's games ∝ popularity × exp(β·affinity), then their statuses."""
    rng = np.random.default_rng(ss)
    n_games = len(specs.games)
    with np.errstate(divide="ignore"):
        logw = np.log(specs.popularity)  # -inf for cold games: never chosen
    game_taste = specs.taste
    sizes = members.sizes
    active = np.flatnonzero(sizes > 0)
    batch = max(1, 4_000_000 // n_games)
    mem_parts: list[np.ndarray] = []
    game_parts: list[np.ndarray] = []
    for start in range(0, active.size, batch):
        users = active[start:start + batch]
        keys = (members.taste[users] @ game_taste.T) * AFFINITY_BETA + logw
        keys += rng.gumbel(size=keys.shape)  # Gumbel top-k = weighted sampling w/o replacement
        k = int(sizes[users].max())
        top = np.argpartition(-keys, k - 1, axis=1)[:, :k] if k < n_games else \
            np.tile(np.arange(n_games), (users.size, 1))
        order = np.argsort(-np.take_along_axis(keys, top, axis=1), axis=1, kind="stable")
        top = np.take_along_axis(top, order, axis=1)
        take = np.arange(k)[None, :] < sizes[users][:, None]
        game_parts.append(top[take].astype(np.int32))
        mem_parts.append(np.repeat(users, sizes[users]).astype(np.int32))
    member = np.concatenate(mem_parts) if mem_parts else np.zeros(0, np.int32)
    game = np.concatenate(game_parts) if game_parts else np.zeros(0, np.int32)
    e = member.size

    aff = np.einsum("ij,ij->i", members.taste[member], game_taste[game]).astype(np.float64)
    u = rng.random((6, e))
    played = u[0] < 0.42 + 0.38 * aff
    have = u[1] < np.where(played, 0.55 + 0.2 * aff, 0.22)
    neither = ~played & ~have
    favorite = np.where(played, u[2] < 0.06 + 0.45 * aff, u[2] < 0.02)
    watching = neither & ~(favorite & (u[3] < 0.5))
    rated = u[4] < np.where(played, 0.75, 0.15)
    quality = np.array([g.quality for g in specs.games])[game] if e else np.zeros(0)
    score = 2.3 + 2.5 * aff + quality + rng.normal(0.0, 0.8, size=e)
    rating = np.where(rated, np.clip(np.round(score), 1, 5), 0).astype(np.int8)
    secs = (u[5] ** 1.6 * (THREE_YEARS_S - 120) + 60).astype(np.int64)

    order = np.lexsort((game, secs, member))  # member, then newest first, then game
    member, game, secs = member[order], game[order], secs[order]
    have, played, favorite, watching, rating = (a[order] for a in (have, played, favorite, watching, rating))
    stamps = _NOW64 - secs.astype("timedelta64[s]")
    updated = np.char.add(np.datetime_as_string(stamps, unit="s"), "+09:00").astype("<U25")
    offsets = np.zeros(len(members.user_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(member, minlength=len(members.user_ids)), out=offsets[1:])
    return Collections(offsets=offsets, member=member, game=game, have=have, played=played,
                       favorite=favorite, watching=watching, rating=rating, updated_at=updated)


# ---------------------------------------------------------------------------
# cafes
# ---------------------------------------------------------------------------


def _cafes(specs: _Specs, ss: np.random.SeedSequence) -> list[Cafe]:
    rng, r = _streams(ss)
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
        chosen = sorted((int(g) for g in chosen), reverse=True)  # catalogue order (newest first)
        cafes.append(Cafe(index=len(cafes), slug=slug, name=name, address=address,
                          hours=r.choice(vocab.CAFE_HOURS), game_indices=tuple(chosen)))
    return cafes


# ---------------------------------------------------------------------------
# posts
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _PostSpec:
    post_id: int
    kind: str
    game: int
    author: int
    secs: int
    views: int
    nice: int
    title_suffix: str
    sections: tuple[tuple[str, str], ...]


def _rule_sections(r: random.Random, g: _GameSpec) -> tuple[tuple[str, str], ...]:
    intro = g.overview.split("。")
    summary = "。".join(intro[:2]) + "。"
    setup = "".join(r.sample(vocab.SETUP_SENTENCES, 3))
    if g.players is not None and g.players[0] != g.players[1]:
        setup += f"このゲームは{g.players[0]}人から{g.players[1]}人まで遊べます。"
    play = "".join(vocab.MECHANICS[vocab.MECHANIC_INDEX[m]].sentences[0] for m in g.mechanics) \
        or "手番では1つのアクションを選んで実行します。"
    return (("概要", summary), ("セットアップ", setup), ("ゲームプレイ", play),
            ("スコアリング", r.choice(vocab.ENDING_SENTENCES)))


def _review(r: random.Random, g: _GameSpec) -> tuple[str, tuple[tuple[str, str], ...]]:
    mech = vocab.MECHANICS[vocab.MECHANIC_INDEX[g.mechanics[0]]].label if g.mechanics else "駆け引き"
    theme = vocab.THEMES[vocab.THEME_INDEX[g.themes[0]]].label if g.themes else "ボードゲーム"
    players = f"{g.players[0]}人" if g.players else "少人数"
    title = r.choice(vocab.REVIEW_TITLES).format(mech=mech, theme=theme, players=players)
    body = g.overview.split("。")[0] + "。"
    sections = (
        ("概要", body),
        ("良かった点", "".join(r.sample(vocab.REVIEW_GOOD, 2)) + f"特に{mech}の部分が印象に残りました。"),
        ("気になった点", r.choice(vocab.REVIEW_BAD)),
        ("まとめ", f"{theme}や{mech}が好きな人にはぜひ遊んでほしい作品です。"),
    )
    return title, sections


def _posts(specs: _Specs, members: _Members, ss: np.random.SeedSequence) -> list[_PostSpec]:
    rng, r = _streams(ss)
    n_users = len(members.user_ids)
    weights = (members.sizes + 1.0) ** 0.7
    weights /= weights.sum()
    drafts: list[tuple[str, int]] = []
    for g in specs.games:
        if r.random() < 0.30:
            drafts.extend(("rule", g.index) for _ in range(r.choices((1, 2, 3), (0.8, 0.15, 0.05))[0]))
        if r.random() < 0.15:
            drafts.extend(("review", g.index) for _ in range(r.choices((1, 2), (0.85, 0.15))[0]))
    n = len(drafts)
    ids = rng.permutation(_unique_ids(rng, n, 10000, 90000)) if n else np.zeros(0, np.int64)
    authors = rng.choice(n_users, size=n, p=weights) if n else np.zeros(0, np.int64)
    secs = (rng.random(n) ** 1.3 * (THREE_YEARS_S - 7200) + 3600).astype(np.int64)
    views = np.round(rng.lognormal(4.0, 1.0, size=n)).astype(np.int64)
    nice = rng.poisson(2.0, size=n)
    out: list[_PostSpec] = []
    for k, (kind, gi) in enumerate(drafts):
        g = specs.games[gi]
        a = int(authors[k])
        if kind == "rule":
            suffix, sections = f"{members.names[a]}さんのルール/インスト", _rule_sections(r, g)
        else:
            suffix, sections = _review(r, g)
        out.append(_PostSpec(int(ids[k]), kind, gi, a, int(secs[k]), int(views[k]), int(nice[k]),
                             suffix, sections))
    return out


# ---------------------------------------------------------------------------
# faults and assembly
# ---------------------------------------------------------------------------


def _faults(specs: _Specs, posts: list[_PostSpec], ss: np.random.SeedSequence
            ) -> tuple[set[int], set[int]]:
    """Permanent faults: ~0.5% malformed game pages (games without posts, so that no post
    becomes unreachable) and a couple of post pages that answer HTTP 500."""
    _, r = _streams(ss)
    n = len(specs.games)
    n_bad = max(1, round(0.005 * n)) if n >= 50 else round(0.005 * n)
    with_posts = {p.game for p in posts}
    candidates = [g.index for g in specs.games if g.index not in with_posts
                  and (g.players is None or g.players[1] < 20)]  # keep joke bounds visible
    malformed = set(r.sample(candidates, min(n_bad, len(candidates))))
    n_broken = 2 if len(posts) >= 10 else (1 if len(posts) >= 3 else 0)
    broken = set(r.sample([p.post_id for p in posts], n_broken))
    return malformed, broken


def _spec_texts(g: _GameSpec) -> dict[str, str | None]:
    about = range_text(*(g.minutes or (None, None)), "分", g.sign, about=True, fullwidth=g.fullwidth)
    age_list = None if g.age is None else f"{g.age}歳{g.sign}"
    if g.age is None:
        age_page = "未登録" if g.age_missing_shown else None
    else:
        age_page = f"{g.age}歳から" if g.kara else age_list
    return {
        "players_text": range_text(*(g.players or (None, None)), "人", g.sign, about=False,
                                   fullwidth=g.fullwidth),
        "playtime_text": about,
        "age_page_text": age_page,
        "age_list_text": age_list,
        "year_page_text": None if g.year is None else f"{g.year}年{g.sign}",
        "year_list_text": None if g.year is None else f"{g.year}年",
    }


def _assemble(n_games: int, n_users: int, seed: int, faults: bool, specs: _Specs,
              members: _Members, coll: Collections, cafes: list[Cafe], posts: list[_PostSpec],
              malformed: set[int], broken_posts: set[int]) -> Site:
    counts = {s: np.bincount(coll.game[getattr(coll, s)], minlength=n_games)
              for s in ("watching", "played", "favorite", "have")}
    member_objs = tuple(
        Member(index=i, user_id=members.user_ids[i], name=members.names[i],
               private=bool(members.private[i]), n_boardgames=int(members.sizes[i]))
        for i in range(n_users))
    post_objs: list[Post] = []
    game_posts: list[list[tuple[int, int]]] = [[] for _ in range(n_games)]
    for p in posts:
        g = specs.games[p.game]
        author = member_objs[p.author]
        post_objs.append(Post(
            post_id=p.post_id, kind=p.kind, game_index=p.game, game_id=g.slug,
            author_index=p.author, author_user_id=author.user_id, author_name=author.name,
            title=f"{g.name_ja} {p.title_suffix}", title_suffix=p.title_suffix,
            published_at=_iso(p.secs), age_label=age_label(p.secs), views=p.views, nice=p.nice,
            sections=p.sections, http500=p.post_id in broken_posts))
        game_posts[p.game].append((p.secs, p.post_id))
    game_cafes: list[list[str]] = [[] for _ in range(n_games)]
    for c in cafes:
        for gi in c.game_indices:
            game_cafes[gi].append(c.slug)

    games: list[Game] = []
    designer_games: dict[int, list[int]] = {d: [] for d in specs.designers}
    maker_games: dict[int, list[int]] = {m: [] for m in specs.makers}
    for g in specs.games:
        pl = g.players or (None, None)
        mn = g.minutes or (None, None)
        for d in g.designers:
            designer_games[d.ref_id].append(g.index)
        for m in g.makers:
            maker_games[m.ref_id].append(g.index)
        games.append(Game(
            index=g.index, game_id=g.slug, numeric_id=g.numeric_id, name_ja=g.name_ja,
            name_en=g.name_en_shown, min_players=pl[0], max_players=pl[1],
            min_minutes=mn[0], max_minutes=mn[1], min_age=g.age, year=g.year,
            **_spec_texts(g), image_url=g.image_url, catchcopy=g.catchcopy, overview=g.overview,
            designers=g.designers, makers=g.makers, mechanics=g.mechanics, themes=g.themes,
            mechanic_labels=tuple(vocab.MECHANICS[vocab.MECHANIC_INDEX[m]].label for m in g.mechanics),
            theme_labels=tuple(vocab.THEMES[vocab.THEME_INDEX[t]].label for t in g.themes),
            cluster=g.cluster, popularity=g.popularity,
            n_watching=int(counts["watching"][g.index]), n_played=int(counts["played"][g.index]),
            n_favorite=int(counts["favorite"][g.index]), n_have=int(counts["have"][g.index]),
            malformed=g.index in malformed,
            post_ids=tuple(pid for _, pid in sorted(game_posts[g.index])),
            cafe_slugs=tuple(game_cafes[g.index]),
        ))
    return Site(
        seed=seed, n_games=n_games, n_users=n_users, faults=faults, now=REFERENCE_NOW,
        games=tuple(games), catalogue_order=tuple(range(n_games - 1, -1, -1)),
        members=member_objs, collections=coll, posts=tuple(post_objs), cafes=tuple(cafes),
        designers=dict(specs.designers), makers=dict(specs.makers),
        game_by_slug={g.game_id: g.index for g in games},
        member_by_id={m.user_id: m.index for m in member_objs},
        post_by_id={p.post_id: i for i, p in enumerate(post_objs)},
        cafe_by_slug={c.slug: c.index for c in cafes},
        designer_games={k: tuple(v) for k, v in designer_games.items()},
        maker_games={k: tuple(v) for k, v in maker_games.items()},
    )
