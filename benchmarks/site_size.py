"""The size of the generated sample site a crawl benchmark runs on, from its command line.

Why one parser: the crawl benchmarks are compared with each other (docs/crawl.md sets a
full crawl beside an incremental one), so they take the same sizes and defaults.
"""

from __future__ import annotations

from benchmarks.options import options


def site_size(argv: list[str] | None, *, description: str, quick: tuple[int, int]) -> tuple[int, int, int]:
    """(games, members, seed) from ``--games``, ``--users``, ``--seed``; ``--quick`` picks ``quick``."""
    args = options(argv, f"{description} (--quick: {quick[0]} games, {quick[1]} members)",
                   games=2000, users=5000, seed=0, quick=False)
    games, users = quick if args.quick else (args.games, args.users)
    return games, users, args.seed
