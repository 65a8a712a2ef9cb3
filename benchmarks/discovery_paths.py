"""What each compiled path of discovery buys: the ranking by each engine, and by the compiled
engine with one of its paths left out, on the same fitted model, in turns.

Run: ``uv run python -m benchmarks.discovery_paths [--games 3000] [--members 6000] [--rounds 3]``.

The variants (docs/discovery.md, "Two engines, one switch"):

* ``compiled``: the night's engine;
* ``reference``: the readable numpy specification (``engine="reference"``);
* ``no_one_pass``: the compiled engine ranking each block by its separate compiled steps
  (the fused champion part, then the blend, top-n and evidence as separate loops);
* ``no_anchor_pass``: the reasons' anchors by the pairs' pass instead of one pass per member;
* ``no_narrowing``: the shelves scored over the whole catalogue instead of their few columns.

A path is left out by replacing its entry with the fallback the engine itself takes when
the path does not apply (``ranked_block`` → None, ``_parts`` → None, ``narrow`` → None), so
every variant ranks the same lists (checked: each variant's rows equal the compiled
engine's). Prints one JSON line: per variant, the best round's seconds for discovery and
both shelves, members per second, and its ratio to the compiled engine; the load average
before and after (other work on a shared machine moves every figure).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from typing import Any  # noqa: E402

from benchmarks.discovery import _loadavg  # noqa: E402

VARIANTS = ("compiled", "reference", "no_one_pass", "no_anchor_pass", "no_narrowing")


@contextlib.contextmanager
def _without(variant: str) -> Iterator[None]:
    """The compiled engine with one path replaced by the fallback it takes where the path does not apply."""
    from models.discovery import anchors, model

    patched: list[tuple[Any, str, Any]] = []
    if variant == "no_one_pass":
        patched.append((model, "ranked_block", lambda *args, **kwargs: None))
    elif variant == "no_anchor_pass":
        patched.append((anchors, "_parts", lambda state: None))
    elif variant == "no_narrowing":
        patched.append((model.DiscoveryModel, "narrow", lambda self, candidates: None))
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patched]
    for owner, name, value in patched:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def measure(games: int, members: int, rounds: int, champion: str, seed: int = 0) -> dict[str, Any]:
    """Fit once; rank every member by each variant in turns, ``rounds`` times; best round each."""
    from models.threads import single_threaded_blas
    from models.discovery.run import ChampionFit, catalog_frame, fit_state
    from models.discovery.shelves import PLAY_NEXT, WATCH_NEXT, shelf_rows
    from models.ensemble import Ensemble
    from models.interactions import normalise_interactions
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    load_before = _loadavg()
    frames = truth_frames(generate_site(n_games=games, n_users=members, seed=seed))
    rows = normalise_interactions(frames["collections"], source="collections")
    with single_threaded_blas():
        compiled = fit_state(rows, catalog_frame(with_filter_columns(frames["games"])), None,
                             ChampionFit(champion=champion))
    states = {variant: compiled.with_engine("reference" if variant == "reference" else "compiled")
              for variant in VARIANTS}
    user_ids = rows.get_column("user_id").unique().sort().to_list()

    def lists(state: Any) -> dict[str, Callable[[], Any]]:
        return {
            "discovery": lambda: state.rank(rows, user_ids, 100)[0],
            "play_next": lambda: shelf_rows(state, rows, user_ids, PLAY_NEXT, run_id="bench"),
            "watch_list": lambda: shelf_rows(state, rows, user_ids, WATCH_NEXT, run_id="bench"),
        }

    best = {variant: dict.fromkeys(("discovery", "play_next", "watch_list"), float("inf")) for variant in VARIANTS}
    first: dict[str, Any] = {}
    same = dict.fromkeys(VARIANTS, True)
    with single_threaded_blas():
        for _ in range(rounds):
            for variant in VARIANTS:
                state = states[variant]
                with _without(variant):
                    for name, run in lists(state).items():
                        if isinstance(state.model, Ensemble):
                            state.model.keep_statistics()
                        started = time.perf_counter()
                        frame = run()
                        best[variant][name] = min(best[variant][name], time.perf_counter() - started)
                        if variant == "compiled":
                            first.setdefault(name, frame)
                        elif name in first:
                            same[variant] &= bool(frame.equals(first[name]))
    base = best["compiled"]
    return {
        "games": compiled.n_games, "members": len(user_ids), "champion": champion, "rounds": rounds,
        "seconds": {v: {k: round(s, 3) for k, s in best[v].items()} for v in VARIANTS},
        "discovery_members_per_s": {v: round(len(user_ids) / best[v]["discovery"]) for v in VARIANTS},
        "ratio_to_compiled": {v: {k: round(best[v][k] / base[k], 2) for k in base} for v in VARIANTS},
        "same_rows_as_compiled": same,
        "loadavg": load_before, "loadavg_after": _loadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3_000)
    parser.add_argument("--members", type=int, default=6_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--champion", default="ease")
    args = parser.parse_args()
    print(json.dumps(measure(args.games, args.members, args.rounds, args.champion)))


if __name__ == "__main__":
    main()
