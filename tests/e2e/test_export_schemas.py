"""The export's JSON Schemas: shipped in every bundle, versioned with the shape, every line held to them.

Here: the tests that start real processes; the rest of this subject:
tests/unit/test_export_schemas.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.warehouse_fixtures import make_warehouse
from warehouse.db import connect
from warehouse.release.export import export_bundle
from warehouse.release.schemas import (
    SCHEMA_VERSION, validate_bundle,
)


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    make_warehouse(tmp_path / "wh.duckdb", "run-1")
    with connect(tmp_path / "wh.duckdb") as con:
        return export_bundle(con, tmp_path / "exports").path


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warehouse.release.schemas", *args],
                          capture_output=True, text=True, timeout=60)


def test_the_site_teams_validator_says_one_line_and_exits_0_1_or_2(bundle: Path, tmp_path: Path) -> None:
    ok = _cli("validate", str(bundle))
    lines = validate_bundle(bundle).lines
    assert ok.returncode == 0 and ok.stdout == (
        f"{bundle}: valid: {sum(lines.values())} lines in {len(lines)} files match schema version {SCHEMA_VERSION}\n")
    (bundle.parent / "LATEST").write_text(bundle.name + "\n", encoding="utf-8")
    assert _cli("validate", str(bundle.parent)).returncode == 0  # an exports folder: its LATEST bundle

    with open(bundle / "similar_games.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"game_id": "c", "items": [{"rank": 1, "game_id": "a"}]}\n')
    tampered = _cli("validate", str(bundle))
    assert tampered.returncode == 1 and "similar_games.jsonl: checksum mismatch" in tampered.stderr
    assert len(tampered.stderr.splitlines()) == 1 and not tampered.stdout

    for missing in (tmp_path / "nowhere", tmp_path):
        bad = _cli("validate", str(missing))
        assert bad.returncode == 2 and bad.stderr.splitlines() == [
            f"export_schemas: error: {missing}: not an export bundle (no manifest.json)"]


def test_the_cli_names_the_bad_line(bundle: Path) -> None:
    from warehouse.release.bundle_io import replace_synced

    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    data = (bundle / "similar_games.jsonl").read_bytes() + b'{"game_id": "c", "items": [{"rank": 1, "game_id": "a"}]}\n'
    manifest["files"]["similar_games.jsonl"] = {"sha256": replace_synced(bundle / "similar_games.jsonl", data),
                                                "bytes": len(data)}
    (bundle / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    bad = _cli("validate", str(bundle))
    assert bad.returncode == 1 and bad.stderr.splitlines() == [
        f"export_schemas: invalid: {bundle}: similar_games.jsonl line 3 does not match "
        "schemas/similar_games.schema.json: at /items/0: \"score\" is a required property"]


def test_validation_benchmark_prints_ours_beside_bare_parsing_and_the_reference() -> None:
    proc = subprocess.run([sys.executable, "-m", "benchmarks.export_validation", "--lines", "40", "--items", "10",
                           "--reference-lines", "10"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["lines"] == result["lines_validated"] == 40
    assert set(result["seconds_per_100k_lines"]) == {"json_parse", "ours", "jsonschema_python"}
