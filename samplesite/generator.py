"""Deterministic generator of the sample site (games, members, collections, posts, cafes).

Why: no machine here reaches bodoge.hoobby.net, so spiders, the warehouse and the
recommender are developed against this generated site. It must (a) produce pages of the
real site's shape and text formats, (b) carry real recommendation signal (latent taste
clusters over mechanics/themes, long-tailed popularity, affinity-driven statuses and
ratings), and (c) be a pure function of its arguments: same arguments -> identical site,
byte-identical pages. Every random draw comes from generators derived from `seed`
(numpy SeedSequence children, one per component); the wall clock is never read.

Each component is drawn by its module in `samplesite.draw` (games, members and
collections, cafes, posts); this module draws the permanent faults, formats the spec
texts and assembles the frozen `Site`.

Bulk work (collections, ~160k entries for 5,000 members) is vectorised with numpy;
per-game text is built in plain Python loops over a few thousand games.
"""

from __future__ import annotations

import numpy as np

from samplesite import vocab
from samplesite.draw.cafes import draw_cafes
from samplesite.draw.common import first_below, iso, streams
from samplesite.draw.games import GameSpec, Specs, game_specs
from samplesite.draw.members import Members, collections, member_specs
from samplesite.draw.posts import PostSpec, post_specs
from samplesite.model import REFERENCE_NOW, Cafe, Collections, Game, Member, Post, Site, Taste

_FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


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

    specs = game_specs(n_games, s_games)
    members = member_specs(n_users, specs, s_members)
    coll = collections(specs, members, s_coll)
    cafes = draw_cafes(specs, s_cafes)
    posts = post_specs(specs, members, s_posts)
    malformed, broken_posts = _faults(specs, posts, s_faults) if faults else (set(), set())
    return _assemble(n_games, n_users, seed, faults, specs, members, coll, cafes, posts,
                     malformed, broken_posts)


# ---------------------------------------------------------------------------
# texts the pages show
# ---------------------------------------------------------------------------


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
    return first_below(days, (
        (1, lambda: f"約{max(1, int(seconds // 3600))}時間前"),
        (7, lambda: f"{int(days)}日前"),
        (30, lambda: f"約{int(days // 7)}週間前"),
        (365, lambda: f"約{max(1, int(days // 30))}ヶ月前"),
    ), lambda: "1年以上前")


# ---------------------------------------------------------------------------
# faults and assembly
# ---------------------------------------------------------------------------


def _faults(specs: Specs, posts: list[PostSpec], ss: np.random.SeedSequence
            ) -> tuple[set[int], set[int]]:
    """Permanent faults: ~0.5% malformed game pages (games without posts, so that no post
    becomes unreachable) and a couple of post pages that answer HTTP 500."""
    _, r = streams(ss)
    n = len(specs.games)
    n_bad = max(1, round(0.005 * n)) if n >= 50 else round(0.005 * n)
    with_posts = {p.game for p in posts}
    candidates = [g.index for g in specs.games if g.index not in with_posts
                  and (g.players is None or g.players[1] < 20)]  # keep joke bounds visible
    malformed = set(r.sample(candidates, min(n_bad, len(candidates))))
    n_broken = 2 if len(posts) >= 10 else (1 if len(posts) >= 3 else 0)
    broken = set(r.sample([p.post_id for p in posts], n_broken))
    return malformed, broken


def _spec_texts(g: GameSpec) -> dict[str, str | None]:
    lo, hi = g.minutes or (None, None)
    about = range_text(lo, hi, "分", g.sign, about=True, fullwidth=g.fullwidth)
    players_lo, players_hi = g.players or (None, None)
    age_list = None if g.age is None else f"{g.age}歳{g.sign}"
    if g.age is None:
        age_page = "未登録" if g.age_missing_shown else None
    else:
        age_page = f"{g.age}歳から" if g.kara else age_list
    return {
        "players_text": range_text(players_lo, players_hi, "人", g.sign, about=False,
                                   fullwidth=g.fullwidth),
        "playtime_text": about,
        "age_page_text": age_page,
        "age_list_text": age_list,
        "year_page_text": None if g.year is None else f"{g.year}年{g.sign}",
        "year_list_text": None if g.year is None else f"{g.year}年",
    }


def _assemble(n_games: int, n_users: int, seed: int, faults: bool, specs: Specs,
              members: Members, coll: Collections, cafes: list[Cafe], posts: list[PostSpec],
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
            published_at=iso(p.secs), age_label=age_label(p.secs), views=p.views, nice=p.nice,
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
        taste=Taste(games=specs.taste, members=members.taste,
                    quality=np.array([g.quality for g in specs.games], dtype=np.float64),
                    cluster_p=specs.cluster_p),
        game_by_slug={g.game_id: g.index for g in games},
        member_by_id={m.user_id: m.index for m in member_objs},
        post_by_id={p.post_id: i for i, p in enumerate(post_objs)},
        cafe_by_slug={c.slug: c.index for c in cafes},
        designer_games={k: tuple(v) for k, v in designer_games.items()},
        maker_games={k: tuple(v) for k, v in maker_games.items()},
    )
