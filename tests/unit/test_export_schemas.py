"""The export's JSON Schemas: shipped in every bundle, versioned with the shape, every line held to them.

The reference `jsonschema` (the Python implementation of the spec) judges the schemas and
the lines too, so the fast validator the night uses cannot drift from the standard.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from jsonschema import Draft202012Validator

from tests.support.warehouse_fixtures import make_warehouse
from tests.support.warehouse_fixtures import create_marts
from warehouse.db import connect
from warehouse.release.export import FILES, export_bundle, latest_bundle
from warehouse.release.schemas import (
    FILE_SCHEMAS, SCHEMA_VERSION, BundleInvalid, schema_path, shape_fingerprint, validate_bundle,
)
from warehouse.release.release import release_night

RELEASED = {
    "1.0.0": "843d0fdf6d405714e984551107f699f93c13a7a10d8fcd02b3a9c76941e957ba",
    "1.1.0": "240b7d81711fe82193470b5a6036d2a029666198876c233d6f8d76f46cba564c",  # recommendations.jsonl lines may say `welcome` (issue 42)
}
"""Every released schema version and the fingerprint of its shape (`python -m
warehouse.release.schemas fingerprint`). A released line is never edited: a new shape
gets a new version here and in `SCHEMA_VERSION` (major when a field goes or changes
type, minor when an optional one comes), and the site is told."""


def _semver(text: str) -> tuple[int, int, int]:
    major, minor, patch = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text).groups()
    return int(major), int(minor), int(patch)


def test_the_shape_cannot_change_without_the_version() -> None:
    assert SCHEMA_VERSION == max(RELEASED, key=_semver)
    assert shape_fingerprint() == RELEASED[SCHEMA_VERSION], (
        "the export's shape changed: give it a new SCHEMA_VERSION and pin its fingerprint in RELEASED")
    assert len(set(RELEASED.values())) == len(RELEASED)  # two versions never name one shape


def test_a_changed_shape_changes_the_fingerprint_a_reworded_description_does_not() -> None:
    reworded = json.loads(json.dumps(FILE_SCHEMAS))
    reworded["recommendations.jsonl"]["properties"]["items"]["description"] = "other words"
    assert shape_fingerprint(reworded) == shape_fingerprint()
    for change in ("score type", "new field", "new file"):
        changed = json.loads(json.dumps(FILE_SCHEMAS))
        item = changed["recommendations.jsonl"]["properties"]["items"]["items"]
        if change == "score type":
            item["properties"]["score"]["type"] = ["number", "null"]
        elif change == "new field":
            item["properties"]["description"] = {"type": "string"}  # a field may be called "description"
        else:
            changed["wishlist.jsonl"] = changed["recommendations.jsonl"]
        assert shape_fingerprint(changed) != shape_fingerprint(), change


def test_every_exported_file_has_a_strict_draft_2020_12_schema() -> None:
    assert set(FILES) <= set(FILE_SCHEMAS)
    assert "watch_next.jsonl" in FILE_SCHEMAS  # the same shape as next_to_play.jsonl
    for name, schema in FILE_SCHEMAS.items():
        Draft202012Validator.check_schema(schema)  # against the draft's meta-schema
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"].endswith(f":{SCHEMA_VERSION}:{Path(name).stem}")
        item = schema["properties"]["items"]["items"]
        for obj in (schema, item):
            assert obj["additionalProperties"] is False and obj["required"] == list(obj["properties"])[:len(obj["required"])]
        assert item["required"] == list(item["properties"])  # every item field is required
        assert [k for k in schema["properties"] if k not in schema["required"]] == (
            ["welcome"] if name == "recommendations.jsonl" else [])  # 1.1.0's optional line field
        assert item["properties"]["rank"] == {**item["properties"]["rank"], "type": "integer", "minimum": 1}
        assert item["properties"]["score"]["type"] == "number"
    same_shape = [shape_fingerprint({"f": FILE_SCHEMAS[n]}) for n in ("watch_next.jsonl", "next_to_play.jsonl")]
    assert same_shape[0] == same_shape[1]


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    make_warehouse(tmp_path / "wh.duckdb", "run-1")
    with connect(tmp_path / "wh.duckdb") as con:
        return export_bundle(con, tmp_path / "exports").path


def test_every_line_of_an_export_validates_here_and_under_the_reference_validator(bundle: Path) -> None:
    lines = validate_bundle(bundle).lines
    assert set(lines) == set(FILES)  # whatever files the manifest lists
    assert {n: lines[n] for n in ("recommendations.jsonl", "next_to_play.jsonl", "similar_games.jsonl")} == {
        "recommendations.jsonl": 2, "next_to_play.jsonl": 1, "similar_games.jsonl": 2}
    for name in FILES:
        shipped = json.loads((bundle / schema_path(name)).read_text(encoding="utf-8"))
        assert shipped == FILE_SCHEMAS[name]
        reference = Draft202012Validator(shipped)
        for line in (bundle / name).read_text(encoding="utf-8").splitlines():
            assert not list(reference.iter_errors(json.loads(line))), line


GOOD = {"user_id": "9", "items": [{"rank": 1, "game_id": "a", "score": 0.5, "reason": "人気のゲーム"},
                                  {"rank": 2, "game_id": "b", "score": -0.1, "reason": "人気のゲーム"}]}


def _with(**change: object) -> str:
    line = json.loads(json.dumps(GOOD))
    for where, value in change.items():
        if where == "line":
            return str(value)
        target, key = (line["items"][1], where[5:]) if where.startswith("item_") else (line, where)
        if value is KeyError:
            del target[key]
        else:
            target[key] = value
    return json.dumps(line, ensure_ascii=False)


# (bad line, what the error says, whether JSON Schema itself rejects it)
BAD_LINES = [
    (_with(item_score=None), 'at /items/1/score: null is not of type "number"', True),
    (_with(item_score="0.5"), 'at /items/1/score: "0.5" is not of type "number"', True),
    (_with(item_rank=0), "at /items/1/rank: 0 is less than the minimum of 1", True),
    (_with(item_rank="2"), 'at /items/1/rank: "2" is not of type "integer"', True),
    (_with(item_reason=KeyError), '"reason" is a required property', True),
    (_with(item_reason=None), 'at /items/1/reason: null is not of type "string"', True),
    (_with(item_game_id=""), "at /items/1/game_id:", True),
    (_with(item_extra=1), "Additional properties are not allowed ('extra' was unexpected)", True),
    (_with(user_id=17), 'at /user_id: 17 is not of type "string"', True),
    (_with(items=[]), "at /items: [] has less than 1 item", True),
    (_with(line="[1, 2]"), 'at /: [1,2] is not of type "object"', True),
    (_with(item_rank=3), "ranks [1, 3] are not 1, 2, … 2 in order", False),
    (_with(user_id="1"), "user_id '1' has a line already", False),
    (_with(line='{"user_id": "9", "items": [{"rank": 1, "game_id": "a", "score": NaN, "reason": "x"}]}'),
     "not a JSON line (unexpected character", False),
    (_with(line='{"user_id": "9", "items": [{"rank": 1, "game_id": "a", "score": 1e999, "reason": "x"}]}'),
     "not a JSON line (number is infinity", False),
    (_with(line='{"user_id": "9", "items": ['), "not a JSON line", False),
    (_with(line=""), "not a JSON line", False),
]


@pytest.mark.parametrize(("line", "says", "schema_rejects"), BAD_LINES)
def test_a_bad_line_is_one_error_naming_file_line_and_cause(bundle: Path, line: str, says: str,
                                                            schema_rejects: bool) -> None:
    name = "recommendations.jsonl"
    with open(bundle / name, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")  # after the two good lines: line 3
    with pytest.raises(BundleInvalid) as err:
        validate_bundle(bundle)
    message = str(err.value)
    assert message.startswith(f"{name} line 3 does not match schemas/recommendations.schema.json: ")
    assert says in message and "\n" not in message, message
    if line and not line.endswith("["):  # the reference agrees on what JSON Schema itself can say
        assert Draft202012Validator(FILE_SCHEMAS[name]).is_valid(json.loads(line)) is not schema_rejects


def test_a_bundle_without_its_schema_or_version_is_invalid(bundle: Path) -> None:
    (bundle / "schemas" / "next_to_play.schema.json").unlink()
    with pytest.raises(BundleInvalid, match=r"the schema of next_to_play\.jsonl is missing"):
        validate_bundle(bundle)
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    del manifest["schema_version"]
    (bundle / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(BundleInvalid, match="no schema_version"):
        validate_bundle(bundle)


def test_an_invalid_export_fails_leaves_nothing_and_latest_stays(tmp_path: Path) -> None:
    """A NaN score (Polars writes it as null) fails the export before its bundle is renamed into place."""
    wh, exports = tmp_path / "wh.duckdb", tmp_path / "exports"
    make_warehouse(wh, "run-1")
    with connect(wh) as con:
        good = export_bundle(con, exports)
        release_night(con, tmp_path, run_id="night-1", bundle_run_id=good.run_id)
    before = {str(p.relative_to(exports)): p.read_bytes() for p in exports.rglob("*") if p.is_file()}
    recs = pl.DataFrame({"user_id": ["1", "2"], "rank": [1, 1], "game_id": ["a", "c"], "score": [0.9, float("nan")],
                         "model": ["ease"] * 2, "run_id": ["run-2"] * 2, "reason": ["人気のゲーム"] * 2})
    similar = pl.DataFrame({"game_id": ["a"], "rank": [1], "similar_game_id": ["b"], "score": [0.8], "run_id": ["run-2"]})
    shelf = pl.DataFrame({"user_id": ["1"], "rank": [1], "game_id": ["p"], "score": [0.6], "reason": ["x"],
                          "run_id": ["run-2"]})
    create_marts(wh, {"recommendations": recs, "similar_games": similar, "next_to_play": shelf,
                      "watch_next": shelf})
    with connect(wh) as con:
        with pytest.raises(BundleInvalid) as err:
            export_bundle(con, exports)
    # DuckDB writes the NaN as the bare token NaN, which is not JSON.
    assert str(err.value).startswith("recommendations.jsonl line 2 does not match "
                                     "schemas/recommendations.schema.json: not a JSON line (unexpected character")
    assert {str(p.relative_to(exports)): p.read_bytes() for p in exports.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in exports.iterdir()) == ["LATEST", "run-1"]  # no half bundle, no litter
    assert latest_bundle(exports) == good.path
