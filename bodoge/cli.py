"""The `bodoge` command line (CONTRACT.md). Each command is a thin shell over plain modules.

Every failure a user can cause (a missing file, a bad URL, an unknown user) ends in one
line on stderr and a non-zero exit; set BODOGE_DEBUG=1 to see a traceback instead.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Callable

from bodoge.args import add_data_dir, open_warehouse
from bodoge.cli_night import register_build, register_crawl, register_demo, register_run

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
        print(f"bodoge: error: {one_line(exc)}", file=sys.stderr)
        return 2


def one_line(exc: BaseException) -> str:
    """An exception as one line: its message, or its type where it has none."""
    text = str(exc).strip().splitlines()
    known = type(exc).__module__.split(".")[0] in {"scrapers", "warehouse", "models", "samplesite", "bodoge", "pipelines"}
    message = text[0] if text else type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"no such file: {exc.filename}"
    return message if known or isinstance(exc, (OSError, ValueError)) else f"{type(exc).__name__}: {message}"


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
    p.add_argument(
        "--kind",
        default="auto",
        choices=["auto", "catalog", "game", "post", "members", "collection", "space", "bgg-thing", "bgg-collection"],
    )
    p.set_defaults(handler=cmd_parse)


def cmd_parse(args: argparse.Namespace) -> int:
    from bodoge.fetch import read_source
    from scrapers.items import item_to_dict
    from scrapers.parse import parse_document

    body, url = read_source(args.source)
    for item in parse_document(body, url=url, kind=args.kind):
        sys.stdout.write(json.dumps(item_to_dict(item), ensure_ascii=False) + "\n")
    return 0


def _register_site(sub: Any) -> None:
    from bodoge.args import positive_int

    p = sub.add_parser("site", help="the bundled sample site: serve it, or write its ground truth")
    site_sub = p.add_subparsers(dest="site_command", required=True, metavar="ACTION")
    for name, helptext in (("serve", "serve the sample site on 127.0.0.1"), ("truth", "write its ground truth")):
        sp = site_sub.add_parser(name, help=helptext)
        sp.add_argument("--games", type=int, default=2000)
        sp.add_argument("--users", type=int, default=5000)
        sp.add_argument("--seed", type=int, default=0)
        sp.add_argument("--no-faults", action="store_true", help="no planted broken pages or transient errors")
        sp.add_argument("--night", type=positive_int, default=1,
                        help="the site as it stands on night K (default 1; each night ~1%% of members change)")
        if name == "serve":
            sp.add_argument("--port", type=int, default=8765)
            sp.set_defaults(handler=cmd_site_serve)
        else:
            sp.add_argument("--out", required=True, help="folder for the Parquet files")
            sp.set_defaults(handler=cmd_site_truth)


def cmd_site_serve(args: argparse.Namespace) -> int:
    from samplesite.generator import generate_site
    from samplesite.server import serve_forever

    site = generate_site(n_games=args.games, n_users=args.users, seed=args.seed, faults=not args.no_faults)
    print(f"sample site ({args.games:,} games, {args.users:,} members, seed {args.seed}, night {args.night}) "
          f"on http://127.0.0.1:{args.port}")
    serve_forever(site, port=args.port, night=args.night)
    return 0


def cmd_site_truth(args: argparse.Namespace) -> int:
    from samplesite.generator import generate_site
    from samplesite.nights import site_on_night
    from samplesite.truth import write_truth

    site = generate_site(n_games=args.games, n_users=args.users, seed=args.seed, faults=not args.no_faults)
    site = site_on_night(site, args.night)
    for name, path in write_truth(site, Path(args.out)).items():
        print(f"{name}: {path}")
    return 0


def _register_collection(sub: Any) -> None:
    p = sub.add_parser("collection", help="a member's collection, filtered and sorted")
    p.add_argument("user_id", metavar="USER_ID")
    p.add_argument("--status", choices=["have", "played", "favorite", "watching"])
    p.add_argument("--players", help="only games playable with N players (min <= N <= max)")
    p.add_argument("--sort", default="updated", choices=["players", "time", "age", "year", "name", "updated"])
    p.add_argument("--reverse", action="store_true", help="reverse the order (missing values stay last)")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    add_data_dir(p)
    p.set_defaults(handler=cmd_collection)


def cmd_collection(args: argparse.Namespace) -> int:
    from bodoge.display import collection_table, print_table
    from warehouse.views import collection, parse_count

    players = parse_count(args.players) if args.players is not None else None
    with open_warehouse(args) as con:
        rows = collection(con, args.user_id, status=args.status, players=players, sort=args.sort, reverse=args.reverse)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, default=str))
    else:
        print_table(collection_table(args.user_id, rows))
    return 0


def _register_recommend(sub: Any) -> None:
    p = sub.add_parser("recommend", help="a member's discovery list: games they neither have nor have played")
    p.add_argument("user_id", metavar="USER_ID")
    p.add_argument("-n", type=int, default=10, help="how many (default 10)")
    p.add_argument("--players", help="only games playable with N players")
    p.add_argument("--max-minutes", type=int, help="only games that take at most M minutes")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    add_data_dir(p)
    p.set_defaults(handler=cmd_recommend)


def cmd_recommend(args: argparse.Namespace) -> int:
    from bodoge.config import resolve_paths
    from bodoge.display import print_table, recommendation_table
    from bodoge.recommend import recommend
    from warehouse.views import parse_count

    players = parse_count(args.players) if args.players is not None else None
    if args.max_minutes is not None and args.max_minutes < 1:
        raise ValueError(f"--max-minutes must be at least 1, not {args.max_minutes}")
    model_dir = resolve_paths(data_dir=args.data_dir, warehouse=args.warehouse).models / "champion"
    with open_warehouse(args) as con:
        rows = recommend(con, args.user_id, n=args.n, players=players, max_minutes=args.max_minutes,
                         model_dir=model_dir)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, default=str))
    else:
        print_table(recommendation_table(args.user_id, rows))
    return 0


def _register_cafes(sub: Any) -> None:
    p = sub.add_parser("cafes", help="cafes offering the member's watching and favourite games, best first")
    p.add_argument("user_id", metavar="USER_ID")
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    add_data_dir(p)
    p.set_defaults(handler=cmd_cafes)


def cmd_cafes(args: argparse.Namespace) -> int:
    from bodoge.display import game_name
    from warehouse.views import cafes_for

    with open_warehouse(args) as con:
        cafes = cafes_for(con, args.user_id)
    if args.json:
        print(json.dumps(cafes, ensure_ascii=False, default=str))
        return 0
    if not cafes:
        print(f"No cafe offers any of {args.user_id}'s watching or favourite games.")
    for cafe in cafes:
        print(f"{cafe['space_name'] or cafe['space_slug']} ({cafe['space_slug']}): {cafe['n_games']} games "
              f"({cafe['n_favorite']} お気に入り, {cafe['n_watching']} 興味あり)")
        for game in cafe["games"]:
            mark = "★" if game["favorite"] else "・"
            print(f"  {mark} {game_name(game)}")
    return 0


def _register_evaluate(sub: Any) -> None:
    from bodoge.args import positive_int

    p = sub.add_parser("evaluate", help="tune and score every candidate model on TRAIN/TEST interaction files")
    p.add_argument("--train", required=True, help="Parquet or CSV: user_id, game_id and any of have/played/...")
    p.add_argument("--test", required=True, help="the held-out rows, same shape")
    p.add_argument("--k", type=positive_int, default=10, help="the length of each ranked list (default 10)")
    p.add_argument("--json", action="store_true", help="print the contract's JSON instead of a table")
    p.add_argument("--output", help="write the champion's top-K lists (.parquet or .csv)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(handler=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from models.evaluate import evaluate_files

    logging.getLogger("bodoge.models").setLevel(logging.INFO)
    report = evaluate_files(args.train, args.test, k=args.k, output_path=args.output, seed=args.seed)
    if args.json:
        print(report.to_json())
        return 0
    from rich.table import Table

    from bodoge.display import print_table

    table = Table(title=f"NDCG@{report.k} and friends on TEST (champion: {report.champion})", title_justify="left")
    columns = ["model", "ndcg", "precision", "recall", "map", "coverage", "selection_ndcg", "fit_seconds"]
    for col in columns:
        table.add_column(col, justify="left" if col == "model" else "right")
    for row in report.table().sort("ndcg", descending=True).iter_rows(named=True):
        name = row["model"] + (" ★" if row["champion"] else "")
        table.add_row(name, *(f"{row[c]:.4f}" if c != "fit_seconds" else f"{row[c]:.2f}s" for c in columns[1:]))
    print_table(table)
    print(f"weighting: {report.weighting.name} — {report.weighting.reason}")
    return 0


def _register_dashboard(sub: Any) -> None:
    from bodoge.args import port_number

    p = sub.add_parser("dashboard", help="the analysts' dashboard on the warehouse (read-only)")
    p.add_argument("--port", type=port_number, default=8501)
    p.add_argument("--address", default="127.0.0.1", help="listen address (default localhost only)")
    add_data_dir(p)
    p.set_defaults(handler=cmd_dashboard)


def cmd_dashboard(args: argparse.Namespace) -> int:
    import tempfile

    from bodoge.config import resolve_paths
    from bodoge.interrupts import Interrupted, signals_raise
    from dashboards.launch import launch, stop, url_for, wait_until_ready

    warehouse = resolve_paths(data_dir=args.data_dir, warehouse=args.warehouse).warehouse
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
    register_demo, register_run, register_crawl, register_build, _register_parse, _register_evaluate,
    _register_recommend, _register_collection, _register_cafes, _register_dashboard, _register_site,
]


if __name__ == "__main__":
    sys.exit(main())
