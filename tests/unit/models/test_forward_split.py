"""The forward split (one cut in time for everybody) and the rule that decides whether the
champion follows it: a hand-made collection history, hand-computed rule cases, and the
selection recorded in ``marts.model_runs`` rows."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl
import pytest

from models.forward import MIN_FORWARD_MEMBERS, choose_split, kendall_tau
from models.split import forward_split
from tests.support.model_data import small_split  # noqa: F401 - a fixture

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _history() -> pl.DataFrame:
    """Three members' collections, each row stamped with the day it was added."""
    rows = [
        ("ann", "catan", 1), ("ann", "azul", 5), ("ann", "root", 12), ("ann", "wingspan", 20),
        ("bob", "catan", 3), ("bob", "root", 9), ("bob", "azul", 10),  # day 10 is the cut: held by then
        ("cid", "azul", 15), ("cid", "catan", 18),  # joined after the cut: a cold start
        ("dee", "root", None), ("dee", "gloom", 11),  # no time: counted as held before
    ]
    return pl.DataFrame(
        {"user_id": [r[0] for r in rows], "game_id": [r[1] for r in rows],
         "updated_at": [None if r[2] is None else T0 + timedelta(days=r[2]) for r in rows]},
        schema_overrides={"updated_at": pl.Datetime("us", "UTC")},
    )


def _pairs(frame: pl.DataFrame) -> set[tuple[str, str]]:
    return set(frame.select("user_id", "game_id").iter_rows())


def test_train_is_what_was_held_at_the_cut_and_test_what_members_added_after() -> None:
    train, test = forward_split(_history(), at=T0 + timedelta(days=10))
    assert _pairs(train) == {("ann", "catan"), ("ann", "azul"), ("bob", "catan"), ("bob", "root"),
                             ("bob", "azul"), ("dee", "root")}
    assert _pairs(test) == {("ann", "root"), ("ann", "wingspan"), ("dee", "gloom")}  # not cid: no history


def test_no_members_future_is_in_train() -> None:
    """The leak test: every TRAIN row is at or before the cut, every TEST row after it, for
    every member and every cut (a split that kept each member's own latest rows would fail)."""
    history = _history()
    for day in range(0, 22):
        cut = T0 + timedelta(days=day)
        train, test = forward_split(history, at=cut)
        assert train.filter(pl.col("updated_at") > cut).height == 0
        assert test.filter(pl.col("updated_at") <= cut).height == 0
        assert not _pairs(train) & _pairs(test)
        # together they are the history less the later rows of members who held nothing at the cut
        held = set(train.get_column("user_id"))
        assert _pairs(train) | _pairs(test) == {p for p in _pairs(history) if p[0] in held}


def test_the_cut_by_quantile_text_times_and_bad_input() -> None:
    history = _history()
    as_text = history.with_columns(pl.col("updated_at").dt.to_string("%Y-%m-%dT%H:%M:%S+00:00"))
    by_text = forward_split(as_text, at="2026-01-11T00:00:00+00:00")
    assert _pairs(by_text[1]) == {("ann", "root"), ("ann", "wingspan"), ("dee", "gloom")}
    # the 0.5 quantile of the ten stamped days (1, 3, 5, 9, 10, 11, 12, 15, 18, 20; lower) is day 10
    assert _pairs(forward_split(history, quantile=0.5)[1]) == _pairs(by_text[1])
    with pytest.raises(ValueError, match="updated_at"):
        forward_split(history.drop("updated_at"))
    with pytest.raises(ValueError, match="quantile"):
        forward_split(history, quantile=1.0)


def test_kendall_tau_of_two_rankings() -> None:
    assert kendall_tau({"a": 0.1, "b": 0.2, "c": 0.3}, {"a": 1.0, "b": 2.0, "c": 3.0}) == pytest.approx(1.0)
    assert kendall_tau({"a": 0.1, "b": 0.2, "c": 0.3}, {"a": 3.0, "b": 2.0, "c": 1.0}) == pytest.approx(-1.0)
    # one discordant pair of three: (2 - 1) / 3
    assert kendall_tau({"a": 0.1, "b": 0.2, "c": 0.3}, {"a": 0.1, "b": 0.3, "c": 0.2}) == pytest.approx(1 / 3)
    assert kendall_tau({"a": 0.1, "b": 0.2}, {"a": 0.1, "b": 0.2}) is None  # two candidates: no ranking


def _users(n: int, value: float, every: float | None = None) -> np.ndarray:
    return np.full(n, value) if every is None else np.where(np.arange(n) % 2 == 0, value, every)


