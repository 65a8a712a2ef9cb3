"""How fast `bodoge collection` and `bodoge cafes` answer on a warehouse of 5,000 members.

Builds a warehouse from the sample site's ground truth (what a perfect crawl loads),
then times the CLI end to end (a fresh process, as a member's request would be) and
the query alone. Prints JSON. Usage: uv run python benchmarks/collection_view.py [--users N]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.options import options
from samplesite.generator import generate_site
from samplesite.truth import truth_frames
from warehouse.build import build_all
from warehouse.db import connect
from warehouse.raw import RawWriter
from warehouse.views import cafes_for, collection


def load_truth(path: Path, games: int, users: int) -> str:
    """A warehouse holding the truth of a generated site; returns a heavy member's id."""
    truth = truth_frames(generate_site(n_games=games, n_users=users, seed=0))
    con = connect(path)
    writer = RawWriter(con, run_id="bench", batch_size=50_000)
    for kind, frame in (("game", truth["games"]), ("member", truth["members"]),
                        ("collection_entry", truth["collections"]), ("cafe_game", truth["cafe_games"])):
        for row in frame.to_dicts():
            writer.add(kind, row)
    empty = set(truth["empty_users"]["user_id"])
    for user_id in truth["members"]["user_id"]:  # a directory row is written once its collection is seen
        writer.add("listing_crawl", {"listing": "collection", "key": user_id, "n_entries": 0, "n_pages": 1,
                                     "status": "empty" if user_id in empty else "public"})
    writer.flush()
    build_all(con)
    heavy = con.execute("SELECT user_id FROM marts.members ORDER BY n_games DESC LIMIT 1").fetchall()[0][0]
    con.close()
    return heavy


def timed(fn, repeat: int = 5) -> float:  # noqa: ANN001
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    args = options(None, __doc__.splitlines()[0], games=2000, users=5000)
    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Path(tmp) / "warehouse.duckdb"
        user = load_truth(warehouse, args.games, args.users)
        con = connect(warehouse, read_only=True)
        query_s = timed(lambda: collection(con, user, players=4, sort="players"))
        cafes_s = timed(lambda: cafes_for(con, user))
        n_rows = len(collection(con, user))
        con.close()
        cli = [sys.executable, "-m", "bodoge.cli", "collection", user, "--players", "4", "--sort", "players",
               "--json", "--warehouse", str(warehouse)]
        cli_s = timed(lambda: subprocess.run(cli, check=True, capture_output=True), repeat=3)
        cafes_cli = [sys.executable, "-m", "bodoge.cli", "cafes", user, "--json", "--warehouse", str(warehouse)]
        cafes_cli_s = timed(lambda: subprocess.run(cafes_cli, check=True, capture_output=True), repeat=3)
    print(json.dumps({
        "games": args.games, "users": args.users, "member": user, "member_games": n_rows,
        "collection_query_seconds": round(query_s, 4), "cafes_query_seconds": round(cafes_s, 4),
        "collection_cli_seconds": round(cli_s, 3), "cafes_cli_seconds": round(cafes_cli_s, 3),
        "target_seconds": 1.0, "meets_target": cli_s < 1.0 and cafes_cli_s < 1.0,
    }))


if __name__ == "__main__":
    main()
