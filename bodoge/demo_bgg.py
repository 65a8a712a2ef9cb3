"""`bodoge demo --bgg`: the demo's night with a local BoardGameGeek replay as its second source.

Why a replay and not BGG: the demo runs anywhere, offline, without a registered token.
The replay serves the project's fixtures (two games and an expansion; BGG users alice
and bob) under a throwaway token; the two most popular games of the sample site are
matched to the fixture games through an overrides file, and the first two public
members with a collection are linked to alice and bob, so the night shows the BGG
facts (`marts.bgg_games`) and how the linked members' BGG collections move their
recommendations. The BGG settings reach only the night's worker process, through
`run_nightly(bgg_env=…)`, never this process's own environment.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: The replay's fixture games, matched to the sample site's most popular games.
FIXTURE_GAMES = (900001, 900002)
FIXTURE_USERS = ("alice", "bob")


def demo_links(site: Any, folder: Path) -> tuple[Path, Path]:
    """Write the demo's links file and overrides file (CSV) for `site`; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    members = [m.user_id for m in site.members if not m.private and m.n_boardgames > 0][: len(FIXTURE_USERS)]
    games = [g.game_id for g in sorted(site.games, key=lambda g: (-g.popularity, g.game_id))
             if not g.malformed][: len(FIXTURE_GAMES)]
    links, overrides = folder / "links.csv", folder / "overrides.csv"
    links.write_text("user_id,bgg_user\n" + "".join(f"{m},{u}\n" for m, u in zip(members, FIXTURE_USERS)),
                     encoding="utf-8")
    overrides.write_text("bgg_id,game_id\n" + "".join(f"{b},{g}\n" for b, g in zip(FIXTURE_GAMES, games)),
                         encoding="utf-8")
    return links, overrides


@contextmanager
def bgg_replay_night(site: Any, data_dir: Path) -> Iterator[dict[str, str]]:
    """Serve the BGG replay for the length of the demo's night; yields the BGG stage's variables."""
    from samplesite.bgg_replay import BggReplayServer

    token = secrets.token_hex(16)  # the replay's own throwaway, never a BGG token
    links, overrides = demo_links(site, Path(data_dir) / "bgg")
    with BggReplayServer(token=token) as replay:
        print(f"demo: BGG replay on {replay.api_url}; members linked in {links}", flush=True)
        yield {"BODOGE_BGG_TOKEN": token, "BODOGE_BGG_LINKS": str(links), "BODOGE_BGG_OVERRIDES": str(overrides),
               "BODOGE_BGG_API_URL": replay.api_url, "BODOGE_BGG_DELAY": "0"}
