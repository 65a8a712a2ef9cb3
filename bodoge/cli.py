"""The `bodoge` command line (docs/interface.md). Each command is a thin shell over plain modules.

Every failure a user can cause (a missing file, a bad URL, an unknown user) ends in one
line on stderr and a non-zero exit; set BODOGE_DEBUG=1 to see a traceback instead.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any, Callable

from bodoge.api.main import register_api
from bodoge.args import add_data_dir, an_id, comma_list, open_warehouse, positive_int
from bodoge.cli_bgg import NoPollData, add_poll_flags, poll_filter, poll_n, register_bgg, say_no_poll_data
from bodoge.cli_night import register_build, register_crawl, register_demo, register_run, register_serve
from bodoge.cli_ops import register_backup, register_restore
from bodoge.cli_similar import register_similar
from bodoge.cli_site import register_site
from bodoge.refresh import register_refresh
from bodoge.sql_shell import register_sql
from ops.errors import fail, one_line
from scrapers.kinds import KINDS

# implicit's BLAS must be single-threaded (it parallelises itself); set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

Handler = Callable[[argparse.Namespace], int | None]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `bodoge` script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print("bodoge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the one place that turns errors into one line
        if os.environ.get("BODOGE_DEBUG"):
            raise
        return fail(one_line(exc), 2)


def build_parser() -> argparse.ArgumentParser:
    from bodoge.args import OneLineParser

    parser = OneLineParser(prog="bodoge", description="The bodoge-pipeline data platform.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in _COMMANDS:
        register(sub)
    return parser


# -- commands ---------------------------------------------------------------------------


def _register_parse(sub: Any) -> None:
    p = sub.add_parser("parse", help="parse one saved page or URL and print its items as JSON lines")
    p.add_argument("source", metavar="PATH_OR_URL")
    p.add_argument("--kind", default="auto", choices=KINDS)
    p.set_defaults(handler=cmd_parse)


def cmd_parse(args: argparse.Namespace) -> int:
    from bodoge.display import json_line
    from bodoge.fetch import read_source
    from scrapers.items import item_to_dict
    from scrapers.parse import parse_page

    body, url = read_source(args.source)
    items, note = parse_page(body, url=url, kind=args.kind)
    for item in items:
        sys.stdout.write(json_line(item_to_dict(item)) + "\n")
    if note:  # the items are still what the crawl takes; the note says what it concludes
        sys.stderr.write(f"bodoge: note: {note}\n")
    return 0


def _register_collection(sub: Any) -> None:
    from core.statuses import STATUSES

    p = sub.add_parser("collection", help="a member's collection, filtered and sorted")
    p.add_argument("user_id", metavar="USER_ID", type=an_id)
    p.add_argument("--status", choices=STATUSES)
    p.add_argument("--players", help="only games playable with N players (min <= N <= max)")
    add_poll_flags(p)  # --best / --recommended (BoardGameGeek's poll, docs/bgg.md)
    p.add_argument("--max-minutes", type=positive_int, help="only games that take at most M minutes (as recommend)")
    p.add_argument("--sort", default="updated", choices=["players", "time", "age", "year", "name", "updated"])
    p.add_argument("--reverse", action="store_true", help="reverse the order (missing values stay last)")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    add_data_dir(p)
    p.set_defaults(handler=cmd_collection)


def cmd_collection(args: argparse.Namespace) -> int:
    from bodoge.display import collection_table, print_rows
    from warehouse.views import collection, parse_count

    players = parse_count(args.players) if args.players is not None else None
    with open_warehouse(args) as con:
        rows = collection(con, args.user_id, status=args.status, players=players, max_minutes=args.max_minutes,
                          sort=args.sort, reverse=args.reverse)
        try:
            rows = poll_filter(con, rows, args, players)
        except NoPollData as error:
            return say_no_poll_data(error, as_json=args.json)
    print_rows(rows, as_json=args.json, table=lambda: collection_table(args.user_id, rows))
    return 0


def _register_recommend(sub: Any) -> None:
    p = sub.add_parser("recommend", help="a member's discovery list, one of their shelves, or a group's game night")
    p.add_argument("user_id", metavar="USER_ID", nargs="?", type=an_id)
    p.add_argument("-n", type=int, default=10, help="how many (default 10)")
    p.add_argument("--players", help="only games playable with N players")
    add_poll_flags(p)
    p.add_argument("--max-minutes", type=int, help="only games that take at most M minutes")
    p.add_argument("--owned-unplayed", action="store_true",
                   help="play next (積みゲー): games the member has and has not played")
    p.add_argument("--watching", action="store_true",
                   help="from the watch list (興味ありの中からおすすめ): the member's 興味あり games, "
                        "neither had nor played")
    p.add_argument("--group", metavar="ID,ID,…", type=comma_list, help="game night for these members")
    p.add_argument("--cafe", metavar="SLUG", type=an_id, help="with --group: games this cafe offers are on the table too")
    p.add_argument("--anywhere", action="store_true", help="with --group: any game, whoever has it")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    add_data_dir(p)
    p.set_defaults(handler=cmd_recommend)


def _recommend_mode(args: argparse.Namespace) -> str:
    """Which of the four lists the flags ask for; a ValueError (one line) when they clash."""
    if args.group is not None:
        if args.user_id is not None or args.owned_unplayed or args.watching:
            raise ValueError("--group takes the members itself: give either USER_ID or --group, not both")
        if args.players is not None or args.max_minutes is not None:
            raise ValueError("--players/--max-minutes do not apply to --group (the group's size sets the players)")
        if args.anywhere and args.cafe is not None:
            raise ValueError("--anywhere already lifts availability: drop --cafe or --anywhere")
        return "group"
    if args.cafe is not None or args.anywhere:
        raise ValueError("--cafe and --anywhere only apply to --group")
    if args.user_id is None:
        raise ValueError("give a USER_ID, or --group ID,ID,…")
    if args.owned_unplayed and args.watching:
        raise ValueError("--owned-unplayed and --watching are two different shelves: give one of them")
    for flag, mode in (("owned_unplayed", "play_next"), ("watching", "watch_next")):
        if getattr(args, flag):
            if args.players is not None or args.max_minutes is not None:
                raise ValueError(f"--players/--max-minutes do not apply to --{flag.replace('_', '-')}")
            return mode
    return "discover"


def cmd_recommend(args: argparse.Namespace) -> int:
    from core.config import resolve_paths
    from bodoge.display import group_table, play_next_table, print_rows, recommendation_table, watch_next_table
    from bodoge.recommend import game_night, play_next, recommend, watch_next
    from warehouse.release.served import night_model
    from warehouse.views import parse_count

    mode = _recommend_mode(args)
    poll_n(args, mode=mode)  # --best/--recommended only with --players on the discovery list
    if args.n < 1:
        raise ValueError(f"-n must be at least 1, not {args.n}")
    players = parse_count(args.players) if args.players is not None else None
    if args.max_minutes is not None and args.max_minutes < 1:
        raise ValueError(f"--max-minutes must be at least 1, not {args.max_minutes}")
    paths = resolve_paths(data_dir=args.data_dir, warehouse=args.warehouse)
    with open_warehouse(args) as con:
        model_dir = night_model(con, paths.data_dir, fallback=paths.champion)  # the published night's own
        if mode == "group":
            members = args.group  # already trimmed, blanks dropped (bodoge.args.comma_list)
            rows = game_night(con, members, cafe=args.cafe, anywhere=args.anywhere, n=args.n, model_dir=model_dir)
            table = lambda: group_table(members, rows)  # noqa: E731
        elif mode == "play_next":
            rows = play_next(con, args.user_id, n=args.n, model_dir=model_dir)
            table = lambda: play_next_table(args.user_id, rows)  # noqa: E731
        elif mode == "watch_next":
            rows = watch_next(con, args.user_id, n=args.n, model_dir=model_dir)
            table = lambda: watch_next_table(args.user_id, rows)  # noqa: E731
        else:
            rows = recommend(con, args.user_id, n=poll_n(args), players=players, max_minutes=args.max_minutes,
                             model_dir=model_dir)
            try:
                rows = poll_filter(con, rows, args, players, n=args.n)
            except NoPollData as error:
                return say_no_poll_data(error, as_json=args.json)
            table = lambda: recommendation_table(args.user_id, rows)  # noqa: E731
    print_rows(rows, as_json=args.json, table=table)
    return 0


def _register_cafes(sub: Any) -> None:
    p = sub.add_parser("cafes", help="cafes offering the member's watching and favourite games, best first")
    p.add_argument("user_id", metavar="USER_ID", type=an_id)
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    add_data_dir(p)
    p.set_defaults(handler=cmd_cafes)


def cmd_cafes(args: argparse.Namespace) -> int:
    from bodoge.display import cafes_lines, print_json
    from warehouse.views import cafes_for

    with open_warehouse(args) as con:
        cafes = cafes_for(con, args.user_id)
    if args.json:
        print_json(cafes)
    else:
        print("\n".join(cafes_lines(args.user_id, cafes)))
    return 0


def _register_evaluate(sub: Any) -> None:

    p = sub.add_parser("evaluate", help="tune and score every candidate model on TRAIN/TEST interaction files")
    p.add_argument("--train", required=True, help="Parquet or CSV: user_id, game_id and any of have/played/...")
    p.add_argument("--test", required=True, help="the held-out rows, same shape")
    p.add_argument("--k", type=positive_int, default=10, help="the length of each ranked list (default 10)")
    p.add_argument("--json", action="store_true", help="print the contract's JSON instead of a table")
    p.add_argument("--output", help="write the champion's top-K lists (.parquet or .csv)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--forward", action="store_true",
                   help="also choose on a forward split of TRAIN (one cut in time; needs updated_at in TRAIN)")
    p.set_defaults(handler=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from models.evaluate import evaluate_files

    logging.getLogger("bodoge.models").setLevel(logging.INFO)
    report = evaluate_files(args.train, args.test, k=args.k, output_path=args.output, seed=args.seed,
                            forward=args.forward)
    if args.json:
        print(report.to_json())
        return 0
    from bodoge.display import evaluation_table, print_table

    print_table(evaluation_table(report))
    print(f"weighting: {report.weighting.name} — {report.weighting.reason}")
    if args.forward:
        print(f"champion chosen by {report.selection}")
    return 0


def _register_dashboard(sub: Any) -> None:
    from bodoge.args import port_number

    p = sub.add_parser("dashboard", help="the analysts' dashboard on the published night (read-only)")
    p.add_argument("--port", type=port_number, default=8501)
    p.add_argument("--address", default="127.0.0.1", help="listen address (default localhost only)")
    add_data_dir(p)
    p.set_defaults(handler=cmd_dashboard)


def cmd_dashboard(args: argparse.Namespace) -> int:
    import tempfile

    from bodoge.args import reader_path
    from ops.signals import Interrupted, signals_raise
    from dashboards.launch import launch, url_for, wait_until_ready
    from ops.children import stop

    warehouse = reader_path(args)  # the published night, never the file the night writes
    if not warehouse.is_file():
        raise FileNotFoundError(2, "no warehouse (run `bodoge demo` or `bodoge run` first)", str(warehouse))
    process = None
    try:
        # SIGTERM/SIGINT go on to the server, and we return only once it is gone (port free).
        with tempfile.TemporaryFile() as log, signals_raise():
            process = launch(warehouse, args.port, address=args.address, log=log)
            try:
                wait_until_ready(url_for(args.port, args.address), 90, process=process)
                print(f"dashboard: {url_for(args.port, args.address)} (read-only on {warehouse}); Ctrl-C to stop",
                      flush=True)
                code = process.wait()
            except (RuntimeError, TimeoutError) as exc:
                stop(process)
                log.seek(0)
                tail = [ln for ln in log.read().decode("utf-8", "replace").splitlines() if ln.strip()][-1:]
                raise RuntimeError(f"{exc}{': ' + tail[0] if tail else ''}") from exc
            except Interrupted as interrupted:
                stop(process, signum=interrupted.signum)  # the same signal, passed on
                raise
            finally:
                stop(process)  # a no-op once it has exited; otherwise nothing outlives this command
    except Interrupted as interrupted:
        if process is not None:
            stop(process, signum=interrupted.signum)  # interrupted while starting or leaving
        print(f"bodoge: dashboard {interrupted}; the server on port {args.port} is down", file=sys.stderr)
        return interrupted.exit_code
    if code != 0:
        raise RuntimeError(f"the dashboard server exited with code {code}")
    return 0


_COMMANDS: list[Callable[[Any], None]] = [
    register_demo, register_run, register_serve, register_crawl, register_build, _register_parse, _register_evaluate,
    _register_recommend, _register_collection, _register_cafes, register_similar, _register_dashboard, register_sql,
    register_site,
    register_backup, register_restore, register_bgg, register_api, register_refresh,
]


if __name__ == "__main__":
    sys.exit(main())
