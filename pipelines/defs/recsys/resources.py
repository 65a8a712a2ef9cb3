"""Where the recommender assets keep what they hand to each other: `model_files`, an IO manager.

Why an IO manager: an asset that returns its value (the cleaned interactions, the content
model, the champion choice) and an asset that takes it as an argument make one edge in the
asset graph, so the Dagster UI shows what evaluation and discovery read; a file one asset
writes and another opens by name would be invisible. The values live under
DATA_DIR/models/ (`SiteSettings.paths.models`), one per asset, named by the asset key's
last part, so a run that materializes discovery alone (the UI, `benchmarks.scale`) reads
what the last evaluation left:

| value | stored as |
|---|---|
| `polars.DataFrame` | `<name>.parquet` |
| `models.content.ContentModel` | `<name>/` (`ContentModel.save`) |
| a JSON-able mapping | `<name>.json` |

Each is written beside its place and renamed over it, so a night that dies mid-write
leaves the previous value whole.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import dagster as dg
import polars as pl

from models.content import ContentModel

MODEL_FILES = "model_files"
"""The resource key of the IO manager (`AssetSpec.with_io_manager_key`, `io_manager_key=`)."""


class ModelFiles(dg.IOManager):
    """Stores each recommender asset's value under `folder`, in the format of its type."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _stem(self, key: dg.AssetKey) -> Path:
        return self.folder / key.path[-1]

    def handle_output(self, context: dg.OutputContext, obj: Any) -> None:
        stem = self._stem(context.asset_key)
        self.folder.mkdir(parents=True, exist_ok=True)
        if isinstance(obj, pl.DataFrame):
            path = stem.with_suffix(".parquet")
            tmp = path.with_name(f".{path.name}.tmp")
            obj.write_parquet(tmp)
            os.replace(tmp, path)
        elif isinstance(obj, ContentModel):
            path, tmp = stem, stem.with_name(f".{stem.name}.tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            obj.save(tmp)
            shutil.rmtree(path, ignore_errors=True)
            os.replace(tmp, path)
        else:
            path = stem.with_suffix(".json")
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(json.dumps(obj, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
            os.replace(tmp, path)
        context.add_output_metadata({"path": dg.MetadataValue.path(str(path))})

    def load_input(self, context: dg.InputContext) -> Any:
        stem = self._stem(context.asset_key)
        if stem.with_suffix(".parquet").is_file():
            return pl.read_parquet(stem.with_suffix(".parquet"))
        if stem.is_dir():
            return ContentModel.load(stem)
        if stem.with_suffix(".json").is_file():
            return json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
        raise FileNotFoundError(f"{context.asset_key.to_user_string()} was never materialized here ({stem}.*)")


@dg.io_manager(required_resource_keys={"site"},
               description="The recommender assets' values, under DATA_DIR/models/ (Parquet, JSON, the content model).")
def model_files(init_context: dg.InitResourceContext) -> ModelFiles:
    return ModelFiles(init_context.resources.site.paths.models)


@dg.definitions
def resources() -> dg.Definitions:
    return dg.Definitions(resources={MODEL_FILES: model_files})
