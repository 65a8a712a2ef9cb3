"""The model a published night serves with (`warehouse.release.served`): linked beside its
bundle, untouched by the next night's save, pruned with its bundle, cut for privacy."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl

from warehouse.privacy.model_files import cut_members_from_models
from warehouse.release.served import prune_served, serve_model, served_dir


def _champion(data: Path, users: list[str], run: str) -> Path:
    folder = data / "models" / "champion"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "discovery.json").write_text(json.dumps({"run_id": run}), encoding="utf-8")
    pl.DataFrame({"user_id": users, "game_id": ["g"] * len(users)}).write_parquet(folder / "discovery_collections.parquet")
    return folder


def test_a_served_model_is_the_champion_linked_and_keeps_its_night(tmp_path: Path) -> None:
    champion = _champion(tmp_path, ["a", "b"], "night-1")
    (tmp_path / "exports" / "B1").mkdir(parents=True)
    served = serve_model(tmp_path, "B1")
    assert served == served_dir(tmp_path, "B1")
    assert os.stat(served / "discovery.json").st_ino == os.stat(champion / "discovery.json").st_ino  # linked, not copied
    # the next night saves its champion into a new folder (models.discovery.store.save_state)
    os.replace(champion, tmp_path / "models" / ".champion.old")
    _champion(tmp_path, ["a"], "night-2")
    assert json.loads((served / "discovery.json").read_text())["run_id"] == "night-1"
    assert prune_served(tmp_path) == []


def test_served_models_leave_with_their_bundle_and_with_a_private_member(tmp_path: Path) -> None:
    _champion(tmp_path, ["a", "b"], "n")
    for bundle in ("B1", "B2"):
        (tmp_path / "exports" / bundle).mkdir(parents=True)
        serve_model(tmp_path, bundle)
    (tmp_path / "exports" / "B1").rmdir()
    assert prune_served(tmp_path) == ["B1"] and served_dir(tmp_path, "B2").is_dir()
    changed = cut_members_from_models(tmp_path / "models", {"b"})
    assert "served/B2/" in changed and "champion/" in changed
    assert not served_dir(tmp_path, "B2").exists() and not (tmp_path / "models" / "champion").exists()


def test_no_champion_no_served_model(tmp_path: Path) -> None:
    assert serve_model(tmp_path, "B1") is None
