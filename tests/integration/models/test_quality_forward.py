"""``benchmarks.quality_real --forward`` on real ratings (MovieLens-100k from the recbole wheel),
one late cut and three candidates: the forward table's shape and that its figures are what
TEST says (about 10 s)."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest

from benchmarks.quality_forward import one_cut, summarise_forward
from models.interactions import normalise_interactions
from models.movielens import ml100k


@pytest.fixture(scope="module")
def ratings() -> pl.DataFrame:
    raw = ml100k()
    return normalise_interactions(raw)  # keeps updated_at


def test_a_forward_cut_reports_every_candidate_the_champion_and_tau(ratings: pl.DataFrame) -> None:
    run = one_cut(ratings, 0.9, ["popularity", "bm25", "ease"])
    # the cut: nobody's TEST row is earlier than any TRAIN row's cut, TEST members all held something
    cut = ratings.get_column("updated_at").quantile(0.9, interpolation="lower")
    assert run["train_rows"] == ratings.filter(pl.col("updated_at") <= cut).height
    assert run["test_rows"] > 0 and run["test_members"] >= 50
    assert set(run["forward_ndcg"]) == set(run["offline_ndcg"]) == {"popularity", "bm25", "ease"}
    assert run["followed"] in ("offline", "forward") and run["followed"] + " split" in run["selection"]
    # each forward NDCG is the mean of that candidate's per-member NDCG on TEST
    for name, frame in run["per_user"].items():
        assert frame.height == run["test_members"]
        assert frame.get_column("ndcg").mean() == pytest.approx(run["forward_ndcg"][name], abs=1e-4)
    assert -1.0 <= run["kendall_tau_offline_forward"] <= 1.0
    summary = summarise_forward([run])
    vs_pop = summary["paired_forward"]["champion_vs_popularity"]
    assert vs_pop["users"] == run["test_members"] and vs_pop["mean_b"] == pytest.approx(
        run["forward_ndcg"]["popularity"], abs=1e-4)
    assert "forward_vs_popularity" in summary["models"]["ease"]


def test_the_command_prints_the_forward_table_and_rejects_bad_cuts() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.quality_real", "--forward", "--cuts", "0.9",
                           "--models", "popularity", "ease", "bm25"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = json.loads(done.stdout)
    assert printed["split"].startswith("forward") and len(printed["cuts"]) == 1
    assert printed["cuts"][0]["champion"] in printed["models"]
    bad = subprocess.run([sys.executable, "-m", "benchmarks.quality_real", "--forward", "--cuts", "1.5"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
