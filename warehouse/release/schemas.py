"""The export's JSON Schemas (draft 2020-12): one definition, shipped in every bundle, every line checked.

Why: the site imports the bundle's JSONL files and needs to know their exact shape, and to
be told when it changes. So each JSONL file of a bundle has its schema beside it, at
`schemas/<file stem>.schema.json`, and `manifest.json` names their `schema_version` (a
semantic version: a new optional field is a minor step, a removed or re-typed one a
major step). The schemas are built here from one Python definition (`FILE_SCHEMAS`, one
entry per export file, so a new file is one line) and the tests pin a fingerprint of
their shape next to the version, so the shape cannot change without the version.

Why every line is validated before a bundle is published, rather than trusted: the
lines are written by DuckDB straight from the marts, so a column whose type drifted (a
table made by an older version, a model that returned NaN, which DuckDB writes as the
bare token NaN) would reach the site silently. `validate_bundle` streams each file line by line against
the schema shipped in that bundle, plus what JSON Schema cannot say: ranks run 1..n in
order, and no key (member or game) has two lines. The first bad line fails the export in
one line naming the file, the line number and the error (`BundleInvalid`), and the night
fails like a failed check: nothing is published.

Why jsonschema-rs: it is a complete draft 2020-12 validator compiled in Rust. At the real
site's size (100,000 members × 100 items, 1.2 GB) the pure-Python `jsonschema` took 535 s
for one file, ours 27 s, bare JSON parsing 21 s (`python -m benchmarks.export_validation`,
under load). The tests hold it to the reference `jsonschema` on good and bad lines. Lines
are parsed by orjson: strict JSON (NaN, Infinity, a number past a double's range, a lone
surrogate or bad UTF-8 is "not a JSON line"), at 3–4× the standard library's speed, which
was most of that time.

The site team's own check of a bundle (checksums, then every line):
`python -m warehouse.release.schemas validate EXPORTS_DIR_OR_BUNDLE`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import jsonschema_rs
import orjson

from ops.errors import fail
from warehouse.release.bundle_io import MANIFEST, ExportError, write_synced

SCHEMA_VERSION = "1.1.0"
"""The version of the shape of every export file (manifest.json's `schema_version`).

Change it with the shape (tests/unit/test_export_schemas.py pins the shape of each version)."""
DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMAS_DIR = "schemas"
_ANNOTATIONS = frozenset({"$id", "title", "description", "$comment", "examples"})
_MAX_MESSAGE = 160


class BundleInvalid(ExportError):
    """A line of an export file does not match its schema (or the bundle lacks a schema)."""


def _id(stem: str) -> str:
    return f"urn:bodoge:export:{SCHEMA_VERSION}:{stem}"


def _string(description: str) -> dict:
    return {"type": "string", "minLength": 1, "description": description}


_RANK = {"type": "integer", "minimum": 1,
         "description": "Position in the list, 1 = first; the items of a line are 1, 2, … n in this order."}
_GAME = _string("The game (the site's slug, as in its URL).")
_PERSONAL_SCORE = {"type": "number", "description": "The blended score on the member's own scale: it orders one "
                                                    "member's list and is not comparable across members."}
_REASON = _string("Why, in Japanese (e.g. 「X」が好きなあなたに), never naming another member.")


def _ranked_lines(stem: str, title: str, key: str, key_doc: str, items_doc: str, item: dict,
                  optional: dict | None = None) -> dict:
    """The schema of a file with one line per `key`: `{key: …, "items": [item, …]}`, best first;
    `optional`: line fields a reader may find (added after 1.0.0, so not required)."""
    return {
        "$schema": DRAFT,
        "$id": _id(stem),
        "title": title,
        "type": "object",
        "additionalProperties": False,
        "required": [key, "items"],
        "properties": {
            key: _string(key_doc),
            "items": {"type": "array", "minItems": 1, "description": items_doc, "items": {
                "type": "object",
                "additionalProperties": False,
                "required": list(item),
                "properties": item,
            }},
            **(optional or {}),
        },
    }


def _per_member(stem: str, title: str, items_doc: str, optional: dict | None = None) -> dict:
    return _ranked_lines(stem, title, "user_id", "The member (their public id on the site).", items_doc,
                         {"rank": _RANK, "game_id": _GAME, "score": _PERSONAL_SCORE, "reason": _REASON}, optional)


_WELCOME = {"type": "boolean", "description": (
    "True when the line is a welcome list: the member has no collection, or none the model could score, so the "
    "items are the games most held by members like them (reason 好みの近いみんなが持っているゲーム) or by the site's "
    "members (みんなが持っているゲーム), never a game the member knows. False on a personal list. Since 1.1.0, "
    "written on every line; a line without it is a personal list.")}


FILE_SCHEMAS: dict[str, dict] = {
    "recommendations.jsonl": _per_member(
        "recommendations", "A member's recommendations (discovery list), one line for every public member",
        "Games the member has not marked 持ってる, 経験あり, お気に入り or 興味あり (no entry in their collection), "
        "best first.", {"welcome": _WELCOME}),
    "next_to_play.jsonl": _per_member(
        "next_to_play", "A member's play next list (積みゲー)",
        "Games the member has (持ってる) and has not played (経験あり), play first first."),
    "watch_next.jsonl": _per_member(
        "watch_next", "A member's watch list, ranked",
        "The member's own 興味あり games (neither 持ってる nor 経験あり), best first."),
    "similar_games.jsonl": _ranked_lines(
        "similar_games", "A game's similar games", "game_id", "The game (the site's slug, as in its URL).",
        "The most similar games, most similar first; never the game itself.",
        {"rank": _RANK, "game_id": _GAME,
         "score": {"type": "number", "description": "The blended similarity; higher is more similar."}}),
}
"""Every export file's schema, by file name. A file the exporter writes must be here."""


def schema_path(file_name: str) -> str:
    """Where a JSONL file's schema sits in a bundle: `schemas/<file stem>.schema.json`."""
    return f"{SCHEMAS_DIR}/{PurePosixPath(file_name).stem}.schema.json"


def schema_bytes(file_name: str) -> bytes:
    """The schema file's exact bytes (the same every night for the same version)."""
    try:
        schema = FILE_SCHEMAS[file_name]
    except KeyError:
        raise ExportError(f"no JSON Schema for {file_name}: add it to warehouse.release.schemas.FILE_SCHEMAS") from None
    return (json.dumps(schema, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def write_schemas(bundle: Path, file_names: Iterable[str]) -> dict[str, dict]:
    """Write the schema of each file into `bundle/schemas/`, fsynced; returns manifest entries by path."""
    (bundle / SCHEMAS_DIR).mkdir(exist_ok=True)
    entries = {}
    for name in file_names:
        data = schema_bytes(name)
        entries[schema_path(name)] = {"sha256": write_synced(bundle / schema_path(name), data), "bytes": len(data)}
    return entries


def shape_fingerprint(schemas: dict[str, dict] | None = None) -> str:
    """sha256 of the schemas' shape: every file and keyword, without annotations (titles,
    descriptions, `$id`), so rewording a description needs no new version but any change
    to what validates does."""
    def shape(node: object, *, keywords: bool = True) -> object:
        if isinstance(node, dict):
            if not keywords:  # a `properties` map: its keys are field names, each value a schema
                return {k: shape(v) for k, v in node.items()}
            return {k: shape(v, keywords=k != "properties") for k, v in node.items() if k not in _ANNOTATIONS}
        if isinstance(node, list):
            return [shape(v) for v in node]
        return node

    canonical = json.dumps(shape(FILE_SCHEMAS if schemas is None else schemas, keywords=False),
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Validated:
    """A bundle whose every JSONL line matched its schema: lines checked per file."""

    path: Path
    schema_version: str
    lines: dict[str, int]


def validate_bundle(bundle: Path) -> Validated:
    """Check every line of every JSONL file the manifest lists against the bundle's own schema.

    Streams each file (one line in memory at a time). Raises BundleInvalid, in one line,
    at the first line that does not match, or when a schema or the version is missing.
    """
    manifest = _read_json(bundle / MANIFEST, "manifest")
    version = manifest.get("schema_version") if isinstance(manifest, dict) else None
    if not isinstance(manifest, dict) or not isinstance(version, str) or not version:
        raise BundleInvalid(f"{bundle / MANIFEST}: no schema_version")
    names = [n for n in manifest.get("files", {}) if n.endswith(".jsonl")]
    if not names:
        raise BundleInvalid(f"{bundle / MANIFEST}: lists no JSONL file")
    lines = {name: _validate_file(bundle, name) for name in names}
    return Validated(path=bundle, schema_version=version, lines=lines)


def _validate_file(bundle: Path, name: str) -> int:
    schema = _read_json(bundle / schema_path(name), f"the schema of {name}")
    try:
        validator = jsonschema_rs.Draft202012Validator(schema)  # type: ignore[arg-type]  # any JSON: it refuses a non-schema itself
    except jsonschema_rs.ValidationError as exc:
        raise BundleInvalid(f"{schema_path(name)} is not a valid JSON Schema: {_short(exc.message)}") from None
    required = schema.get("required") if isinstance(schema, dict) else None
    key = required[0] if isinstance(required, list) and required and required[0] != "items" else None
    is_valid, seen = validator.is_valid, set()
    counting: list[int] = []
    n = 0
    try:
        with open(bundle / name, "rb") as handle:
            for n, raw in enumerate(handle, 1):
                try:
                    line = orjson.loads(raw)  # strict: no NaN/Infinity, UTF-8 only
                except orjson.JSONDecodeError as exc:
                    raise _bad(name, n, f"not a JSON line ({_short(str(exc))})") from None
                if not is_valid(line):
                    error = next(iter(validator.iter_errors(line)))
                    where = "/" + "/".join(str(p) for p in error.instance_path)
                    raise _bad(name, n, f"at {where}: {_short(error.message)}")
                items = line.get("items") if isinstance(line, dict) else None
                if isinstance(items, list):  # the schema made each item an object with a rank
                    ranks = [i.get("rank") for i in items]
                    if len(counting) < len(ranks):
                        counting = list(range(1, len(ranks) + 1))
                    if ranks != counting[: len(ranks)]:
                        raise _bad(name, n, f"ranks {_short(str(ranks))} are not 1, 2, … {len(ranks)} in order")
                if key is not None:
                    if line[key] in seen:
                        raise _bad(name, n, f"{key} {line[key]!r} has a line already")
                    seen.add(line[key])
    except OSError as exc:
        raise BundleInvalid(f"{bundle / name}: cannot be read ({exc.strerror or exc})") from None
    return n


def _bad(name: str, n: int, what: str) -> BundleInvalid:
    return BundleInvalid(f"{name} line {n} does not match {schema_path(name)}: {what}")


def _short(text: str) -> str:
    """One line, at most _MAX_MESSAGE characters (a message may quote a whole line)."""
    line = " ".join(text.split())
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 1] + "…"


def _read_json(path: Path, what: str) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BundleInvalid(f"{what} is missing: {path}") from None
    except (OSError, ValueError) as exc:
        raise BundleInvalid(f"{what} cannot be read: {path}: {_short(str(exc))}") from None


def main(argv: list[str] | None = None) -> int:
    """`validate PATH`: 0 valid, 1 invalid (one line), 2 no bundle there; `fingerprint`."""
    from warehouse.release.bundle_io import latest_bundle, verify_bundle

    parser = argparse.ArgumentParser(prog="python -m warehouse.release.schemas",
                                     description="The export bundle's JSON Schemas.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate", help="check a bundle's checksums, then every line against its schemas")
    check.add_argument("path", type=Path, help="a bundle folder, or an exports folder (its LATEST bundle)")
    sub.add_parser("fingerprint", help="print the schema version and the fingerprint of its shape")
    args = parser.parse_args(argv)
    if args.command == "fingerprint":
        print(f"{SCHEMA_VERSION} {shape_fingerprint()}")
        return 0
    bundle = args.path
    if bundle.is_dir() and not (bundle / MANIFEST).is_file() and (bundle / "LATEST").is_file():
        bundle = latest_bundle(bundle)
    if bundle is None or not (bundle / MANIFEST).is_file():
        return fail(f"{args.path}: not an export bundle (no {MANIFEST})", 2, prog="export_schemas")
    try:
        verify_bundle(bundle)
        result = validate_bundle(bundle)
    except ExportError as exc:
        print(f"export_schemas: invalid: {bundle}: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:  # a manifest of another shape
        print(f"export_schemas: invalid: {bundle}: {MANIFEST} unreadable ({_short(repr(exc))})", file=sys.stderr)
        return 1
    total = sum(result.lines.values())
    print(f"{bundle}: valid: {total} lines in {len(result.lines)} files match schema version {result.schema_version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
