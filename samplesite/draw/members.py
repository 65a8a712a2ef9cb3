"""Members and their collections: who they are, what they like, what they collected.

Why together: a member's taste and collection size are drawn first and decide the
collection draw (popularity × exp(β·affinity), then statuses and ratings), the bulk of
the site, vectorised with numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from samplesite.draw.common import N_CLUSTERS, NOW64, THREE_YEARS_S, streams, unique_ids
from samplesite.draw.games import Specs
from samplesite.draw.names import nickname
from samplesite.model import Collections

AFFINITY_BETA = 3.0  # how strongly taste (vs popularity) drives what members collect
MAX_COLLECTION = 400  # cap of one member's collection size


@dataclass(slots=True)
class Members:
    """Members as columns: ids, names, privacy, collection sizes and taste vectors."""

    user_ids: list[str]
    names: list[str]
    private: np.ndarray
    empty: np.ndarray
    sizes: np.ndarray  # collection size per member (0 for empty ones)
    taste: np.ndarray  # (n_users, K)



def member_specs(n: int, specs: Specs, ss: np.random.SeedSequence) -> Members:
    """n members: taste over clusters (drawn with the games' cluster shares), lognormal collection sizes,
    ~5% private and ~5% with an empty collection (at least one of each from 20 members)."""
    rng, r = streams(ss)
    ids = unique_ids(rng, n, 1, 99999)
    names = [nickname(r) for _ in range(n)]
    private = rng.random(n) < 0.05
    empty = (rng.random(n) < 0.053) & ~private
    if n >= 20:
        if not private.any():
            private[int(rng.integers(n))] = True
        if not empty.any():
            empty[int(np.flatnonzero(~private)[rng.integers((~private).sum())])] = True
    taste = draw_tastes(rng, n, specs.cluster_p)
    n_avail = int((specs.popularity > 0).sum())
    cap = min(MAX_COLLECTION, n_avail)
    sizes = np.clip(np.round(rng.lognormal(math.log(20), 1.0, size=n)), 1, max(cap, 0)).astype(np.int64)
    if cap == 0:
        sizes[:] = 0
    sizes[empty] = 0
    return Members([str(int(i)) for i in ids], names, private, empty, sizes, taste)


def draw_tastes(rng: np.random.Generator, n: int, cluster_p: np.ndarray) -> np.ndarray:
    """n members' taste vectors: a primary cluster drawn with the clusters' shares, a second one
    beside it (40% have none: all weight on the primary). Shared with the later nights' new members."""
    primary = rng.choice(N_CLUSTERS, size=n, p=cluster_p)
    secondary = (primary + rng.integers(1, N_CLUSTERS, size=n)) % N_CLUSTERS
    w1 = np.where(rng.random(n) < 0.4, 1.0, rng.uniform(0.55, 0.9, size=n))
    taste = np.zeros((n, N_CLUSTERS), dtype=np.float32)
    taste[np.arange(n), primary] = w1
    taste[np.arange(n), secondary] += 1.0 - w1
    return taste


def affinity_keys(member_taste: np.ndarray, game_taste: np.ndarray, logw: np.ndarray) -> np.ndarray:
    """log(popularity) + β·affinity for each (member, game): the log weight a member picks a game with.

    Why one function: the first night's collections and every later night's additions must mix
    taste and popularity the same way, or the nights would drift from the site they continue."""
    return (member_taste @ game_taste.T) * AFFINITY_BETA + logw


def card_statuses(aff: np.ndarray, quality: np.ndarray, u: np.ndarray, noise: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(have, played, favorite, watching, rating) of new cards from their affinity and the game's quality.

    `u` holds five uniforms per card and `noise` the rating noise (normal, σ 0.8); the caller
    draws them so that each night keeps its own stream. A member plays, favours and rates high
    what fits their taste; every card holds at least one status."""
    played = u[0] < 0.42 + 0.38 * aff
    have = u[1] < np.where(played, 0.55 + 0.2 * aff, 0.22)
    neither = ~played & ~have
    favorite = np.where(played, u[2] < 0.06 + 0.45 * aff, u[2] < 0.02)
    watching = neither & ~(favorite & (u[3] < 0.5))
    rated = u[4] < np.where(played, 0.75, 0.15)
    score = 2.3 + 2.5 * aff + quality + noise
    rating = np.where(rated, np.clip(np.round(score), 1, 5), 0).astype(np.int8)
    return have, played, favorite, watching, rating


def collections(specs: Specs, members: Members, ss: np.random.SeedSequence) -> Collections:
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
        keys = affinity_keys(members.taste[users], game_taste, logw)
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
    quality = np.array([g.quality for g in specs.games])[game] if e else np.zeros(0)
    have, played, favorite, watching, rating = card_statuses(aff, quality, u, rng.normal(0.0, 0.8, size=e))
    secs = (u[5] ** 1.6 * (THREE_YEARS_S - 120) + 60).astype(np.int64)

    order = np.lexsort((game, secs, member))  # member, then newest first, then game
    member, game, secs = member[order], game[order], secs[order]
    have, played, favorite, watching, rating = (a[order] for a in (have, played, favorite, watching, rating))
    stamps = NOW64 - secs.astype("timedelta64[s]")
    updated = np.char.add(np.datetime_as_string(stamps, unit="s"), "+09:00").astype("<U25")
    offsets = np.zeros(len(members.user_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(member, minlength=len(members.user_ids)), out=offsets[1:])
    return Collections(offsets=offsets, member=member, game=game, have=have, played=played,
                       favorite=favorite, watching=watching, rating=rating, updated_at=updated)

