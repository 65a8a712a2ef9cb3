"""Seeded per-user holdout: reproducible, per-user shares, independent choices."""


import polars as pl
import pytest

from models.split import holdout_split, stable_sample
from tests.support.split_frames import SIZES, frame


def test_same_seed_same_split_whatever_the_row_order() -> None:
    data = frame(SIZES)
    first = holdout_split(data, seed=3)
    again = holdout_split(data.reverse(), seed=3)
    assert first[0].equals(again[0]) and first[1].equals(again[1])


def test_other_seed_other_rows() -> None:
    data = frame(SIZES)
    assert not holdout_split(data, seed=1)[1].equals(holdout_split(data, seed=2)[1])


def test_per_user_shares_and_small_users() -> None:
    train, test = holdout_split(frame(SIZES), fraction=0.2, seed=0)
    held = dict(test.group_by("user_id").len().iter_rows())
    assert held == {"a": 2, "b": 1, "d": 1, "e": 4}  # c (1 row) keeps everything
    assert train.height + test.height == sum(SIZES.values())
    assert train.join(test, on=["user_id", "game_id"], how="inner").height == 0
    assert set(train.get_column("user_id")) == set(SIZES)  # everyone keeps a history


def test_user_choice_does_not_change_row_choice() -> None:
    data = frame(SIZES)
    _, everyone = holdout_split(data, seed=5)
    _, some = holdout_split(data, seed=5, users=2)
    assert some.get_column("user_id").n_unique() == 2
    assert some.join(everyone, on=["user_id", "game_id"], how="anti").height == 0


def test_share_of_users() -> None:
    _, test = holdout_split(frame({f"u{i}": 5 for i in range(10)}), seed=0, users=0.5)
    assert test.get_column("user_id").n_unique() == 5


def test_fraction_must_be_a_share() -> None:
    with pytest.raises(ValueError):
        holdout_split(frame(SIZES), fraction=1.0)


def test_time_split_holds_out_each_members_latest_rows() -> None:
    from models.split import time_split

    frame = pl.DataFrame({
        "user_id": ["a"] * 5 + ["b"] * 2 + ["c"],
        "game_id": ["g1", "g2", "g3", "g4", "g5", "g1", "g2", "g1"],
        "updated_at": ["2026-01-01T00:00:00+09:00", "2026-03-01T00:00:00+09:00", None,
                       "2026-02-01T00:00:00+09:00", "2026-03-01T00:00:00+09:00",
                       "2026-01-02T00:00:00+00:00", "2026-01-01T23:00:00-05:00", "2026-01-01T00:00:00+09:00"],
    })
    train, test = time_split(frame.sample(fraction=1.0, shuffle=True, seed=1), fraction=0.4)
    # a: 5 rows → 2 latest (g2 and g5 tie on time: both are the latest); b: 1 of 2, in UTC
    # b's g2 (2026-01-02 04:00Z) is later than g1 (2026-01-02 00:00Z); c: a single row stays in train.
    assert sorted(map(tuple, test.select("user_id", "game_id").rows())) == [("a", "g2"), ("a", "g5"), ("b", "g2")]
    assert train.height + test.height == frame.height and train.columns == frame.columns
    with pytest.raises(ValueError, match="updated_at"):
        time_split(frame.drop("updated_at"))
    # a sample of one eligible member (a or b, by the seeded hash): only they get a test part,
    # the same latest rows as without the sample; the other keeps every row in train
    _, one = time_split(frame, fraction=0.4, users=1, seed=0)
    members = one.get_column("user_id").unique().to_list()
    assert len(members) == 1 and members[0] in {"a", "b"}
    assert one.sort("game_id").equals(test.filter(pl.col("user_id") == members[0]).sort("game_id"))
    assert time_split(frame, fraction=0.4, users=1, seed=0)[1].equals(one)


def test_a_time_split_selection_samples_as_many_members_as_the_random_one() -> None:
    """`ValidationSet.carve` with times holds out the latest rows of at most ``max_users``
    members, like the random split (the night's time-split selection scored every member)."""
    from models.interactions import normalise_interactions
    from models.synthetic import synthetic_interactions
    from models.validation import ValidationSet
    from models.weighting import WEIGHTINGS

    rows = normalise_interactions(synthetic_interactions(120, 40, mean_items_per_user=8, n_clusters=3, seed=2))
    times = rows.select("user_id", "game_id").with_columns(
        updated_at=pl.datetime(2026, 1, 1, time_zone="UTC") + pl.duration(days=pl.int_range(pl.len())))
    timed = ValidationSet.carve(rows, WEIGHTINGS["graded"], seed=0, max_users=30, times=times)
    randomly = ValidationSet.carve(rows, WEIGHTINGS["graded"], seed=0, max_users=30)
    assert timed.rows.size == randomly.rows.size == 30
    whole = ValidationSet.carve(rows, WEIGHTINGS["graded"], seed=0, max_users=None, times=times)
    assert whole.rows.size > 30 and timed.fit_frame.height + timed.held_out.height == rows.height


def test_a_member_whose_rows_did_not_change_keeps_their_split() -> None:
    # Night 2: member "a" adds a game and a new member "0z" (sorting first) joins; everyone
    # else's rows are those of night 1, and so are their test rows.
    night1 = frame(SIZES)
    night2 = pl.concat([night1, frame({"0z": 4}), pl.DataFrame({"user_id": ["a"], "game_id": ["g999"]})])
    _, before = holdout_split(night1, seed=4)
    _, after = holdout_split(night2, seed=4)
    kept = ~pl.col("user_id").is_in(["a", "0z"])
    assert after.filter(kept).equals(before.filter(kept)) and before.filter(kept).height > 0


def test_a_sample_keeps_its_members_when_others_join() -> None:
    ids = pl.Series("user_id", [f"u{i:03d}" for i in range(200)])
    first = set(ids.gather(stable_sample(ids, 50, seed=1)))
    grown = pl.concat([ids, pl.Series("user_id", [f"new{i}" for i in range(10)])]).sort()
    second = set(grown.gather(stable_sample(grown, 50, seed=1)))
    joined = second - first
    assert joined <= {f"new{i}" for i in range(10)}  # only newcomers can take a place
    assert len(first & second) == 50 - len(joined) and len(first & second) >= 40
    assert stable_sample(ids, 50, seed=1).tolist() == sorted(stable_sample(ids, 50, seed=1).tolist())
    assert set(ids.gather(stable_sample(ids, 50, seed=2))) != first
