"""The size of the generated sample site a crawl benchmark runs on, from its command line.

Why one parser: the crawl benchmarks are compared with each other (docs/crawl.md sets a
full crawl beside an incremental one), so they take the same sizes and defaults.
"""

from __future__ import annotations

import argparse


def site_size(argv: list[str] | None, *, description: str, quick: tuple[int, int]) -> tuple[int, int, int]:
    """(games, members, seed) from ``--games``, ``--users``, ``--seed``; ``--quick`` picks ``quick``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help=f"{quick[0]} games, {quick[1]} members")
    args = parser.parse_args(argv)
    games, users = quick if args.quick else (args.games, args.users)
    return games, users, args.seed
