"""Both engines give every list bit for bit: discovery, both shelves, similar games and game
night, for every kind of champion (``DiscoveryModel(engine="compiled")`` against the
readable reference, ``engine="reference"``).

On the demo's site (``bodoge demo``: 1,000 games, 2,000 members). Every column of every
row is compared (ids, ranks, float scores, reasons), so a change to one engine that the
other does not make fails here. The kernels' own adversarial inputs (ties, ±0, ±inf,
NaN, empty rows) are in ``test_kernels.py``; a blended row holding NaN is below.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.threads import single_threaded_blas
from models.discovery.group import Table, game_night
from models.discovery.model import ENGINES, DiscoveryModel
from models.discovery.run import ChampionFit, fit_state
from models.discovery.shelves import SHELVES, shelf_rows
from models.discovery.similar import similar_games
from models.ensemble import Ensemble
from tests.support.champions import CHAMPIONS

MEMBERS = 600
"""Members ranked per champion: enough for thousands of rows per list, in a few seconds."""


@pytest.fixture(scope="module")
def site(demo_site):
    return demo_site


def _lists(state: DiscoveryModel, rows: pl.DataFrame, users: list[str]) -> dict[str, pl.DataFrame]:
    """Every list the night computes, by this model's engine."""
    if isinstance(state.model, Ensemble):
        state.model.keep_statistics()  # a fresh night's serving
    with single_threaded_blas():
        ranked, counts = state.rank(rows, users, 100)
        lists = {"discovery": ranked, "counts": pl.DataFrame([counts])}
        for name, shelf in SHELVES.items():
            lists[name] = shelf_rows(state, rows, users, shelf, run_id="r")
        lists["similar"] = similar_games(state, 20)
        for size in (3, 5):
            group = users[size * 7: size * 7 + size]
            table = Table(user_ids=group, collections=rows.filter(pl.col("user_id").is_in(group)),
                          playable=state.game_ids, anywhere=True)
            lists[f"game_night_{size}"] = game_night(state, table, n=30)
    return lists


@pytest.mark.parametrize("champion", sorted(CHAMPIONS))
def test_every_list_is_the_same_by_both_engines(site, champion: str) -> None:
    rows, catalog, users = site
    with single_threaded_blas():
        compiled = fit_state(rows, catalog, None, ChampionFit(champion=champion, params=CHAMPIONS[champion]))
    assert compiled.engine == "compiled"
    reference = compiled.with_engine("reference")
    assert reference.fused is None and reference.engine == "reference"
    fast, slow = _lists(compiled, rows, users[:MEMBERS]), _lists(reference, rows, users[:MEMBERS])
    assert fast["discovery"].height > MEMBERS * 50 and fast["similar"].height > 0
    assert any(fast[name].height > 0 for name in SHELVES) and fast["game_night_3"].height > 0
    for name, frame in fast.items():
        assert frame.equals(slow[name]), f"{champion}: {name} differs between the engines"


def test_a_row_holding_nan_is_ranked_alike_by_both_engines(site) -> None:
    """A neighbour graph holding NaN makes blended rows with NaN: the compiled engine hands
    such a block to its separate steps, which rank it as the reference does."""
    rows, catalog, users = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion="ease", params=CHAMPIONS["ease"]))
    members = state.members(rows, users[:50])
    graph = state.graph.copy()
    graph.data[graph.indptr[int(members.liked.indices[0])]] = np.nan
    state.graph = graph
    fast, _ = state.rank(rows, users[:50], 100)
    slow, _ = state.with_engine("reference").rank(rows, users[:50], 100)
    assert fast.height > 0 and fast.equals(slow)


def test_an_unknown_engine_is_refused(site) -> None:
    rows, catalog, _ = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion="popularity", params={}))
    assert ENGINES == ("compiled", "reference")
    with pytest.raises(ValueError, match="unknown discovery engine 'numpy'"):
        state.with_engine("numpy")


