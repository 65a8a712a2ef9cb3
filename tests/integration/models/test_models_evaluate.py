"""evaluate run whole: the quality target at the synthetic set's full size (~3,000 × 1,500), and
every candidate evaluated twice, on one thread and on two.

Here: whole-protocol runs, too long for the unit tier; the rest of this subject:
tests/unit/models/test_models_evaluate.py.
"""


import polars as pl
import pytest

from models.evaluate import evaluate
from models.interactions import normalise_interactions
from models.split import holdout_split
from models.synthetic import synthetic_interactions


def test_champion_beats_popularity_by_half_on_clustered_data() -> None:
    """The quality target on the ~3,000 × 1,500 clustered synthetic set (a few models, for time)."""
    rows = normalise_interactions(synthetic_interactions(seed=0))
    train, test = holdout_split(rows, seed=1)
    report = evaluate(train, test, models=["popularity", "ease", "rp3beta"])
    ndcg = {name: result.metrics["ndcg"] for name, result in report.results.items()}
    assert ndcg[report.champion] >= 1.5 * ndcg["popularity"], ndcg


def test_two_threads_give_the_sequential_report(
    small_split: tuple[pl.DataFrame, pl.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The candidates on two threads (``models.parallel``): every number, list and choice as
    one after another, and the results in the candidates' (tie-breaking) order."""
    from polars.testing import assert_frame_equal

    from models import parallel
    from models.candidates import default_candidates

    train, test = small_split
    reports = {}
    for threads in (1, 2):
        monkeypatch.setattr(parallel, "EVALUATION_THREADS", threads)
        reports[threads] = evaluate(train, test, k=10, seed=0)
    sequential, threaded = reports[1], reports[2]
    assert list(threaded.results) == list(sequential.results) == list(default_candidates())
    assert threaded.champion == sequential.champion
    assert threaded.weighting == sequential.weighting
    for name, expected in sequential.results.items():
        got = threaded.results[name]
        assert got.params == expected.params, name
        assert [(t.params, t.ndcg) for t in got.tuning.trials] == [(t.params, t.ndcg) for t in expected.tuning.trials], name
        assert got.selection_ndcg == expected.selection_ndcg, name
        assert got.metrics == expected.metrics, name
        assert got.beyond == expected.beyond, name
        assert got.notes == expected.notes, name
        assert_frame_equal(got.topk, expected.topk)
    members = threaded.results["ensemble"].params["shares"]
    assert threaded.results["ensemble"].fit_seconds >= sum(threaded.results[m].fit_seconds for m in members)
