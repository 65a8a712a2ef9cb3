"""The bundle's per-member files written per member bucket, then put together as one file each.

Why: the per-member files (`recommendations.jsonl`, `next_to_play.jsonl`, `watch_next.jsonl`)
grow with the members (36M rows as 400,000 lines at real size); written per bucket, each
bucket's part is one bucket's rows, so a bucket step (a process or a machine of its own)
writes its part and the bundle is assembled from the parts without any step holding
everyone's lists. The bundle is the same, byte for byte, as the one written whole
(`warehouse.release.export.export_bundle`): each part is written by the same DuckDB `COPY`
(`write_grouped`), one line per member in member order, and the parts are merged by member
id as they stream (a bucket is a hash of the id, so its members are spread over the order).

* `write_part`: bucket `key`'s part of each per-member file, from the marts' rows of the
  members `keep` says are in the bucket, into `parts/<key>/` (written whole, then renamed);
* `assemble_part_files`: the parts of one file merged into the bundle's file (its lines
  and items counted), which `export_bundle(…, parts=…)` calls for each per-member file.

The parts hold members' lists, so they live beside the buckets' rows
(`DATA_DIR/buckets/<run_id>.export/`): the export removes them once assembled, a
later night removes what an earlier one left, and a member turning private removes them all.
"""

from __future__ import annotations

import heapq
import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import duckdb
import polars as pl

from warehouse.release.grouped import PER_USER_FIELDS, marts_table, welcome_flag, write_grouped

PER_MEMBER_FILES = {"recommendations.jsonl": "recommendations", "next_to_play.jsonl": "next_to_play",
                    "watch_next.jsonl": "watch_next"}
"""The bundle's per-member files and the mart each is written from."""
COUNTS = "counts.json"
PARTS = "export"
"""The suffix of the export parts' folder beside the night's buckets folder."""


class PartsMissing(RuntimeError):
    """A bucket's part is not (wholly) written: the bundle is not assembled."""


def parts_folder(night: Path) -> Path:
    """Where the night whose buckets live in `night` (`warehouse.buckets.night_folder`) keeps
    the export's parts: beside it (`<run_id>.export`), so removing the parts leaves nothing of
    the night's, and what `clear_other_nights` or `remove_buckets` removes takes them too."""
    night = Path(night)
    return night.with_name(f"{night.name}.{PARTS}")


def in_bucket_of(bucket: int, n_buckets: int, bucket_of: Callable[[str, int], int]) -> Callable[[str], bool]:
    """`write_part`'s `keep` for bucket `bucket` of `n_buckets` by the night's `bucket_of`
    (`models.discovery.buckets.bucket_of`, passed in: the warehouse does not import the models)."""
    return lambda user_id: bucket_of(user_id, n_buckets) == bucket


def write_part(con: duckdb.DuckDBPyConnection, parts: Path, key: str, keep: Callable[[str], bool]) -> dict[str, list[int]]:
    """Bucket `key`'s part of each per-member file: the lines of the members `keep` says are
    the bucket's, from marts.recommendations, next_to_play and watch_next, written as the
    whole file's are. Returns each file's (lines, items), also kept in the part's `counts.json`."""
    tables = {name: marts_table(con, table) for name, table in PER_MEMBER_FILES.items()}
    ids = pl.concat([con.sql(f"SELECT DISTINCT user_id FROM {source}").pl() for source in tables.values() if source]
                    or [pl.DataFrame(schema={"user_id": pl.String})]).get_column("user_id").unique()
    members = pl.DataFrame({"user_id": [u for u in ids.to_list() if keep(u)]}, schema={"user_id": pl.String})
    parts.mkdir(parents=True, exist_ok=True)
    target, tmp = parts / key, parts / f".{key}.writing-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    counts: dict[str, list[int]] = {}
    con.register("part_members", members)
    try:
        for name, source in tables.items():
            rows = None if source is None else f"(SELECT * FROM {source} SEMI JOIN part_members USING (user_id))"
            line = welcome_flag(con) if name == "recommendations.jsonl" else ""
            counts[name] = list(write_grouped(con, rows, "user_id", PER_USER_FIELDS, tmp / name, line=line))
    finally:
        con.unregister("part_members")
    (tmp / COUNTS).write_text(json.dumps(counts), encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    return counts


def missing_parts(parts: Path, keys: Sequence[str]) -> list[str]:
    """The keys whose part is not written in `parts`."""
    return [key for key in keys if not (parts / key / COUNTS).is_file()]


def assemble_part_files(parts: Path, keys: Sequence[str], name: str, target: Path) -> tuple[int, int]:
    """The parts of file `name` of every bucket of `keys`, merged by member id into `target`
    (one stream per part: memory is a line per bucket); returns (lines, items) as
    `write_grouped` does. Raises `PartsMissing` when a bucket's part is not written."""
    missing = missing_parts(parts, keys)
    if missing:
        raise PartsMissing(f"export parts not written: {', '.join(missing)} (in {parts}); write them, then the bundle")
    lines = items = 0
    for key in keys:
        found = json.loads((parts / key / COUNTS).read_text(encoding="utf-8"))[name]
        lines, items = lines + found[0], items + found[1]
    handles = [open(parts / key / name, "rb") for key in keys]
    try:
        with open(target, "wb") as out:
            for _, line in heapq.merge(*(_keyed(handle) for handle in handles)):
                out.write(line)
    finally:
        for handle in handles:
            handle.close()
    return lines, items


_PREFIX = b'{"user_id":'
_DECODER = json.JSONDecoder()


def _keyed(handle: BinaryIO) -> Iterator[tuple[bytes, bytes]]:
    """A part's lines with the member id each starts with (DuckDB writes `{"user_id":…,` first),
    so the merge orders them as DuckDB's `ORDER BY user_id` does (by the ids' UTF-8 bytes).
    Only the id is decoded, not the line's hundred items."""
    for line in handle:
        if not line.startswith(_PREFIX):
            raise ValueError(f"an export part's line does not start with its member id: {line[:80]!r}")
        head = line[len(_PREFIX):len(_PREFIX) + 1024].decode("utf-8", errors="ignore")
        user_id, _ = _DECODER.raw_decode(head)
        yield str(user_id).encode("utf-8"), line