def test_the_nights_run_computes_by_the_engine_it_is_given(tmp_path, monkeypatch) -> None:
    """`BODOGE_DISCOVERY_ENGINE` reaches the night's run (`discover_interactions(engine=…)`):
    the saved model's lists, the shelves and similar games are the same either way."""
    from datetime import UTC, datetime

    from models.content import ContentModel
    from models.discovery.run import catalog_frame, discover_interactions
    from models.interactions import normalise_interactions
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    frames = truth_frames(generate_site(n_games=150, n_users=200, seed=4))
    rows = normalise_interactions(frames["collections"], source="test")
    content = ContentModel.fit(catalog_frame(with_filter_columns(frames["games"])), None)
    found = {
        engine: discover_interactions(interactions=rows, content=content, champion="ease", params={},
                                      weighting="graded", run_id="r", generated_at=datetime(2026, 11, 28, tzinfo=UTC),
                                      engine=engine, model_dir=tmp_path / engine)
        for engine in ENGINES
    }
    compiled, reference = found["compiled"], found["reference"]
    assert compiled.recommendations.height > 1000
    for name in ("recommendations", "next_to_play", "watch_next", "similar_games"):
        assert getattr(compiled, name).equals(getattr(reference, name)), name
    # Its readers (`bodoge recommend`, the API's fold-in) compute by the configured engine too.
    from core.settings import SettingError
    from models.discovery.foldin import FoldIn
    from models.discovery.store import load_state

    saved = tmp_path / "compiled"
    monkeypatch.delenv("BODOGE_DISCOVERY_ENGINE", raising=False)
    assert load_state(saved)[0].engine == "compiled"
    member = rows.get_column("user_id").unique().sort()[3]
    posted = rows.filter(pl.col("user_id") == member).drop("user_id")
    by_compiled = FoldIn.load(saved).rank(member, posted)
    monkeypatch.setenv("BODOGE_DISCOVERY_ENGINE", "reference")
    assert load_state(saved)[0].engine == "reference"
    by_reference = FoldIn.load(saved)
    assert by_reference.state.engine == "reference"
    assert by_reference.rank(member, posted).equals(by_compiled) and by_compiled.height > 0
    monkeypatch.setenv("BODOGE_DISCOVERY_ENGINE", "numba")
    with pytest.raises(SettingError, match="^BODOGE_DISCOVERY_ENGINE must be compiled or reference"):
        load_state(saved)
    with pytest.raises(ValueError, match="unknown discovery engine"):
        discover_interactions(interactions=rows, content=content, champion="ease", params={}, weighting="graded",
                              run_id="r", generated_at=datetime(2026, 11, 28, tzinfo=UTC), engine="fast")


def test_no_top_10_hangs_on_one_anchor(site, monkeypatch) -> None:
    """With the demo's kind of champion (an ensemble), fewer than 5 % of the members' top 10s
    name one game on 8 or more slots (``anchors._spread``), where without the spread it is
    most of a third; the order and scores are the same either way, only reasons move."""
    import models.discovery.anchors as anchors_module
    from models.discovery.reasons import anchor_concentration

    rows, catalog, users = site
    with single_threaded_blas():
        state = fit_state(rows, catalog, None, ChampionFit(champion="ensemble", params=CHAMPIONS["ensemble"]))
    members = users[:MEMBERS]
    spread = _lists(state, rows, members)["discovery"]
    monkeypatch.setattr(anchors_module, "ANCHOR_CAP", anchors_module.SHOWN)  # no slot past the cap
    plain = _lists(state, rows, members)["discovery"]
    hanging, listed = anchor_concentration(spread)
    before, _ = anchor_concentration(plain)
    assert listed == len(members) and hanging < 0.05 * listed, (hanging, listed)
    assert before > 4 * max(hanging, 1), (before, hanging)
    assert spread.drop("reason").equals(plain.drop("reason"))
    assert (spread.get_column("reason") != plain.get_column("reason")).sum() > 0
