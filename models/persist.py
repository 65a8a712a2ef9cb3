"""Saving a fitted model together with the matrix and id mappings it was fitted on.

A model only knows row and column indices; without the mappings its scores are
meaningless, so the two are always written and read as one directory:
``model.pkl`` (the fitted model), ``meta.json`` (name, parameters, weighting) and
the ``InteractionMatrix`` files (``users.parquet``, ``games.parquet``, ``matrix.npz``).
Pickle is used for the model because the files are only ever read back by this
project; never load a model directory from an untrusted source.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

from models.base import Recommender
from models.interactions import InteractionMatrix
from models.weighting import ConfidenceWeights


def save_model(
    directory: str | Path,
    model: Recommender,
    matrix: InteractionMatrix,
    *,
    weights: ConfidenceWeights | None = None,
) -> Path:
    """Write the model, its mappings and a small JSON description into ``directory``."""
    directory = Path(directory)
    matrix.save(directory)
    with (directory / "model.pkl").open("wb") as handle:
        pickle.dump(model, handle, protocol=pickle.HIGHEST_PROTOCOL)
    meta: dict[str, Any] = {
        "model": model.name,
        "params": model.get_params(),
        "weights": weights.to_dict() if weights is not None else None,
        "n_users": matrix.shape[0],
        "n_games": matrix.shape[1],
    }
    (directory / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2), encoding="utf-8")
    return directory


def load_model(directory: str | Path) -> tuple[Recommender, InteractionMatrix, dict[str, Any]]:
    """Read what ``save_model`` wrote: (model, matrix with mappings, description)."""
    directory = Path(directory)
    with (directory / "model.pkl").open("rb") as handle:
        model = pickle.load(handle)
    meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    return model, InteractionMatrix.load(directory), meta
