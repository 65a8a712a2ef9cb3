"""``discover_interactions``: the night's discovery run, from cleaned interactions and the
content model to the rows of the marts (``discover`` starts from ``marts.collections`` rows).

Fits the evaluation's champion on all collections, blends it with content similarity
(``models.content``) so that games nobody has collected yet can be found, and returns
the rows of ``marts.recommendations`` (top ``depth`` per member), the two shelves
(``marts.next_to_play``, ``marts.watch_next``) and ``marts.similar_games``; with
``model_dir`` it saves what serving needs (``models.discovery.store``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import polars as pl

from models.base import Recommender
from models.candidates import default_candidates
from models.content import ContentModel
from models.discovery.blend import Blend
from models.discovery.lists import RECOMMENDATION_COLUMNS, SIMILAR_COLUMNS
from models.discovery.model import DiscoveryModel
from models.discovery.shelves import PLAY_NEXT, WATCH_NEXT, shelf_rows
from models.discovery.similar import similar_games as similar_lists
from models.discovery.store import empty_interactions, save_state
from models.discovery.welcome import with_welcome
from models.interactions import InteractionMatrix, normalise_interactions
from models.split import time_split
from models.threads import map_blocks, single_threaded_blas
from models.weighting import WEIGHTINGS, known_weighting, weighting_named

log = logging.getLogger("bodoge.models")

@dataclass
class Discovery:
    """What ``discover`` returns: the marts' rows and counts for logs and metadata."""

    recommendations: pl.DataFrame
    similar_games: pl.DataFrame
    next_to_play: pl.DataFrame = field(default_factory=pl.DataFrame)
    watch_next: pl.DataFrame = field(default_factory=pl.DataFrame)
    stats: dict[str, Any] = field(default_factory=dict)
    welcome: list[str] = field(default_factory=list)
    """The members whose discovery list is a welcome list (``models.discovery.welcome``), sorted."""


@dataclass(frozen=True, kw_only=True)
class ChampionFit:
    """How to fit the champion: its name and chosen parameters, the interaction weighting
    and the seed (from the evaluation report: ``champion``, ``params``, ``weighting``).

    Why one object: the nightly run (``discover``) and the offline measurements
    (``fit_on_earlier`` for ``group_eval`` and ``rerank``) fit the same way, so the four
    travel together and are checked once, when the object is made (a one-line
    ``ValueError`` naming the known choices). The defaults are what the measurements use
    when told nothing else."""

    champion: str = "ease"
    params: Mapping[str, Any] = field(default_factory=dict)
    weighting: str = "graded"
    seed: int = 0

    def __post_init__(self) -> None:
        candidates = default_candidates()
        if self.champion not in candidates:
            raise ValueError(f"unknown champion {self.champion!r}; known: {', '.join(candidates)}")
        if known_weighting(self.weighting) is None:
            raise ValueError(f"unknown weighting {self.weighting!r}; known: {', '.join(WEIGHTINGS)}, "
                             "each optionally with +recency<days>d")

    def build(self) -> Recommender:
        """A fresh, unfitted champion with these parameters and this seed."""
        return default_candidates()[self.champion].build(dict(self.params), self.seed)


def catalog_frame(games: pl.DataFrame) -> pl.DataFrame:
    """One row per game id, sorted by id (so the layout does not depend on row order)."""
    return games.filter(pl.col("game_id").is_not_null()).with_columns(
        pl.col("game_id").cast(pl.String)
    ).unique("game_id", keep="first", maintain_order=True).sort("game_id")


