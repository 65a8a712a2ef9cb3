"""How many member buckets a night has when BODOGE_DISCOVERY_BUCKETS is unset: one per 50,000
members of the published night (docs/scaling.md, "How many buckets"), and the inputs the
bucket steps read instead of the warehouse (real Parquet files)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from core.settings import MAX_BUCKETS, MEMBERS_PER_BUCKET, Settings, buckets_for, read
from warehouse.bucket_inputs import BucketInputs, published_members, read_inputs, write_inputs


@pytest.mark.parametrize(("members", "buckets"), [
    (0, 1), (2_000, 1), (50_000, 1), (50_001, 2), (89_961, 2), (190_000, 4), (400_000, 8), (10**9, MAX_BUCKETS),
])
def test_one_bucket_per_fifty_thousand_members(members: int, buckets: int) -> None:
    assert buckets_for(members) == buckets
    assert MEMBERS_PER_BUCKET == 50_000


def _publish(exports: Path, users: int) -> None:
    bundle = exports / "20261128T030000Z"
    bundle.mkdir(parents=True)
    (bundle / "manifest.json").write_text(json.dumps({"counts": {"users": users}}), encoding="utf-8")
    (exports / "LATEST").write_text(bundle.name + "\n", encoding="utf-8")


def test_the_member_count_is_the_published_nights(tmp_path: Path) -> None:
    exports = tmp_path / "exports"
    assert published_members(exports) == 0  # before the first night: one bucket
    _publish(exports, 123_456)
    assert published_members(exports) == 123_456 and buckets_for(published_members(exports)) == 3
    (exports / "20261128T030000Z" / "manifest.json").write_text("{not json", encoding="utf-8")
    assert published_members(exports) == 0


def test_an_explicit_setting_wins_and_unset_is_none() -> None:
    assert Settings.load(environ={}).discovery_buckets is None
    assert read("discovery_buckets", environ={"BODOGE_DISCOVERY_BUCKETS": "4"}) == 4
    assert Settings.load(environ={}).to_env()["BODOGE_DISCOVERY_BUCKETS"] == ""  # children derive it too


def test_the_bucket_inputs_round_trip(tmp_path: Path) -> None:
    inputs = BucketInputs(site_rows=pl.DataFrame({"user_id": ["a", "b"], "game_id": ["g1", "g2"]}),
                          members=["a", "b", "c"],
                          hints=pl.DataFrame({"user_id": ["c"], "game_id": ["g3"]}))
    write_inputs(tmp_path, inputs)
    back = read_inputs(tmp_path)
    assert back.members == inputs.members
    assert back.site_rows.equals(inputs.site_rows) and back.hints.equals(inputs.hints)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hints.parquet", "members.parquet", "site_rows.parquet"]
