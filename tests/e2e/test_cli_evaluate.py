"""`bodoge evaluate` as a user runs it: files in, the contract's JSON out, metrics recomputable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from models.metrics import ndcg_at_k
from models.split import holdout_split
from models.synthetic import synthetic_interactions


def bodoge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bodoge.cli", *args], capture_output=True, text=True, encoding="utf-8")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("eval")
    train, test = holdout_split(synthetic_interactions(400, 200, seed=5), fraction=0.2, seed=1)
    train.write_csv(folder / "train.csv")
    test.select("user_id", "game_id").write_parquet(folder / "test.parquet")  # flags absent: one interaction each
    return folder / "train.csv", folder / "test.parquet"


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_json_and_output_agree(files, tmp_path, suffix) -> None:
    train, test = files
    output = tmp_path / f"top{suffix}"
    run = bodoge("evaluate", "--train", str(train), "--test", str(test), "--k", "5", "--json", "--output", str(output))
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["k"] == 5 and report["champion"] in report["models"]
    assert set(report["models"]) >= {"popularity", "cosine", "bm25", "als", "bpr", "ease", "rp3beta"}
    for metrics in report["models"].values():
        assert set(metrics) == {"ndcg", "precision", "recall", "map", "coverage", "fit_seconds"}
    top = pl.read_parquet(output) if suffix == ".parquet" else pl.read_csv(output, schema_overrides={"user_id": pl.String})
    assert top.columns == ["user_id", "rank", "game_id", "score"] and top["rank"].max() == 5
    relevant = pl.read_parquet(test).with_columns(pl.col("user_id").cast(pl.String))
    recomputed = ndcg_at_k(top, relevant, k=5)
    assert recomputed == pytest.approx(report["models"][report["champion"]]["ndcg"], abs=1e-6)
    champion, popularity = report["models"][report["champion"]]["ndcg"], report["models"]["popularity"]["ndcg"]
    assert champion > 1.5 * popularity


def test_bad_input_is_one_line(files, tmp_path) -> None:
    train, test = files
    bad = tmp_path / "bad.csv"
    bad.write_text("member,title\n1,x\n", encoding="utf-8")
    for args in (["--train", str(tmp_path / "missing.csv"), "--test", str(test)],
                 ["--train", str(bad), "--test", str(test)],
                 ["--train", str(train), "--test", str(test), "--output", str(tmp_path / "top.txt")]):
        run = bodoge("evaluate", *args)
        assert run.returncode == 2 and run.stderr.startswith("bodoge: error:") and run.stderr.count("\n") == 1, run.stderr


def test_forward_names_the_split_it_followed_and_needs_times(files: tuple[Path, Path], tmp_path: Path) -> None:
    train_path, test_path = files
    train = pl.read_csv(train_path, schema_overrides={"user_id": pl.String, "game_id": pl.String})
    # each member's rows stamped a day apart in game order: the later ones are what they added next
    timed = train.with_columns(updated_at=(pl.datetime(2026, 1, 1, time_zone="UTC") + pl.duration(
        days=pl.col("game_id").rank("ordinal").over("user_id"))).dt.to_string("%Y-%m-%dT%H:%M:%S+00:00"))
    timed.write_csv(tmp_path / "timed.csv")
    done = bodoge("evaluate", "--train", str(tmp_path / "timed.csv"), "--test", str(test_path), "--json", "--forward")
    assert done.returncode == 0, done.stderr[-2000:]
    printed = json.loads(done.stdout)
    assert printed["followed"] in ("offline", "forward") and f"followed the {printed['followed']} split" in printed["selection"]
    assert all(0.0 <= model["forward_ndcg"] <= 1.0 for model in printed["models"].values())
    untimed = bodoge("evaluate", "--train", str(train_path), "--test", str(test_path), "--forward")
    assert untimed.returncode == 2 and "needs an updated_at column" in untimed.stderr
    assert "Traceback" not in untimed.stderr and len(untimed.stderr.strip().splitlines()) == 1