def fit_state(
    rows: pl.DataFrame,
    catalog: pl.DataFrame | None,
    posts: pl.DataFrame | None,
    fit: ChampionFit,
    *,
    blend: Blend | None = None,
    timings: dict[str, float] | None = None,
    content: ContentModel | None = None,
    engine: str = "compiled",
) -> DiscoveryModel:
    """The champion fitted on normalised ``rows`` and the content model of ``catalog``
    (``catalog_frame``), ready to score. The fit and the neighbours run side by side on two
    threads.

    ``content`` is that content model when it is already fitted (the night fits it once,
    for evaluation and discovery alike); then ``catalog`` and ``posts`` are not read."""
    blend = blend or Blend()
    timings = {} if timings is None else timings

    fitted: dict[str, Any] = {}

    def champion() -> None:
        tick = time.perf_counter()
        if rows.height:
            fitted["interactions"] = InteractionMatrix.from_frame(rows, weighting_named(fit.weighting))
            fitted["model"] = fit.build().fit(fitted["interactions"].matrix)
        else:
            fitted["interactions"], fitted["model"] = empty_interactions(), None
        timings["fit_seconds"] = time.perf_counter() - tick

    def neighbours() -> None:
        tick = time.perf_counter()
        if content is None and catalog is None:
            raise ValueError("fit_state needs a catalogue or a fitted content model")
        fitted["content"] = content if content is not None else ContentModel.fit(cast(pl.DataFrame, catalog), posts)
        fitted["graph"] = fitted["content"].neighbours(blend.neighbours)
        timings["content_seconds"] = time.perf_counter() - tick

    # Independent work on the night's two cores: the champion's fit beside the content
    # neighbours (each job's own blocks in turn on its thread). BLAS at one thread on
    # either path, so the neighbours' products round the same however many threads run.
    with single_threaded_blas():
        map_blocks(lambda job: job(), [champion, neighbours])
    interactions, model = fitted["interactions"], fitted["model"]
    log.info(
        "discover: %s fitted on %d rows (%d members, %d games, weighting %s) in %.1fs",
        fit.champion, rows.height, interactions.shape[0], interactions.shape[1], fit.weighting,
        timings["fit_seconds"],
    )
    state = DiscoveryModel(
        champion=fit.champion, model=model, interactions=interactions, content=fitted["content"],
        collections=rows, blend=blend, graph=fitted["graph"], engine=engine,
    )
    log.info(
        "discover: content features for %d games (%d without any collection entry), %d neighbours each, in %.1fs",
        state.content.n_games, int((state.cf_cols < 0).sum()), blend.neighbours, timings["content_seconds"],
    )
    return state


def fit_on_earlier(
    collections: pl.DataFrame,
    games: pl.DataFrame,
    posts: pl.DataFrame | None,
    fit: ChampionFit,
) -> tuple[DiscoveryModel, pl.DataFrame, pl.DataFrame]:
    """For offline measurements: a time split of ``marts.collections`` rows (each member's
    latest 20 % are "later"), and the state fitted on the earlier rows. Returns the state
    and the normalised earlier and later rows."""
    columns = ["user_id", "game_id", "have", "played", "favorite", "watching", "rating", "updated_at"]
    earlier, later = time_split(collections.select(columns), fraction=0.2)
    earlier = normalise_interactions(earlier, source="earlier entries")
    later = normalise_interactions(later, source="later entries")
    with single_threaded_blas():
        state = fit_state(earlier, catalog_frame(games), posts, fit)
    return state, earlier, later


def discover(
    *,
    collections: pl.DataFrame,
    games: pl.DataFrame,
    posts: pl.DataFrame | None,
    **options: Any,
) -> Discovery:
    """``discover_interactions`` from ``marts.collections`` rows and the catalogue: cleans the
    rows (``normalise_interactions``) and fits the content model of ``games`` and ``posts``
    first. ``options`` are ``discover_interactions``'s keywords.

    The night does neither here: its assets clean the rows once (``recsys/interactions``) and
    fit the content model once (``recsys/content_model``) for evaluation and discovery, then
    call ``discover_interactions`` with both. A bad champion or weighting name fails first,
    before the content fit (and scikit-learn's import) it would otherwise wait for.
    """
    ChampionFit(**{name: options[name] for name in ("champion", "weighting") if name in options})
    return discover_interactions(
        interactions=normalise_interactions(collections, source="collections"),
        content=ContentModel.fit(catalog_frame(games), posts),
        **options,
    )


