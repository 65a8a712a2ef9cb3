"""What the forward selection split costs the night: ``python -m benchmarks.forward_cost --data-dir DIR``.

Why: ``evaluate(forward=...)`` fits every candidate once more (on TRAIN up to a cut) and scores
it; the night's evaluation is its largest stage, so the addition is timed, not guessed. On a
night's warehouse (``bodoge demo --data-dir DIR``) the time split's evaluation runs as the
nightly runs it (reusing the random split's tuning), without and with the forward split, in
turns, ``--repeats`` times each; printed as JSON with the median seconds and their ratio
(the bare baseline is the evaluation without it). Large data skips the forward split
(``models.budget``), so this is its cost on small nights only.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import duckdb  # noqa: E402
import polars as pl  # noqa: E402


def main() -> None:
    """Both ways in turns, then the medians and their ratio as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="a night's data dir (bodoge demo --data-dir)")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    warehouse = args.data_dir / "warehouse.duckdb"
    if not warehouse.is_file():
        parser.error(f"no warehouse at {warehouse}: run `bodoge demo --data-dir {args.data_dir}` first")

    from models.evaluate import evaluate
    from models.interactions import normalise_interactions
    from models.split import holdout_split, time_split
    from warehouse.bgg_training import training_rows

    with duckdb.connect(str(warehouse), read_only=True) as con:
        frame = training_rows(con)
    times = frame.select(pl.col("user_id").cast(pl.String), pl.col("game_id").cast(pl.String), "updated_at")
    rows = normalise_interactions(frame.drop("updated_at")).join(
        times.unique(["user_id", "game_id"]), on=["user_id", "game_id"], how="left")
    plain = rows.drop("updated_at")
    timed = rows.select("user_id", "game_id", "updated_at")
    train, test = holdout_split(plain, fraction=0.2, seed=0)
    tuned = evaluate(train, test, k=10, seed=0, split="random")
    train, test = time_split(rows, fraction=0.2)
    seconds: dict[str, list[float]] = {"without": [], "with_forward": []}
    for _ in range(args.repeats):
        for label, forward in (("without", None), ("with_forward", timed)):
            started = time.perf_counter()
            evaluate(train.drop("updated_at"), test.drop("updated_at"), k=10, seed=0, times=timed, reuse=tuned,
                     split="time", forward=forward)
            seconds[label].append(time.perf_counter() - started)
    medians = {label: statistics.median(values) for label, values in seconds.items()}
    print(json.dumps({"rows": plain.height, "members": plain.get_column("user_id").n_unique(),
                      "seconds": {label: [round(v, 2) for v in values] for label, values in seconds.items()},
                      "median_seconds": {label: round(v, 2) for label, v in medians.items()},
                      "ratio_with_forward": round(medians["with_forward"] / medians["without"], 3),
                      "load_average": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
