"""Command line: `python -m samplesite serve|truth ...`.

Why: a developer points a spider at a running sample site (`serve`), and compares the
crawl with the generator's ground truth written as Parquet (`truth`).
"""

from __future__ import annotations

import argparse
import sys
import time

from samplesite.generator import generate_site
from samplesite.server import serve_forever
from samplesite.truth import write_truth


def _site_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=int, default=2000, help="number of games (default 2000)")
    p.add_argument("--users", type=int, default=5000, help="number of members (default 5000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-faults", action="store_true", help="no malformed/500/transient pages")
    p.add_argument("--night", type=int, default=1, help="the site on night K (default 1)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m samplesite", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the sample site over HTTP")
    _site_args(serve)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--crawl-delay", type=float, default=None, help="add Crawl-delay to robots.txt")
    truth = sub.add_parser("truth", help="write the ground truth as Parquet files")
    _site_args(truth)
    truth.add_argument("--out", required=True, help="output directory")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    site = generate_site(n_games=args.games, n_users=args.users, seed=args.seed,
                         faults=not args.no_faults)
    print(f"generated in {time.perf_counter() - t0:.2f}s", file=sys.stderr)
    if args.command == "serve":
        serve_forever(site, args.host, args.port, crawl_delay=args.crawl_delay, night=args.night)
        return 0
    from samplesite.nights import site_on_night

    for name, path in write_truth(site_on_night(site, args.night), args.out).items():
        print(f"{name}\t{path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