def discover_interactions(
    *,
    interactions: pl.DataFrame,
    content: ContentModel,
    champion: str,
    params: dict[str, Any],
    weighting: str,
    run_id: str,
    generated_at: datetime,
    depth: int = 100,
    n_similar: int = 10,
    seed: int = 0,
    model_dir: Path | None = None,
    blend: Blend | None = None,
    engine: str = "compiled",
    members: list[str] | None = None,
    hints: pl.DataFrame | None = None,
) -> Discovery:
    """Recommendations (top ``depth`` per member), the two shelves and similar games for a whole run.

    ``interactions`` are cleaned rows (``normalise_interactions``); ``content`` is the
    catalogue's content model (``ContentModel.fit(catalog_frame(games), posts)``).
    ``champion``/``params``/``weighting``/``seed`` come from the evaluation report (the
    champion's name, its chosen parameters, ``report.weighting.name``) and make the run's
    ``ChampionFit`` (kept as keywords here: the nightly asset passes the report's fields);
    the champion is fitted on every row under single-threaded BLAS. The blend
    is described in ``models.discovery.blend``, the exclusion rules in ``members``, the
    reasons in ``reasons``, the re-ranking in ``rerank`` and the files written to
    ``model_dir`` in ``store``; ``engine`` how the lists are computed (the same either way).
    ``members`` (the public members, ``marts.members``) and ``hints`` (``user_id``,
    ``game_id`` known of members beyond their collections: the games of their posts) give a
    welcome list to every member without a collection and every member the model could
    not score (``models.discovery.welcome``): a line for every public member.
    """
    blend = blend or Blend()
    fit = ChampionFit(champion=champion, params=params, weighting=weighting, seed=seed)
    if depth < 1 or n_similar < 1:
        raise ValueError("depth and n_similar must be at least 1")
    started = time.perf_counter()
    timings: dict[str, float] = {}
    rows = interactions

    with single_threaded_blas():
        state = fit_state(rows, None, None, fit, blend=blend, timings=timings, content=content, engine=engine)
        n_cold = int((state.cf_cols < 0).sum())

        user_ids = rows.get_column("user_id").unique().sort().to_list()
        lists = rank_members(state, rows, user_ids, run_id=run_id, generated_at=generated_at, depth=depth,
                             members=members, hints=hints, timings=timings)

        tick = time.perf_counter()
        similar = similar_lists(state, n_similar)
        timings["similar_seconds"] = time.perf_counter() - tick
        log.info(
            "discover: %d similar-game rows for %d games in %.1fs",
            similar.height, similar.get_column("game_id").n_unique() if similar.height else 0,
            timings["similar_seconds"],
        )

    recommendations, shelf, watched, welcomed = lists.recommendations, lists.next_to_play, lists.watch_next, lists.welcome
    similar_games = similar.with_columns(pl.lit(run_id).alias("run_id")).select(SIMILAR_COLUMNS)

    if model_dir is not None:
        timings["save_seconds"] = save_night_state(state, model_dir, fit=fit, run_id=run_id,
                                                   generated_at=generated_at, depth=depth, n_similar=n_similar)
        log.info("discover: model saved to %s in %.1fs", model_dir, timings["save_seconds"])

    timings["total_seconds"] = time.perf_counter() - started
    stats: dict[str, Any] = {
        "champion": champion,
        "weighting": weighting,
        "n_collection_rows": rows.height,
        "n_users": len(user_ids),
        "n_games": state.n_games,
        "n_cold_games": n_cold,
        "n_recommendations": recommendations.height,
        "n_cold_recommendations": lists.stats["n_cold_recommendations"],
        "n_similar": similar_games.height,
        "n_next_to_play": shelf.height,
        "n_watch_next": watched.height,
        "n_welcome": len(welcomed),
        **{key: value for key, value in lists.stats.items() if key.startswith("n_users_")},
        **{key: round(value, 3) for key, value in timings.items()},
    }
    if model_dir is not None:
        stats["model_dir"] = str(model_dir)
    log.info("discover: done in %.1fs", timings["total_seconds"])
    return Discovery(recommendations=recommendations, similar_games=similar_games, next_to_play=shelf,
                     watch_next=watched, stats=stats, welcome=welcomed)


def save_night_state(state: DiscoveryModel, model_dir: Path, *, fit: ChampionFit, run_id: str,
                     generated_at: datetime, depth: int, n_similar: int) -> float:
    """Save the night's fitted ``state`` with what its lists are stamped with (``store.save_state``:
    run id, time, the champion's parameters, weighting, depth, seed), read back by fold-in and by
    each member bucket; returns the seconds it took."""
    tick = time.perf_counter()
    save_state(state, model_dir, {
        "run_id": run_id, "generated_at": generated_at.isoformat(), "params": dict(fit.params),
        "weighting": fit.weighting, "depth": depth, "n_similar": n_similar, "seed": fit.seed,
    })
    return time.perf_counter() - tick


