"""The bundle's per-member files written per member bucket and put together: the same bundle,
byte for byte, as the one written whole (`warehouse.release.bucket_export`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from models.discovery.buckets import bucket_keys, bucket_of
from tests.support.discovery_warehouse import shared_discovery_warehouse
from warehouse.db import connect
from warehouse.release.bucket_export import PER_MEMBER_FILES, PartsMissing, in_bucket_of, write_part
from warehouse.release.export import export_bundle


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_discovery_warehouse(tmp_path_factory)["paths"].warehouse


def _copy(warehouse: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    return Path(shutil.copy(warehouse, folder / "warehouse.duckdb"))


@pytest.mark.parametrize("n_buckets", [1, 4])
def test_a_bundle_from_bucket_parts_is_the_whole_bundle_byte_for_byte(warehouse: Path, tmp_path: Path,
                                                                       n_buckets: int) -> None:
    with connect(_copy(warehouse, tmp_path / "whole")) as con:
        whole = export_bundle(con, tmp_path / "whole" / "exports")
    parts, keys = tmp_path / "bucketed" / "buckets" / "export", bucket_keys(n_buckets)
    with connect(_copy(warehouse, tmp_path / "bucketed")) as con:
        counts = {key: write_part(con, parts, key, keep=in_bucket_of(int(key), n_buckets, bucket_of)) for key in keys}
        bucketed = export_bundle(con, tmp_path / "bucketed" / "exports", parts=(parts, keys))
    users = [counts[key]["recommendations.jsonl"][0] for key in keys]
    assert sum(users) == whole.manifest["counts"]["users"] > 0
    if n_buckets > 1:  # the members really are spread over the parts
        assert all(0 < u < sum(users) for u in users)
    for name in whole.manifest["files"]:
        assert (bucketed.path / name).read_bytes() == (whole.path / name).read_bytes(), name
    assert {k: v for k, v in bucketed.manifest.items() if k != "created_at"} == {
        k: v for k, v in whole.manifest.items() if k != "created_at"}
    assert not parts.exists()  # members' lists kept no longer than the bundle needs them
    lines = (whole.path / "recommendations.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["user_id"] for line in lines] == sorted(json.loads(line)["user_id"] for line in lines)


def test_a_bucket_part_missing_writes_no_bundle(warehouse: Path, tmp_path: Path) -> None:
    parts, keys = tmp_path / "buckets" / "export", bucket_keys(3)
    with connect(_copy(warehouse, tmp_path / "night")) as con:
        for key in keys[:2]:
            write_part(con, parts, key, keep=in_bucket_of(int(key), 3, bucket_of))
        with pytest.raises(PartsMissing, match="export parts not written: 02"):
            export_bundle(con, tmp_path / "night" / "exports", parts=(parts, keys))
    assert not (tmp_path / "night" / "exports").exists() or not any((tmp_path / "night" / "exports").iterdir())
    assert sorted(p.name for p in (parts / "00").iterdir()) == sorted([*PER_MEMBER_FILES, "counts.json"])
