"""The saved model directory (``model_dir``): enough to rank one member again later.

* ``model.pkl``, ``meta.json``, ``users.parquet``, ``games.parquet``, ``matrix.npz``:
  the champion with its id mappings (``models.persist.save_model``);
* ``content_features.npz``, ``content_games.parquet``, ``content.json``: the content
  features of the catalogue (``ContentModel.save``);
* ``content_neighbours.npz``: the content neighbour graph used for scoring;
* ``discovery_collections.parquet``: the normalised collections the run ranked from
  (known games, liked games, popularity);
* ``discovery.json``: champion, parameters, weighting, run id, time, blend and depth.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.content import ContentModel
from models.discovery.blend import Blend
from models.discovery.model import DiscoveryModel
from models.interactions import InteractionMatrix
from models.persist import load_model, save_model
from models.weighting import known_weighting


def empty_interactions() -> InteractionMatrix:
    """No collection rows at all (the champion is then left out)."""
    return InteractionMatrix(
        matrix=sp.csr_matrix((0, 0), dtype=np.float32),
        user_ids=pl.Series("user_id", [], dtype=pl.String),
        game_ids=pl.Series("game_id", [], dtype=pl.String),
    )


def save_state(state: DiscoveryModel, directory: str | Path, meta: dict[str, Any]) -> Path:
    """Write the files listed in the module docstring into a new folder and put it in
    ``directory``'s place (the old one removed after).

    Why a new folder, never files rewritten in place: the published night's served model
    (``warehouse.release.served``) holds hard links to these files, which must keep the
    night they were published with while the next night saves its champion."""
    directory = Path(directory)
    if directory.parent.is_dir():  # what a killed save left (it holds members' rows)
        for stale in [*directory.parent.glob(f".{directory.name}.saving-*"),
                      *directory.parent.glob(f".{directory.name}.old-*")]:
            shutil.rmtree(stale, ignore_errors=True)
    fresh = directory.with_name(f".{directory.name}.saving-{os.getpid()}")
    _write_state(state, fresh, meta)
    old = directory.with_name(f".{directory.name}.old-{os.getpid()}")
    if directory.exists():
        os.replace(directory, old)
    os.replace(fresh, directory)
    shutil.rmtree(old, ignore_errors=True)
    return directory


def _write_state(state: DiscoveryModel, directory: Path, meta: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    if state.model is not None:
        save_model(directory, state.model, state.interactions, weights=known_weighting(meta.get("weighting", "")))
    state.content.save(directory)
    sp.save_npz(directory / "content_neighbours.npz", state.graph)
    state.collections.write_parquet(directory / "discovery_collections.parquet")
    payload = {**meta, "champion": state.champion, "blend": state.blend.to_dict(), "cf": state.model is not None}
    (directory / "discovery.json").write_text(
        json.dumps(payload, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
    )
    return directory


def load_state(directory: str | Path, *, engine: str | None = None) -> tuple[DiscoveryModel, dict[str, Any]]:
    """Read what ``save_state`` wrote; returns the model (computing by ``engine``) and ``discovery.json``.

    ``engine`` None: the configured one (``BODOGE_DISCOVERY_ENGINE``), so every reader of a
    saved night (``bodoge recommend``, its shelves and game night, the HTTP API's fold-in)
    computes by the engine the night did."""
    if engine is None:
        from core.settings import read

        engine = read("discovery_engine")
    directory = Path(directory)
    meta = json.loads((directory / "discovery.json").read_text(encoding="utf-8"))
    content = ContentModel.load(directory)
    if meta.get("cf", True):
        model, interactions, _ = load_model(directory)
    else:
        model = None
        interactions = empty_interactions()
    state = DiscoveryModel(
        champion=meta["champion"],
        model=model,
        interactions=interactions,
        content=content,
        collections=pl.read_parquet(directory / "discovery_collections.parquet"),
        blend=Blend(**meta["blend"]),
        graph=sp.load_npz(directory / "content_neighbours.npz").tocsr().astype(np.float32),
        engine=engine,
    )
    return state, meta


def is_saved(directory: str | Path | None) -> bool:
    """A model directory that ``load_state`` can read."""
    return directory is not None and (Path(directory) / "discovery.json").is_file()


def saved_meta(directory: str | Path) -> dict[str, Any]:
    """``discovery.json`` of a saved model (run id, time, champion, depth), without loading it."""
    return json.loads((Path(directory) / "discovery.json").read_text(encoding="utf-8"))