def refit_top_lists(*, rows: pl.DataFrame, content: ContentModel, fit: ChampionFit, members: list[str],
                    k: int = 10, engine: str = "compiled") -> dict[str, list[str]]:
    """Each of ``members``' discovery top ``k`` by ``fit`` fitted on ``rows`` (a collection:
    ``user_id``, ``game_id``, the flags, ``rating``, ``updated_at`` for a recency weighting),
    through the night's own fit and ranking.

    Why: what an earlier champion would have served the same night is the counterfactual
    ``marts.list_outcomes`` scores it by (``warehouse.outcomes.rates``); the members to rank
    are only those who acted, so the ranking is a few hundred members, the fit the cost.
    A member without rows is left out (nothing personal to rank)."""
    interactions = normalise_interactions(rows, source="the collection history")
    state = fit_state(interactions, None, None, fit, content=content, engine=engine)
    present = set(interactions.get_column("user_id").unique().to_list())
    with single_threaded_blas():
        ranked, _ = state.rank(interactions, sorted(u for u in members if u in present), k)
    lists = ranked.sort("user_id", "rank").group_by("user_id", maintain_order=True).agg(pl.col("game_id"))
    return dict(zip(lists.get_column("user_id").to_list(), lists.get_column("game_id").to_list()))


def rank_members(
    state: DiscoveryModel,
    rows: pl.DataFrame,
    user_ids: list[str],
    *,
    run_id: str,
    generated_at: datetime,
    depth: int = 100,
    members: list[str] | None = None,
    hints: pl.DataFrame | None = None,
    timings: dict[str, float] | None = None,
) -> Discovery:
    """Discovery (with welcome lists) and both shelves for ``user_ids`` (sorted), from a fitted
    ``state`` and everyone's normalised ``rows``; ``similar_games`` is left empty.

    Why apart from ``discover_interactions``: a member's lists depend on their own rows and the
    night's model alone (welcome lists on everyone's ``rows``, which are passed whole), so the
    night can rank its members in buckets (``models.discovery.buckets``) and get the same rows
    as ranking everyone at once. ``members`` are the public members to give a line to (those
    of the bucket); ``timings`` collects the seconds of each part."""
    timings = {} if timings is None else timings
    with single_threaded_blas():
        tick = time.perf_counter()
        ranked, user_counts = state.rank(rows, user_ids, depth)
        timings["rank_seconds"] = time.perf_counter() - tick
        cold_ids = state.game_ids.filter(pl.Series(state.cf_cols < 0))
        n_cold_rows = int(ranked.get_column("game_id").is_in(cold_ids.implode()).sum()) if ranked.height else 0
        log.info(
            "discover: %d rows for %d members in %.1fs (%d on games without entries; members: %d CF, %d content fallback, %d popularity only)",
            ranked.height, len(user_ids), timings["rank_seconds"], n_cold_rows,
            user_counts["users_cf"], user_counts["users_content_fallback"], user_counts["users_popularity_only"],
        )
        tick = time.perf_counter()
        ranked, welcomed = with_welcome(ranked, rows, state.game_ids, public=members, hints=hints, depth=depth)
        timings["welcome_seconds"] = time.perf_counter() - tick
        log.info("discover: %d welcome lists in %.1fs", len(welcomed), timings["welcome_seconds"])

        shelves = {}
        for kind in (PLAY_NEXT, WATCH_NEXT):
            tick = time.perf_counter()
            shelves[kind.table] = found = shelf_rows(state, rows, user_ids, kind, run_id=run_id)
            timings[f"{kind.table}_seconds"] = time.perf_counter() - tick
            log.info(
                "discover: %d %s rows for %d members in %.1fs", found.height, kind.label,
                found.get_column("user_id").n_unique() if found.height else 0, timings[f"{kind.table}_seconds"],
            )
    recommendations = ranked.with_columns(
        pl.lit(state.champion).alias("model"),
        pl.lit(run_id).alias("run_id"),
        pl.lit(generated_at).alias("generated_at"),
    ).select(RECOMMENDATION_COLUMNS)
    stats: dict[str, Any] = {"n_cold_recommendations": n_cold_rows,
                             **{f"n_{key}": value for key, value in user_counts.items()}}
    return Discovery(recommendations=recommendations, similar_games=pl.DataFrame(),
                     next_to_play=shelves[PLAY_NEXT.table], watch_next=shelves[WATCH_NEXT.table],
                     stats=stats, welcome=welcomed)
