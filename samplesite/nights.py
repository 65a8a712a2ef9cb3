"""The sample site night after night: a deterministic evolution of a generated site.

Why: the incremental crawl must be judged on a site that changes the way the
real one does between two nightly runs, with a ground truth for every night. Night 1 is
the generated site itself; night K is night K-1 plus one day of activity, drawn from a
seed derived from (site seed, K), so `site_on_night(site, K)` is a pure function and the
server and `truth_frames` of the same night always agree.

What happens in a day (shares of the members or games present that night):
- ~1% of the public members change their collection: add games, flip a status, change
  a rating, remove a game, add one and remove another, or clear everything. The games a
  member adds are drawn as the first night drew collections: by their own taste mixed with
  popularity, ∝ popularity × exp(β·affinity) without replacement among the games they do not
  hold, and the new card's statuses and rating follow that affinity and the game's quality
  as the first night's do (`samplesite.draw.members`). Every
  changed card gets a new `updated_at` (so it moves to the top of the 更新順 listing);
  a removal leaves no trace but the smaller count.
- ~0.5% new members join (a taste drawn as the first night's members' are, and a small
  collection drawn by it), ~0.2% of the public members turn
  private and about as many private ones turn public again.
- ~0.2% new games appear at the top of the catalogue (variants of existing games, with
  their taste; popularity 0, so nobody adds them), and one
  game nobody holds and without posts disappears (its page answers 404, and the cafes
  that offered it no longer list it; a game no cafe offers is preferred).
- Counters move: each game's four counters are recounted from every collection
  (private ones included, as the real site counts them), and a game page whose
  counters changed gets a new Last-Modified (`Site.game_modified`).
"""

from __future__ import annotations

import dataclasses
import random
from functools import lru_cache
from typing import Any

import numpy as np

from core.statuses import STATUSES
from samplesite.draw.common import NOW64, jst_iso
from samplesite.draw.members import affinity_keys, card_statuses, draw_tastes
from samplesite.draw.names import nickname
from samplesite.model import Collections, Game, Member, Site, Taste

DAY_S = 86400
CHANGE_SHARE = 0.01
NEW_MEMBER_SHARE = 0.005
PRIVACY_SHARE = 0.002
NEW_GAME_SHARE = 0.002
_ACTIONS = (("add", 0.3), ("flip", 0.2), ("rating", 0.15), ("remove", 0.15), ("swap", 0.12), ("clear", 0.08))


def night_now(night: int) -> np.datetime64:
    """The naive JST "now" of night K: the reference now plus K-1 days."""
    return NOW64 + np.timedelta64((night - 1) * DAY_S, "s")


def site_on_night(site: Site, night: int) -> Site:
    """The site as it stands on night `night` (1 = as generated); pure and cached."""
    if night < 1:
        raise ValueError(f"night must be at least 1, not {night}")
    if night == 1:
        return site
    return _cached(site, night)


@lru_cache(maxsize=8)
def _cached(site: Site, night: int) -> Site:
    return evolve(site_on_night(site, night - 1), night)


def _pick(r: random.Random, pool: list[int], share: float, n_total: int) -> list[int]:
    k = min(len(pool), max(1, round(share * n_total))) if pool else 0
    return sorted(r.sample(pool, k))


