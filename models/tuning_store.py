"""The last full tuning, kept beside the models so a large night can skip tuning again.

Why: at real-site size the weighting choice and the hyperparameter search are most of
evaluation's cost, and from one night to the next a community site's collections change
by a percent or two, not enough to move a tuned λ or factor count. So a night on large
data (``models.budget``) reuses the weighting and parameters of the last full tuning
when it is younger than ``FULL_TUNING_EVERY`` and the members and interactions changed
by at most ``MAX_DRIFT`` since; otherwise it tunes in full and saves the result. The
champion is still chosen afresh every night (the selection split and TEST are refitted),
and a reuse is said in the log and in ``marts.model_runs.notes``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from models.report import EvaluationReport
from models.tuning import TuningResult, WeightingChoice
from models.weighting import known_weighting, weighting_named

log = logging.getLogger("bodoge.models")

FULL_TUNING_EVERY = timedelta(days=7)
"""A full tuning at least this often, whatever the drift."""
MAX_DRIFT = 0.10
"""Relative change of members or interactions beyond which the night tunes in full."""


@dataclass(frozen=True)
class PriorTuning:
    """A saved tuning to reuse: the weighting, each candidate's parameters, and why it applies."""

    weighting: WeightingChoice
    tuned: dict[str, TuningResult]
    note: str


def save_tuning(
    path: Path, report: EvaluationReport, *, n_users: int, n_interactions: int, tuned_at: datetime
) -> None:
    """Write the report's weighting and tuned parameters with the size of the data they came
    from (all members and interactions, as ``load_tuning`` will be asked about)."""
    payload = {
        "tuned_at": tuned_at.isoformat(),
        "n_users": n_users,
        "n_interactions": n_interactions,
        "weighting": report.weighting.name,
        "weighting_reason": report.weighting.reason,
        "models": {
            name: {"params": result.params, "ndcg": result.tuning.ndcg, "note": result.tuning.note}
            for name, result in report.results.items()
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2, default=str), encoding="utf-8")


def load_tuning(path: Path, *, n_users: int, n_interactions: int, now: datetime) -> PriorTuning | None:
    """The saved tuning when it is recent and the data has not drifted, else None (logged)."""
    if not path.is_file():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        tuned_at = datetime.fromisoformat(saved["tuned_at"])
        weighting = saved["weighting"]
        models = saved["models"]
        then_users, then_rows = int(saved["n_users"]), int(saved["n_interactions"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.warning("tuning: %s unreadable (%s); tuning in full", path, error)
        return None
    age = now - tuned_at
    drift = max(_change(n_users, then_users), _change(n_interactions, then_rows))
    if age >= FULL_TUNING_EVERY or age < timedelta(0) or drift > MAX_DRIFT or known_weighting(weighting) is None:
        log.info("tuning: last full tuning %s old, data changed %.1f%%; tuning in full", age, 100 * drift)
        return None
    note = (
        f"weighting and parameters reused from the full tuning of {tuned_at:%Y-%m-%d} "
        f"(members/interactions changed {100 * drift:.1f}%, under {100 * MAX_DRIFT:.0f}%)"
    )
    choice = WeightingChoice(weighting, weighting_named(weighting), {}, saved.get("weighting_reason", ""))
    tuned = {
        name: TuningResult(name, dict(entry["params"]), float(entry["ndcg"]), [], entry.get("note"))
        for name, entry in models.items()
    }
    log.info("tuning: %s", note)
    return PriorTuning(choice, tuned, note)


def _change(now: int, then: int) -> float:
    return abs(now - then) / then if then > 0 else float("inf")