def test_the_rule_follows_forward_only_with_enough_members_and_no_offline_loss() -> None:
    n = MIN_FORWARD_MEMBERS
    offline = {"ease": _users(200, 0.40), "als": _users(200, 0.41)}
    assert choose_split(offline, None).followed == "offline"
    # forward ranks ease first, but too few members: offline decides
    thin = choose_split(offline, {"ease": _users(n - 1, 0.3), "als": _users(n - 1, 0.2)})
    assert thin.followed == "offline" and f"only {n - 1} members" in thin.reason
    # enough members, and ease loses offline by 0.01 with no noise (SE 0): beyond one SE, offline decides
    lost = choose_split(offline, {"ease": _users(n, 0.3), "als": _users(n, 0.2)})
    assert lost.followed == "offline" and "loses 0.0100" in lost.reason
    # a loss within its noise: ease alternates 0.50/0.31 (mean 0.405) against 0.41, a paired
    # difference of -0.09/+0.10 per member: mean 0.005, SE 0.095/sqrt(200) = 0.0067
    noisy = {"ease": _users(200, 0.50, 0.31), "als": _users(200, 0.41)}
    followed = choose_split(noisy, {"ease": _users(n, 0.3), "als": _users(n, 0.2)})
    assert followed.followed == "forward" and "within one standard error" in followed.reason
    # both agree: forward, τ 1 over three candidates
    agree = choose_split({**offline, "pop": _users(200, 0.1)},
                         {"ease": _users(n, 0.2), "als": _users(n, 0.3), "pop": _users(n, 0.1)})
    assert agree.followed == "forward" and agree.tau == pytest.approx(1.0)


def test_the_champion_choice_records_the_split_it_followed(small_split) -> None:  # noqa: F811
    from models.evaluate import evaluate

    train, test = small_split
    times = train.select("user_id", "game_id", (pl.lit(T0) + pl.duration(
        hours=pl.struct("user_id", "game_id").hash(11) % 10_000)).alias("updated_at"))
    report = evaluate(train, test, k=10, models=["popularity", "ease", "bm25"], forward=times)
    assert report.followed in ("offline", "forward")
    assert f"followed the {report.followed} split" in report.selection and "Kendall τ" in report.selection
    runs = report.model_runs("r1", T0)
    assert set(runs.get_column("selection")) == {report.selection}
    forward = {row["model"]: row["params"] for row in runs.iter_rows(named=True)}
    assert all('"forward_ndcg"' in params for params in forward.values())
    assert {"followed", "kendall_tau"} <= set(report.to_dict())
    # without times nothing is said of a forward split, and the JSON keeps the contract's shape
    plain = evaluate(train, test, k=10, models=["popularity", "ease", "bm25"])
    assert "forward" not in plain.selection and set(plain.to_dict()) == {"k", "champion", "models"}


def test_the_run_summary_names_the_split_followed_and_the_number_it_won_on() -> None:
    from bodoge.summary import champion_lines
    from models.forward import SplitChoice
    from models.report import TUNED, selection_text

    choice = SplitChoice("forward", "120 members added a game after the cut; both splits rank bm25 first", 0.6)
    text = selection_text(k=10, n_candidates=3, by_time=True, tuning=TUNED, split_choice=choice)
    assert text.startswith("best NDCG@10 of 3 candidates on a forward split of TRAIN")
    assert "followed the forward split: 120 members" in text and "(Kendall τ offline/forward 0.60)" in text
    rows = [{"model": model, "ndcg": ndcg, "champion": model == "bm25", "selection_ndcg": won, "forward_ndcg": ahead,
             "selection": text, "split": "time"}
            for model, ndcg, won, ahead in (("ease", 0.25, 0.30, 0.11), ("bm25", 0.20, 0.32, 0.14))]
    assert champion_lines(rows)[0] == f"champion: bm25 (forward selection NDCG@10 0.1400), chosen by {text}"
    offline = selection_text(k=10, n_candidates=3, by_time=True, tuning=TUNED,
                             split_choice=SplitChoice("offline", "only 12 members added a game after the forward cut", None))
    assert "on a time split of TRAIN" in offline and "followed the offline split: only 12 members" in offline
    assert champion_lines([{**row, "selection": offline} for row in rows])[0].startswith(
        "champion: bm25 (selection NDCG@10 0.3200)")


def test_without_any_time_the_choice_stays_offline_and_says_so(small_split) -> None:  # noqa: F811
    from models.evaluate import evaluate

    train, test = small_split
    untimed = train.select("user_id", "game_id", pl.lit(None, dtype=pl.Datetime("us", "UTC")).alias("updated_at"))
    report = evaluate(train, test, k=10, models=["popularity", "ease", "bm25"], forward=untimed)
    assert report.followed == "offline" and "followed the offline split: no forward view" in report.selection
    assert all(result.forward_ndcg is None for result in report.results.values())
    assert any("no forward selection split" in (result.notes or "") for result in report.results.values())
