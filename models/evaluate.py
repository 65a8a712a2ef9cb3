"""Offline evaluation: tune every candidate on TRAIN, name a champion, score on TEST.

The protocol, in order (each stage logs a line with counts to ``bodoge.models``):

1. A validation split of TRAIN (seed ``seed``; 20 % of each user's rows) chooses the
   confidence weighting (``choose_weighting``) and then each candidate's
   hyperparameters (``tune``). Cost caps apply while tuning only (EASE models at most
   ``models.candidates.TUNING_MAX_ITEMS`` games there). The ensemble's shares are chosen
   last, on the same split, over the tuned candidates' kept fits (``tune_ensemble``).
2. A second, independent split of TRAIN (seed ``seed + 1``) refits every candidate
   with its chosen setting and scores it once: the best NDCG@k there is the champion.
   Tuning scores are biased upwards by the search itself (a bigger grid gets luckier);
   a fresh split gives every candidate the same unbiased chance. Ties go to the
   earlier (simpler) candidate. TEST never takes part in any choice. With times
   (``forward``), every candidate is also scored on a forward split of TRAIN (one cut in
   time for everybody) and ``models.forward`` decides which of the two names the champion.
3. Every candidate is refitted on all of TRAIN (timed: ``fit_seconds``) and ranks,
   for each test user, every game not in that user's TRAIN rows; the top k are scored
   against the user's TEST rows. In steps 2 and 3 the ensemble reuses the single
   candidates' fits on the same matrix; its ``fit_seconds`` is the sum of its members'.

Counting rules: a TEST row whose game is also in the user's TRAIN rows is dropped (it
can never be recommended). A TEST game unknown to TRAIN stays relevant (a miss for
every model: no collaborative model can recommend it). Test users absent from TRAIN
(cold start) get the popularity list for every model, as the site would serve them,
and count in every average. Coverage is over the games of TRAIN and TEST together.

In steps 1–3 the single candidates run on two threads (``models.parallel``; tuning's
search of each candidate, the selection split and TEST), then the ensemble, with the same
results as one after another; step 3 lives in ``models.final_scores``.

At real-site size (``models.budget``) tuning tries fewer settings, the weighting is chosen
on the most collected games and TEST is scored on a seeded sample of users; each shortcut
is logged and joins the candidates' ``notes``. Small data runs the full protocol.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.base import Recommender
from models.budget import EvaluationBudget, sample_test_users
from models.candidates import Candidate, default_candidates
from models.champion import choose_champion
from models.ease import EASE
from models.final_scores import fit_candidate, score_on_test
from models.forward import choose_split
from models.interactions import (
    InteractionMatrix,
    InteractionsError,
    normalise_interactions,
    read_interactions,
    read_times,
)
from models.parallel import map_candidates
from models.recency import choose_recency
from models.report import TUNED, EvaluationReport, selection_text
from models.tuning import (
    TuningResult,
    WeightingChoice,
    choose_weighting,
    tune,
    tune_ensemble,
    weighting_reference,
)
from models.tuning_store import PriorTuning
from models.validation import ValidationSet, validation_ndcg_per_user
from models.weighting import WEIGHTINGS

log = logging.getLogger("bodoge.models")

OUTPUT_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def evaluate(
    train: pl.DataFrame,
    test: pl.DataFrame,
    *,
    k: int = 10,
    seed: int = 0,
    models: Sequence[str] | None = None,
    times: pl.DataFrame | None = None,
    reuse: EvaluationReport | None = None,
    item_vectors: tuple[pl.Series, sp.csr_matrix] | None = None,
    split: str = "random",
    budget: EvaluationBudget | None = None,
    prior: PriorTuning | None = None,
    incumbent: str | None = None,
    forward: pl.DataFrame | None = None,
) -> EvaluationReport:
    """Tune, select and score every candidate (``models`` limits them by name).

    ``times`` (``user_id``, ``game_id``, ``updated_at``) makes the selection split a time
    split of TRAIN (each user's latest rows), for a temporal evaluation whose champion is
    chosen on "what came next". ``reuse`` takes the weighting and tuned parameters of an
    earlier report on the same data instead of tuning again (a second split costs only the
    selection and final fits). ``item_vectors`` (ids, rows) measure intra-list diversity;
    without them the games' member vectors of TRAIN do. ``split`` names the report.
    ``budget`` overrides the size-based shortcuts (``EvaluationBudget.for_data``);
    ``prior`` is an earlier night's tuning to reuse (``models.tuning_store``), noted.
    ``incumbent`` is last night's champion: it stays unless the best candidate beats it
    beyond one standard error on the selection split (``models.champion``), noted.
    ``forward`` (``user_id``, ``game_id``, ``updated_at`` of TRAIN's rows) adds a forward
    selection split (TRAIN cut at one moment, ``ValidationSet.carve_forward``); the champion
    then follows it or the offline selection split by ``models.forward.choose_split``. Left
    out when the budget's shortcuts are engaged (noted): one more fit of every candidate.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    train = normalise_interactions(train, source="TRAIN")
    test = normalise_interactions(test, source="TEST")
    if train.height == 0:
        raise InteractionsError("TRAIN has no interactions")
    if test.height == 0:
        raise InteractionsError("TEST has no interactions")
    candidates = _chosen_candidates(models)
    if budget is None:
        budget = EvaluationBudget.for_data(train.get_column("user_id").n_unique(), train.height)
    shortcuts: list[str] = []
    if budget.engaged:
        log.info("evaluate: shortcuts engaged: %s", budget.reason)
    left_out = [name for name in budget.left_out if name in candidates] if models is None else []
    if left_out:
        candidates = {name: candidate for name, candidate in candidates.items() if name not in left_out}
        shortcuts.append(f"left out on large data: {', '.join(left_out)} (the costliest fit, never the champion there)")
    log.info(
        "evaluate: TRAIN %d rows (%d users, %d games), TEST %d rows (%d users); candidates %s",
        train.height,
        train.get_column("user_id").n_unique(),
        train.get_column("game_id").n_unique(),
        test.height,
        test.get_column("user_id").n_unique(),
        ", ".join(candidates),
    )

    if reuse is not None and set(candidates) <= set(reuse.results):
        weighting = reuse.weighting
        tuned = {name: reuse.results[name].tuning for name in candidates}
        tuning = f"{reuse.tuning or TUNED} (of the {reuse.split} split)"
        log.info("weighting and parameters reused from the %s evaluation", reuse.split)
    elif prior is not None and set(candidates) <= set(prior.tuned):
        weighting, tuned = prior.weighting, {name: prior.tuned[name] for name in candidates}
        tuning = prior.note
        shortcuts.append(prior.note)
        log.info("evaluate: %s", prior.note)
    else:
        weighting, tuned = _tune_all(train, candidates, k=k, seed=seed, budget=budget)
        tuning = TUNED
    if budget.weighting_max_items is not None:
        shortcuts.append(f"weighting chosen with EASE on the {budget.weighting_max_items:,} most collected games")

    selection_split = ValidationSet.carve(train, weighting.weights, seed=seed + 1, times=times)

    selected = partial(_fit_scored, split=selection_split, tuned=tuned, seed=seed, k=k, label="selection split")
    scored = map_candidates(candidates, lambda name, candidate: selected(name, candidate, {}), selected)
    selection = {name: ndcg for name, (_, ndcg, _) in scored.items()}
    per_user = {name: users for name, (_, _, users) in scored.items()}
    del scored  # the fitted models
    forward_ndcg, forward_users = _forward_selection(train, forward, candidates, tuned, weighting, k=k, seed=seed,
                                                     budget=budget, shortcuts=shortcuts)
    split_choice = choose_split(per_user, forward_users, k=k)
    log.info("selection follows the %s split: %s (Kendall tau %s)", split_choice.followed, split_choice.reason,
             "n/a" if split_choice.tau is None else f"{split_choice.tau:.3f}")
    followed = forward_users if split_choice.followed == "forward" and forward_users is not None else per_user
    choice = choose_champion(followed, incumbent=incumbent, k=k)
    champion = choice.champion
    won = forward_ndcg if split_choice.followed == "forward" and forward_ndcg is not None else selection
    log.info("champion: %s (%s selection ndcg@%d %.4f)%s", champion, split_choice.followed, k, won[champion],
             f"; {choice.note}" if choice.note else "")

    full = InteractionMatrix.from_frame(train, weighting.weights)
    if "ease" in candidates and full.shape[1] > EASE().max_items:
        log.warning(
            "EASE models only the %d most popular of %d games (the dense inverse beyond that "
            "does not fit in memory); the other games are never recommended by it",
            EASE().max_items,
            full.shape[1],
        )
    n_test_users = test.get_column("user_id").n_unique()
    n_cold_users = int((full.user_rows(test.get_column("user_id").unique()) < 0).sum())
    test, sampled = sample_test_users(test, budget.max_test_users, seed)
    if sampled is not None:
        log.info("evaluate: %s (large data)", sampled)
        shortcuts.append(sampled)
    results = score_on_test(full, train, test, candidates, tuned, selection, k=k, seed=seed,
                            item_vectors=item_vectors, shortcuts=shortcuts)
    if choice.note:
        kept = results[champion]
        kept.notes = "; ".join(filter(None, [kept.notes, choice.note]))
    for name, result in results.items():
        result.forward_ndcg = (forward_ndcg or {}).get(name)
    return EvaluationReport(
        split=split,
        k=k,
        champion=champion,
        results=results,
        weighting=weighting,
        n_users=full.shape[0],
        n_games=full.shape[1],
        n_interactions=int(full.matrix.nnz),
        n_test_users=n_test_users,
        n_cold_users=n_cold_users,
        tuning=tuning,
        selection=selection_text(k=k, n_candidates=len(candidates), by_time=times is not None, tuning=tuning,
                                 incumbent=incumbent if incumbent in candidates else None,
                                 split_choice=split_choice if forward is not None else None,
                                 recency=weighting.recency),
        followed=split_choice.followed,
        kendall_tau=split_choice.tau,
    )


def _fit_scored(
    name: str, candidate: Candidate, singles: dict[str, tuple[Recommender, float, np.ndarray]], *,
    split: ValidationSet, tuned: dict[str, TuningResult], seed: int, k: int, label: str,
) -> tuple[Recommender, float, np.ndarray]:
    """One candidate fitted on a split's rows and scored on its held-out rows (an ensemble's
    members from ``singles``): the model, its NDCG@k and the per-user NDCG."""
    fitted = {member: model for member, (model, _, _) in singles.items()}
    model = fit_candidate(candidate, tuned[name].params, seed, split.matrix.matrix, fitted, tuning=True)
    ndcg, users = validation_ndcg_per_user(model, split, k)
    log.info("%s: %s ndcg@%d %.4f", label, name, k, ndcg)
    return model, ndcg, users


def _forward_selection(
    train: pl.DataFrame, forward: pl.DataFrame | None, candidates: dict[str, Candidate],
    tuned: dict[str, TuningResult], weighting: WeightingChoice, *, k: int, seed: int, budget: EvaluationBudget,
    shortcuts: list[str],
) -> tuple[dict[str, float] | None, dict[str, np.ndarray] | None]:
    """Every candidate fitted on TRAIN up to a cut and scored on what members added after it
    (``ValidationSet.carve_forward``): mean and per-user NDCG@k, or (None, None) without times."""
    if forward is None:
        return None, None
    if budget.engaged:
        shortcuts.append("no forward selection split on large data (one more fit of every candidate)")
        return None, None
    try:
        split = ValidationSet.carve_forward(train, weighting.weights, times=forward, seed=seed + 2)
    except ValueError as error:  # no row of TRAIN has a time: nothing to cut at
        shortcuts.append(f"no forward selection split: {error}")
        return None, None
    if split.rows.size == 0:
        return {name: 0.0 for name in candidates}, {name: np.zeros(0) for name in candidates}

    scored = partial(_fit_scored, split=split, tuned=tuned, seed=seed, k=k,
                     label=f"forward selection split ({split.rows.size} members)")
    results = map_candidates(candidates, lambda name, candidate: scored(name, candidate, {}), scored)
    return ({name: ndcg for name, (_, ndcg, _) in results.items()},
            {name: users for name, (_, _, users) in results.items()})


def _tune_all(
    train: pl.DataFrame, candidates: dict[str, Candidate], *, k: int, seed: int, budget: EvaluationBudget
) -> tuple[WeightingChoice, dict[str, TuningResult]]:
    """Choose the confidence weighting, then each candidate's parameters, on a split of TRAIN."""
    tuning_split = ValidationSet.carve(train, WEIGHTINGS["graded"], seed=seed)
    log.info(
        "validation split: %d rows to fit, %d held out for %d users",
        tuning_split.fit_frame.height,
        tuning_split.held_out.height,
        tuning_split.rows.size,
    )
    weighting = choose_weighting(tuning_split, k=k, seed=seed, max_items=budget.weighting_max_items)
    if budget.engaged:  # as the forward selection split: one more fit of every setting
        weighting = replace(weighting, recency="no recency on large data")
    else:
        weighting = choose_recency(train, weighting, tuning_split.reweighted(weighting.weights),
                                   reference=weighting_reference(), k=k, seed=seed)
    log.info("weighting: %s", weighting.reason)
    tuning_split = tuning_split.reweighted(weighting.weights)
    ensemble = "ensemble" in candidates
    tuned = map_candidates(
        {name: candidate for name, candidate in candidates.items() if name != "ensemble"},
        lambda name, candidate: tune(candidate, tuning_split, k=k, seed=seed, limit=budget.max_settings, keep=ensemble),
    )
    if ensemble:
        tuned["ensemble"] = tune_ensemble(tuned, tuning_split, k=k, seed=seed, candidates=candidates)
    for result in tuned.values():
        result.model = None  # fitted on the tuning split: not needed past here
    return weighting, tuned


def _chosen_candidates(models: Sequence[str] | None) -> dict[str, Candidate]:
    """The named candidates in their tie-breaking order (the tried ones may be named), or
    all of the night's."""
    if models is None:
        return default_candidates()
    everything = default_candidates(tried=True)
    wanted = list(dict.fromkeys(models))
    unknown = [name for name in wanted if name not in everything]
    if unknown or not wanted:
        raise ValueError(
            f"unknown model(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(everything)}"
        )
    if "ensemble" in wanted and len(wanted) < 3:
        raise ValueError("the ensemble weighs the other chosen candidates: choose at least two besides it")
    return {name: candidate for name, candidate in everything.items() if name in wanted}


def evaluate_files(
    train_path: str | Path,
    test_path: str | Path,
    *,
    k: int = 10,
    output_path: str | Path | None = None,
    seed: int = 0,
    models: Sequence[str] | None = None,
    forward: bool = False,
) -> EvaluationReport:
    """``evaluate`` on two interaction files; optionally write the champion's top-K.

    ``forward`` adds the forward selection split (``evaluate(forward=...)``) from TRAIN's
    ``updated_at`` column (``InteractionsError`` without one).

    The output format follows the extension (``.parquet``/``.pq`` or ``.csv``); any other
    extension raises ``InteractionsError`` before any work is done.
    """
    output = Path(output_path) if output_path is not None else None
    if output is not None and output.suffix.lower() not in OUTPUT_SUFFIXES:
        raise InteractionsError(
            f"unsupported output file type {output.suffix or '(none)'!r}: {output} (use .parquet or .csv)"
        )
    train = read_interactions(train_path)
    test = read_interactions(test_path)
    times = read_times(train_path) if forward else None
    report = evaluate(train, test, k=k, seed=seed, models=models, forward=times)
    if output is not None:
        write_topk(report.champion_topk(), output)
        log.info("wrote %d top-%d rows of %s to %s", report.champion_topk().height, k, report.champion, output)
    return report


def write_topk(frame: pl.DataFrame, path: str | Path) -> Path:
    """Write a top-K frame as Parquet or CSV by extension (``InteractionsError`` otherwise)."""
    path = Path(path)
    kind = OUTPUT_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise InteractionsError(f"unsupported output file type {path.suffix or '(none)'!r}: {path} (use .parquet or .csv)")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if kind == "parquet":
            frame.write_parquet(path)
        else:
            frame.write_csv(path)
    except OSError as error:
        raise InteractionsError(f"could not write {path}: {error.strerror or error}") from error
    return path
