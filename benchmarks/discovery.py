"""Discovery's ranking on its own, members per second: the lists, play next and the watch list.

Run: ``uv run python -m benchmarks.discovery [--games 8000] [--members 20000] [--passes 2] [--engine compiled|reference]``.

Why apart from ``benchmarks.scale``: the night at real size takes ~20 minutes and 7 GB;
this fits the champion once on a generated site of a medium size (``samplesite``'s
ground truth, as the scale benchmark's warehouse) and times only
``DiscoveryModel.rank`` for each mode, so that a change to the ranking can be measured
in minutes, before and after in turns. Each mode keeps its best pass; each pass starts
as a night does (an ensemble champion keeps its members' statistics from the pass's
ranking on, not from an earlier pass's). Prints one JSON
line: members per second for discovery and for each shelf, the seconds behind them and
the load average before and after (other work on a shared machine moves every figure).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3]]


def measure(games: int, members: int, passes: int, champion: str, seed: int = 0,
            engine: str = "compiled") -> dict[str, Any]:
    """Fit once, then time each mode's ranking ``passes`` times in turns by ``engine``; best pass each."""
    from models.threads import single_threaded_blas
    from models.discovery.run import ChampionFit, catalog_frame, fit_state
    from models.discovery.shelves import PLAY_NEXT, WATCH_NEXT, shelf_rows
    from models.ensemble import Ensemble
    from models.interactions import normalise_interactions
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    load_before = _loadavg()
    tick = time.perf_counter()
    frames = truth_frames(generate_site(n_games=games, n_users=members, seed=seed))
    rows = normalise_interactions(frames["collections"], source="collections")
    with single_threaded_blas():
        state = fit_state(rows, catalog_frame(with_filter_columns(frames["games"])), None, ChampionFit(champion=champion), engine=engine)
    setup = time.perf_counter() - tick
    user_ids = rows.get_column("user_id").unique().sort().to_list()
    modes = {
        "discovery": lambda: state.rank(rows, user_ids, 100)[0],
        "play_next": lambda: shelf_rows(state, rows, user_ids, PLAY_NEXT, run_id="bench"),
        "watch_list": lambda: shelf_rows(state, rows, user_ids, WATCH_NEXT, run_id="bench"),
    }
    best = dict.fromkeys(modes, float("inf"))
    heights = {}
    with single_threaded_blas():
        for _ in range(passes):
            if isinstance(state.model, Ensemble):
                state.model.keep_statistics()  # each pass a night's: kept from its ranking on
            for name, run in modes.items():
                started = time.perf_counter()
                heights[name] = run().height
                best[name] = min(best[name], time.perf_counter() - started)
    return {
        "games": state.n_games, "members": len(user_ids), "collection_rows": rows.height, "champion": champion, "engine": engine,
        "setup_seconds": round(setup, 1),
        "seconds": {name: round(value, 2) for name, value in best.items()},
        "members_per_s": {name: round(len(user_ids) / value) for name, value in best.items()},
        "rows": heights,
        "loadavg": load_before, "loadavg_after": _loadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8_000)
    parser.add_argument("--members", type=int, default=20_000)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--champion", default="ease")
    parser.add_argument("--engine", default="compiled", choices=("compiled", "reference"))
    args = parser.parse_args()
    print(json.dumps(measure(args.games, args.members, args.passes, args.champion, engine=args.engine)))


if __name__ == "__main__":
    main()
