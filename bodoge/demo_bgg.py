"""`bodoge demo --bgg`: the demo's night with a local BoardGameGeek replay as its second source.

Why a replay and not BGG: the demo runs anywhere, offline, without a registered token.
The replay serves the project's fixtures (two games and an expansion; BGG users alice
and bob) under a throwaway token; the two most popular games of the sample site are
matched to the fixture games through an overrides file, and the first two public
members with a collection are linked to alice and bob, so the night shows the BGG
facts (`marts.bgg_games`) and how the linked members' BGG collections move their
recommendations. The BGG settings are `core.settings` fields: the demo sets them with
`settings.replace(…)` and they cross to the night's worker through `Settings.to_env()`,
like every setting. The throwaway token is no setting (a setting shows in resources,
reprs and every child's environment): it reaches only the night's worker, through
`run_nightly(bgg_token=…)`, never this process's own environment nor a file.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

#: The replay's fixture games, matched to the sample site's most popular games.
FIXTURE_GAMES = (900001, 900002)
FIXTURE_USERS = ("alice", "bob")


class ReplayNight(NamedTuple):
    """What the demo's night needs of the replay: its BGG settings and its throwaway token."""

    settings: dict[str, Any]
    token: str


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
def bgg_replay_night(site: Any, data_dir: Path) -> Iterator[ReplayNight]:
    """Serve the BGG replay for the length of the demo's night; yields the BGG stage's
    settings (for `Settings.replace`) and the replay's token (for `run_nightly(bgg_token=…)`)."""
    from samplesite.bgg_replay import BggReplayServer

    token = secrets.token_hex(16)  # the replay's own throwaway, never a BGG token
    links, overrides = demo_links(site, Path(data_dir) / "bgg")
    with BggReplayServer(token=token) as replay:
        print(f"demo: BGG replay on {replay.api_url}; members linked in {links}", flush=True)
        yield ReplayNight(settings={"bgg_links": links, "bgg_overrides": overrides, "bgg_api_url": replay.api_url,
                                    "bgg_delay": 0}, token=token)
