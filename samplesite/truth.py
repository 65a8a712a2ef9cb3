"""Ground truth: what a perfect crawl of a sample site must find.

Why: crawler, warehouse and recommender tests compare what they extracted with these
frames. Values are what the pages *mean* (`10分前後` -> 10/10, `未登録` -> null),
labels are exactly as the pages show them (names keep an ideographic space U+3000 and
full-width characters as written), and pages broken on purpose are listed in
`quarantine` and left out of `games` / `posts`. A cut page (reason `truncated`, see
faults.py) gives nothing: a cut game is left out of `games`, a member whose collection
page is cut has no `collections` rows, as a first crawl finds them; a crawl over a
warehouse that already holds them must keep them as they were. Transient faults change
nothing here.

Frames and columns:
- games: game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes,
  min_age, year, n_watching, n_played, n_favorite, n_have, designers, mechanics, themes, url
- collections: user_id, game_id, have, played, favorite, watching, rating, updated_at
  (public members only, none whose collection page is cut; rating null where the page shows 0)
- members: user_id, name (every non-private member of the directory whose collection page
  1 could be read: a cut one leaves the member unknown)
- private_users: user_id; empty_users: user_id (public members with no entries)
- posts: post_id, game_id, post_kind, author_user_id, title, published_at
- cafes: space_slug, space_name; cafe_games: space_slug, game_id, space_name
- quarantine: url, reason
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from samplesite.faults import cut_collections, cut_games, permanent_faults
from samplesite.model import Site

GAMES_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "game_id": pl.Utf8, "name_ja": pl.Utf8, "name_en": pl.Utf8,
    "min_players": pl.Int64, "max_players": pl.Int64, "min_minutes": pl.Int64,
    "max_minutes": pl.Int64, "min_age": pl.Int64, "year": pl.Int64,
    "n_watching": pl.Int64, "n_played": pl.Int64, "n_favorite": pl.Int64, "n_have": pl.Int64,
    "designers": pl.List(pl.Utf8), "mechanics": pl.List(pl.Utf8), "themes": pl.List(pl.Utf8),
    "url": pl.Utf8,
}


def _games(site: Site) -> pl.DataFrame:
    cut = cut_games(site)
    rows = [
        {
            "game_id": g.game_id, "name_ja": g.name_ja, "name_en": g.name_en,
            "min_players": g.min_players, "max_players": g.max_players,
            "min_minutes": g.min_minutes, "max_minutes": g.max_minutes,
            "min_age": g.min_age, "year": g.year,
            "n_watching": g.n_watching, "n_played": g.n_played,
            "n_favorite": g.n_favorite, "n_have": g.n_have,
            "designers": [d.label for d in g.designers],
            "mechanics": list(g.mechanic_labels), "themes": list(g.theme_labels),
            "url": g.url,
        }
        for g in (site.games[i] for i in site.catalogue_order)
        if not g.malformed and g.index not in cut
    ]
    return pl.DataFrame(rows, schema=GAMES_SCHEMA)


def _collections(site: Site) -> pl.DataFrame:
    c = site.collections
    cut = cut_collections(site)
    hidden = np.array([m.private or m.index in cut for m in site.members], dtype=bool)
    keep = ~hidden[c.member] if len(c) else np.zeros(0, dtype=bool)
    user_ids = np.array([m.user_id for m in site.members], dtype=object)
    game_ids = np.array([g.game_id for g in site.games], dtype=object)
    rating = c.rating[keep].astype(np.int64)
    return pl.DataFrame({
        "user_id": pl.Series(user_ids[c.member[keep]], dtype=pl.Utf8),
        "game_id": pl.Series(game_ids[c.game[keep]], dtype=pl.Utf8),
        "have": c.have[keep], "played": c.played[keep],
        "favorite": c.favorite[keep], "watching": c.watching[keep],
        "rating": pl.Series(rating, dtype=pl.Int64).replace(0, None),
        "updated_at": pl.Series(c.updated_at[keep].astype(object), dtype=pl.Utf8),
    })


def truth_frames(site: Site) -> dict[str, pl.DataFrame]:
    """All ground-truth frames of the site, by name (see the module docstring)."""
    public = [m for m in site.members if not m.private]
    # A directory row is kept only once the member's collection is known not private, so a
    # member whose collection page 1 is cut stays unknown (on a first crawl: absent).
    cut = cut_collections(site)
    readable = [m for m in public if m.index not in cut]
    posts = [p for p in site.posts if not p.http500 and not site.games[p.game_index].malformed]
    cafe_games = [(c.slug, site.games[i].game_id, c.name) for c in site.cafes for i in c.game_indices]
    quarantine = permanent_faults(site)
    return {
        "games": _games(site),
        "collections": _collections(site),
        "members": pl.DataFrame({"user_id": [m.user_id for m in readable],
                                 "name": [m.name for m in readable]},
                                schema={"user_id": pl.Utf8, "name": pl.Utf8}),
        "private_users": pl.DataFrame({"user_id": [m.user_id for m in site.members if m.private]},
                                      schema={"user_id": pl.Utf8}),
        "empty_users": pl.DataFrame({"user_id": [m.user_id for m in public if m.n_boardgames == 0]},
                                    schema={"user_id": pl.Utf8}),
        "posts": pl.DataFrame(
            {"post_id": [str(p.post_id) for p in posts], "game_id": [p.game_id for p in posts],
             "post_kind": [p.kind for p in posts], "author_user_id": [p.author_user_id for p in posts],
             "title": [p.title for p in posts], "published_at": [p.published_at for p in posts]},
            schema={"post_id": pl.Utf8, "game_id": pl.Utf8, "post_kind": pl.Utf8,
                    "author_user_id": pl.Utf8, "title": pl.Utf8, "published_at": pl.Utf8}),
        "cafes": pl.DataFrame({"space_slug": [c.slug for c in site.cafes],
                               "space_name": [c.name for c in site.cafes]},
                              schema={"space_slug": pl.Utf8, "space_name": pl.Utf8}),
        "cafe_games": pl.DataFrame(cafe_games, schema={"space_slug": pl.Utf8, "game_id": pl.Utf8,
                                                       "space_name": pl.Utf8}, orient="row"),
        "quarantine": pl.DataFrame(quarantine, schema={"url": pl.Utf8, "reason": pl.Utf8},
                                   orient="row"),
    }


def write_truth(site: Site, out_dir: str | Path) -> dict[str, Path]:
    """Write every truth frame as `<out_dir>/<name>.parquet`; returns the paths by name."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, frame in truth_frames(site).items():
        path = out / f"{name}.parquet"
        frame.write_parquet(path)
        paths[name] = path
    return paths