def evolve(site: Site, night: int) -> Site:
    """Night `night` from night `night - 1`'s site (see the module docstring)."""
    ss = np.random.SeedSequence([int(site.seed), 0x9A17, int(night)])
    r = random.Random(int(ss.generate_state(1, dtype=np.uint64)[0]))
    # The taste draws (which games, their statuses, new members' tastes) have their own stream.
    rng = np.random.default_rng(np.random.SeedSequence([int(site.seed), 0x9A17, int(night), 1]))
    now = night_now(night)
    # Tonight's updates, newest first: a minute before now, then 2 s apart (distinct, ordered).
    clock = (now - np.timedelta64(60 + 2 * i, "s") for i in range(DAY_S // 2 - 60))
    draw = _TasteDraw(site, rng)
    c = site.collections
    cards: dict[int, list[dict]] = {}  # member index -> its cards, rebuilt for changed members only

    def entries(mi: int) -> list[dict]:
        if mi not in cards:
            cards[mi] = [dict(game=int(c.game[row]), **{s: bool(getattr(c, s)[row]) for s in STATUSES},
                              rating=int(c.rating[row]), updated_at=str(c.updated_at[row]))
                         for row in c.rows(mi)] if mi < len(c.offsets) - 1 else []
        return cards[mi]

    def add_games(mi: int, k: int) -> None:
        entries(mi).extend(draw.cards(mi, [e["game"] for e in entries(mi)], k))

    def touch(e: dict) -> None:
        e["updated_at"] = "new"

    members = list(site.members)
    public = [m.index for m in members if not m.private]
    for mi in _pick(r, public, CHANGE_SHARE, len(members)):
        action = r.choices([a for a, _ in _ACTIONS], [w for _, w in _ACTIONS])[0]
        mine = entries(mi)
        if not mine:
            action = "add"
        if action == "add":
            add_games(mi, r.randint(1, 3))
        elif action in ("flip", "rating"):
            for e in r.sample(mine, min(len(mine), r.randint(1, 2))):
                if action == "flip":
                    s = r.choice(STATUSES)
                    e[s] = not e[s]
                    if not any(e[x] for x in STATUSES):
                        e["watching"] = True
                else:
                    e["rating"] = r.choice([x for x in range(6) if x != e["rating"]])
                touch(e)
        elif action in ("remove", "swap"):
            for e in r.sample(mine, min(len(mine), r.randint(1, 2))):
                mine.remove(e)
            if action == "swap":
                add_games(mi, 1)
        else:
            mine.clear()
        for e in mine:
            if e["updated_at"] in ("", "new"):
                e["updated_at"] = jst_iso(next(clock))

    flipped: dict[int, bool] = {}
    for mi in _pick(r, [i for i in public if i not in cards], PRIVACY_SHARE, len(members)):
        flipped[mi] = True
    for mi in _pick(r, [m.index for m in members if m.private], PRIVACY_SHARE, len(members)):
        flipped[mi] = False
    for mi, private in flipped.items():
        members[mi] = dataclasses.replace(members[mi], private=private)

    used_ids = {int(m.user_id) for m in members}
    next_id = max(used_ids) + 1
    n_new = max(1, round(NEW_MEMBER_SHARE * len(members)))
    draw.join(n_new)
    for _ in range(n_new):
        next_id += r.randint(1, 40)
        mi = len(members)
        members.append(Member(index=mi, user_id=str(next_id), name=nickname(r), private=False, n_boardgames=0))
        cards[mi] = []
        add_games(mi, min(30, max(1, int(r.lognormvariate(2.0, 0.8)))))
        for e in cards[mi]:
            e["updated_at"] = jst_iso(next(clock))

    games = list(site.games)
    new_games, bases = _new_games(site, r, night)
    games += new_games
    coll = _rebuild(c, cards, len(members))
    counts = {s: np.bincount(coll.game[getattr(coll, s)], minlength=len(games)) for s in STATUSES}
    held = np.bincount(coll.game, minlength=len(games))
    modified = dict(site.game_modified)
    stamp = jst_iso(now - np.timedelta64(DAY_S // 2, "s"))
    for g in games:
        new: dict[str, Any] = {f"n_{s}": int(counts[s][g.index]) for s in STATUSES}
        if any(getattr(g, k) != v for k, v in new.items()):
            games[g.index] = dataclasses.replace(g, **new)
            modified[g.index] = stamp
    for g in new_games:
        modified[g.index] = stamp
    in_cafes = {gi for cafe in site.cafes for gi in cafe.game_indices}
    live = site.catalogue_order  # games on the site tonight (gone ones are not listed)
    pool = [i for i in live if held[i] == 0 and not games[i].post_ids and not games[i].malformed]
    pool = [i for i in pool if i not in in_cafes] or pool  # rather one no cafe offers
    gone = {r.choice(pool)} if pool and len(live) >= 20 else set()
    cafes = tuple(dataclasses.replace(cf, game_indices=tuple(i for i in cf.game_indices if i not in gone))
                  for cf in site.cafes)
    sizes = np.diff(coll.offsets)
    members = [dataclasses.replace(m, n_boardgames=int(sizes[m.index])) if m.n_boardgames != sizes[m.index] else m
               for m in members]
    order = tuple(g.index for g in reversed(new_games)) + tuple(i for i in site.catalogue_order if i not in gone)
    return dataclasses.replace(
        site, now=jst_iso(now), games=tuple(games), catalogue_order=order, members=tuple(members),
        collections=coll, cafes=cafes, n_games=len(order), n_users=len(members), game_modified=modified,
        taste=draw.taste(bases),
        game_by_slug={g.game_id: g.index for g in games if g.index not in gone and g.index not in site.gone_games},
        member_by_id={m.user_id: m.index for m in members},
        gone_games=frozenset(site.gone_games) | frozenset(gone),
    )


class _TasteDraw:
    """What members add tonight, drawn by their taste as the first night's collections are.

    Why a class: the live games' log popularity and taste rows are gathered once per night,
    then each member's draw is one vector of keys over them (β·taste·game_taste + log
    popularity + Gumbel noise, top k = a weighted draw without replacement, exactly as
    `samplesite.draw.members.collections` draws night 1). Cold and new games (popularity 0)
    get -inf and are never drawn; nor is a game the member already holds.
    """

    def __init__(self, site: Site, rng: np.random.Generator) -> None:
        self.rng = rng
        self.t = site.taste
        self.members = site.taste.members
        self.live = np.asarray(site.catalogue_order, dtype=np.int64)  # gone games are not listed
        pop = np.array([max(site.games[i].popularity, 0.0) for i in self.live])
        with np.errstate(divide="ignore"):
            self.logw = np.log(pop)
        self.game_taste = site.taste.games[self.live]
        self.pos = np.full(len(site.games), -1, dtype=np.int64)  # game index -> position in live
        self.pos[self.live] = np.arange(self.live.size)

    def join(self, n: int) -> None:
        """Draw the tastes of `n` members who join tonight (they take the next member indices)."""
        self.members = np.concatenate([self.members, draw_tastes(self.rng, n, self.t.cluster_p)])

    def cards(self, mi: int, held: list[int], k: int) -> list[dict]:
        """Up to k new cards of member `mi` (games not in `held`), best-keyed first, `updated_at` unset."""
        keys = affinity_keys(self.members[mi], self.game_taste, self.logw) + self.rng.gumbel(size=self.live.size)
        at = self.pos[np.asarray(held, dtype=np.int64)] if held else np.zeros(0, np.int64)
        keys[at[at >= 0]] = -np.inf
        k = min(k, int(np.isfinite(keys).sum()))
        if k <= 0:
            return []
        top = np.argpartition(-keys, k - 1)[:k]
        top = top[np.argsort(-keys[top], kind="stable")]
        games = self.live[top]
        aff = (self.game_taste[top] @ self.members[mi]).astype(np.float64)
        status = card_statuses(aff, self.t.quality[games], self.rng.random((5, k)), self.rng.normal(0.0, 0.8, size=k))
        return [dict(game=int(g), have=bool(h), played=bool(p), favorite=bool(f), watching=bool(w),
                     rating=int(x), updated_at="") for g, h, p, f, w, x in zip(games, *status)]

    def taste(self, bases: list[int]) -> Taste:
        """Tonight's `Taste`: the joined members' rows, and each new game with its base game's."""
        at = np.asarray(bases, dtype=np.int64)
        return Taste(games=np.concatenate([self.t.games, self.t.games[at]]), members=self.members,
                     quality=np.concatenate([self.t.quality, self.t.quality[at]]), cluster_p=self.t.cluster_p)


def _new_games(site: Site, r: random.Random, night: int) -> tuple[list[Game], list[int]]:
    """New games of the night: variants of existing ones, at the top of the catalogue, held by nobody;
    with the index of the game each is a variant of (its taste and quality are the base's)."""
    base = [g for g in site.games if not g.malformed and g.game_id in site.game_by_slug]
    top = max(g.numeric_id for g in site.games)
    out: list[Game] = []
    bases: list[int] = []
    for k in range(max(1, round(NEW_GAME_SHARE * len(site.games)))):
        g = r.choice(base)
        bases.append(g.index)
        out.append(dataclasses.replace(
            g, index=len(site.games) + k, game_id=f"{g.game_id}-n{night}x{k}", numeric_id=top + 1 + k,
            name_ja=f"{g.name_ja} 新版", name_en=f"{g.name_en} New Edition" if g.name_en else None,
            n_watching=0, n_played=0, n_favorite=0, n_have=0, post_ids=(), cafe_slugs=(), popularity=0.0))
    return out, bases


def _rebuild(c: Collections, cards: dict[int, list[dict]], n_members: int) -> Collections:
    """Collections with the changed members' cards replaced, grouped by member, newest first."""
    changed = np.zeros(n_members, dtype=bool)
    changed[list(cards)] = True
    keep = ~changed[c.member] if len(c) else np.zeros(0, dtype=bool)
    rows = [e | {"member": mi} for mi, es in cards.items() for e in es]
    cols = {
        "member": np.concatenate([c.member[keep], np.array([e["member"] for e in rows], np.int32)]),
        "game": np.concatenate([c.game[keep], np.array([e["game"] for e in rows], np.int32)]),
        **{s: np.concatenate([getattr(c, s)[keep], np.array([e[s] for e in rows], bool)]) for s in STATUSES},
        "rating": np.concatenate([c.rating[keep], np.array([e["rating"] for e in rows], np.int8)]),
        "updated_at": np.concatenate([c.updated_at[keep], np.array([e["updated_at"] for e in rows], "<U25")]),
    }
    secs = cols["updated_at"].astype("<U19").astype("datetime64[s]").astype(np.int64)
    order = np.lexsort((cols["game"], -secs, cols["member"]))
    cols = {k: v[order] for k, v in cols.items()}
    offsets = np.zeros(n_members + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols["member"], minlength=n_members), out=offsets[1:])
    return Collections(offsets=offsets, **cols)
