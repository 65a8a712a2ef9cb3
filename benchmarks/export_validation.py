"""What validating every export line costs, beside bare JSON parsing and pure-Python jsonschema.

A `recommendations.jsonl` of the real site's shape (default 100,000 members × 100 items,
~1.1 GB) is written the exporter's way (DuckDB's COPY, `warehouse.release.export.write_grouped`) with its
schema and manifest, then timed, streaming line by line:

* ``json_parse``: `json.loads` of every line, nothing else (the floor for any validator);
* ``ours``: `warehouse.release.schemas.validate_bundle` (parse, jsonschema-rs, ranks, keys);
* ``jsonschema_python``: the reference `jsonschema` Draft202012Validator (compiled once,
  `iter_errors`) after parsing, on the first `--reference-lines` lines only (it is slow),
  scaled to 100k lines.

Prints one JSON object; figures are seconds per 100,000 lines. Usage:
``uv run python -m benchmarks.export_validation [--lines N] [--items K] [--reference-lines M]``
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import duckdb
import polars as pl
from jsonschema import Draft202012Validator

from warehouse.release.bundle_io import MANIFEST
from warehouse.release.export import write_grouped
from warehouse.release.schemas import FILE_SCHEMAS, SCHEMA_VERSION, validate_bundle, write_schemas

NAME = "recommendations.jsonl"


def write_bundle(folder: Path, lines: int, items: int) -> Path:
    """A bundle holding one recommendations file of `lines` members × `items` games."""
    n = lines * items
    rows = pl.DataFrame({"i": pl.int_range(0, n, eager=True)}).select(
        (pl.col("i") // items + 10_000).cast(pl.String).alias("user_id"),
        (pl.col("i") % items + 1).cast(pl.Int32).alias("rank"),
        pl.format("game-{}", (pl.col("i") * 7919) % 25_000).alias("game_id"),
        (1.0 / (pl.col("i") % items + 1.5)).alias("score"),
        pl.format("「ゲーム{}」が好きなあなたに", pl.col("i") % 997).alias("reason"),
    )
    with duckdb.connect() as con:
        con.register("rows", rows)
        write_grouped(con, "rows", "user_id", {"game_id": "game_id", "score": "score", "reason": "reason"}, folder / NAME)
    del rows
    files = {NAME: {"sha256": "", "bytes": (folder / NAME).stat().st_size}} | write_schemas(folder, [NAME])
    manifest = {"run_id": "bench", "schema_version": SCHEMA_VERSION, "files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return folder / NAME


def time_parse(path: Path) -> tuple[float, int]:
    started, n = time.perf_counter(), 0
    loads = json.loads
    with open(path, "rb") as handle:
        for line in handle:
            loads(line)
            n += 1
    return time.perf_counter() - started, n


def time_reference(path: Path, limit: int) -> tuple[float, int]:
    validator = Draft202012Validator(FILE_SCHEMAS[NAME])
    started, n = time.perf_counter(), 0
    with open(path, "rb") as handle:
        for line in handle:
            if n == limit:
                break
            if next(validator.iter_errors(json.loads(line)), None) is not None:
                raise SystemExit(f"line {n + 1} is invalid under the reference validator")
            n += 1
    return time.perf_counter() - started, n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.export_validation")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--reference-lines", type=int, default=2_000)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-validation-") as tmp:
        path = write_bundle(Path(tmp), args.lines, args.items)
        size = path.stat().st_size
        parse_s, n = time_parse(path)
        started = time.perf_counter()
        checked = validate_bundle(Path(tmp)).lines[NAME]
        ours_s = time.perf_counter() - started
        ref_s, ref_n = time_reference(path, args.reference_lines)
    per = 100_000
    result = {
        "lines": n, "items_per_line": args.items, "bytes": size, "lines_validated": checked,
        "seconds_per_100k_lines": {
            "json_parse": round(parse_s / n * per, 2),
            "ours": round(ours_s / n * per, 2),
            "jsonschema_python": round(ref_s / max(ref_n, 1) * per, 1),
        },
        "jsonschema_python_measured_on_lines": ref_n,
        "ours_over_parse": round(ours_s / parse_s, 2),
        "jsonschema_python_over_ours": round((ref_s / max(ref_n, 1)) / (ours_s / n), 1),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
