"""`bodoge bgg sync|replay`: BoardGameGeek as a second source (docs/bgg.md).

Why a command of its own and not only a stage of the night: the site team links members
whenever they like, and an operator wants to see at once what BGG answered (which users
were not ready, which things matched no site game) without waiting for 03:00. A missing
or refused token is one line and exit status 3, so a script can tell it from the rest.
The sync's flags are `core.settings` fields (`setting_flag`): `--delay 0` and
`BODOGE_BGG_DELAY=0` are checked, and default, the same way as in the night's stage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bodoge.args import add_data_dir, port_number, setting_flag

TOKEN_EXIT = 3
#: What `bodoge bgg sync` reads from the environment: the data directory and the BGG fields
#: (a malformed crawl or push setting is no reason to refuse a BGG sync).
BGG_SETTINGS = ("data_dir", "warehouse", "bgg_api_url", "bgg_links", "bgg_overrides", "bgg_delay", "bgg_max_age_days")


def register_bgg(sub: Any) -> None:
    p = sub.add_parser("bgg", help="BoardGameGeek: sync linked members' collections and their games")
    bgg_sub = p.add_subparsers(dest="bgg_command", required=True, metavar="ACTION")
    sync = bgg_sub.add_parser("sync", help="fetch, politely and incrementally, BGG collections and things")
    for name, metavar in (("bgg_api_url", "URL"), ("bgg_links", "FILE"), ("bgg_overrides", "FILE"),
                          ("bgg_delay", "S"), ("bgg_max_age_days", "D")):
        setting_flag(sync, name, metavar=metavar)
    sync.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_data_dir(sync, warehouse=False)
    sync.set_defaults(handler=cmd_bgg_sync)
    replay = bgg_sub.add_parser("replay", help="serve a local replay of BGG's XML API2 (for tests and demos)")
    replay.add_argument("--saved", help="a folder of saved BGG answers to serve beside the project's fixtures")
    replay.add_argument("--port", type=port_number, default=8766, help="default 8766")
    replay.set_defaults(handler=cmd_bgg_replay)


def cmd_bgg_sync(args: argparse.Namespace) -> int:
    import json

    from core.settings import Settings
    from ops.errors import fail
    from scrapers.bgg_sync import TokenError, read_token, run_bgg_sync

    settings = Settings.load(args, only=BGG_SETTINGS)
    if settings.bgg_links is None:
        raise ValueError("no links file: pass --links FILE or set BODOGE_BGG_LINKS (CSV user_id,bgg_user)")
    try:
        token = read_token()
        result = run_bgg_sync(
            api_url=settings.bgg_api_url, warehouse=settings.paths.warehouse, links_file=settings.bgg_links,
            token=token, max_age_days=settings.bgg_max_age_days, delay=settings.bgg_delay,
            overrides_file=settings.bgg_overrides)
    except TokenError as exc:
        return fail(str(exc), TOKEN_EXIT)
    if args.json:
        print(json.dumps({"run_id": result.run_id, "outcomes": result.outcomes, "things": result.things,
                          "links": result.report}, ensure_ascii=False))
        return 0
    counts: dict[str, int] = {}
    for status in result.outcomes.values():
        counts[status] = counts.get(status, 0) + 1
    print(f"bgg sync {result.run_id}: collections {', '.join(f'{n} {s}' for s, n in sorted(counts.items())) or 'none'}"
          f"; things fetched {result.things}")
    for user, status in sorted(result.outcomes.items()):
        if status not in ("full", "changes"):
            print(f"  {user}: {status}{' (retried next sync)' if status in ('not_ready', 'failed') else ''}")
    report = result.report
    print(f"games: {report.get('matched', 0)} of {report.get('things', 0)} BGG games matched to site games "
          f"{report.get('by_method', {})}, {report.get('ambiguous', 0)} ambiguous, {report.get('missed', 0)} missed")
    for item in report.get("ambiguities", [])[:10]:
        print(f"  ambiguous: {json.dumps(item, ensure_ascii=False)}")
    print("Powered by BGG (https://boardgamegeek.com)")
    return 0


def cmd_bgg_replay(args: argparse.Namespace) -> int:
    from samplesite.bgg_replay import serve_forever
    from scrapers.bgg_sync import read_token

    serve_forever(token=read_token(), saved_dir=Path(args.saved) if args.saved else None, port=args.port)
    return 0


# -- --best / --recommended beside --players (bodoge collection, bodoge recommend) ------------------

WIDER_N = 100
"""How many recommendations to read before keeping those BGG's poll names (the warehouse keeps 100)."""


def add_poll_flags(p: argparse.ArgumentParser) -> None:
    """`--best` / `--recommended`: with `--players N`, keep games BGG's poll calls best / recommended for N."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--best", dest="bgg_poll", action="store_const", const="best",
                       help="with --players N: keep only games whose BoardGameGeek poll calls N players best; "
                            "games without BGG poll data are left out (when none of them has any, one line says "
                            "so: `bodoge bgg sync`, docs/bgg.md)")
    group.add_argument("--recommended", dest="bgg_poll", action="store_const", const="recommended",
                       help="with --players N: keep only games whose BoardGameGeek poll recommends N players; "
                            "games without BGG poll data are left out (when none has any, one line says so)")


class NoPollData(Exception):
    """`--best`/`--recommended` over games none of which has BGG poll data: the command says so
    in one line and exits 0 (an empty table looked like "nothing qualifies")."""


def poll_n(args: argparse.Namespace, *, mode: str = "discover") -> int:
    """How many rows a reader should fetch: wider when a poll flag will cut them (one-line error if misused)."""
    if getattr(args, "bgg_poll", None) is None:
        return args.n
    if mode != "discover" or args.players is None:
        raise ValueError("--best/--recommended need --players N (and apply to the discovery list and collections)")
    return max(args.n, WIDER_N)


def poll_filter(con: Any, rows: list[dict[str, Any]], args: argparse.Namespace, players: int | None, *,
                n: int | None = None) -> list[dict[str, Any]]:
    """Rows kept by BGG's poll for `players` when `--best`/`--recommended` was given, else as they are."""
    from warehouse.bgg_views import keep_poll_games, poll_games, polled_games

    how = getattr(args, "bgg_poll", None)
    if how is None:
        return rows
    if players is None:
        raise ValueError(f"--{how} needs --players N")
    if rows and not polled_games(con, {row["game_id"] for row in rows}):
        raise NoPollData(f"no BoardGameGeek poll data for these games: --{how} keeps only games BGG's poll calls "
                         f"{how} with {players} players (`bodoge bgg sync` fetches it; docs/bgg.md)")
    return keep_poll_games(rows, poll_games(con, players=players, how=how), n=n)


def say_no_poll_data(error: NoPollData, *, as_json: bool) -> int:
    """The one line for `NoPollData` (on stderr beside `[]` with --json), exit status 0."""
    if as_json:
        print("[]")
        print(f"bodoge: {error}", file=sys.stderr)
    else:
        print(str(error))
    return 0
