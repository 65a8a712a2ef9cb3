"""Real public rating data for measuring quality: MovieLens-100k, as shipped inside a wheel.

Why this file and this package: the machines reach package registries only, and code
that downloads a data set at run time fails here. RecBole (a dev dependency) is the one
package found whose wheel *contains* a real MovieLens-sized rating set
(``recbole/dataset_example/ml-100k/ml-100k.inter``: the GroupLens ML-100k ratings,
943 users × 1,682 movies, 100,000 ratings 1–5 with timestamps). Scikit-surprise,
rs_datasets, LensKit, cornac and others download theirs. RecBole is never imported (its
PyTorch stack is excluded in ``pyproject.toml``); the file is found through the
installed distribution's file list. The MovieLens licence forbids redistributing the
data, so the repository ships none of it.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import polars as pl

ML100K_FILE = "recbole/dataset_example/ml-100k/ml-100k.inter"
"""Where the ratings sit inside the recbole distribution."""


class DatasetUnavailable(RuntimeError):
    """The package that ships the data is not installed (``uv sync`` installs the dev group)."""


def ml100k_path() -> Path:
    """The installed ``ml-100k.inter`` (tab-separated: user, item, rating, timestamp)."""
    try:
        distribution = metadata.distribution("recbole")
    except metadata.PackageNotFoundError as error:
        raise DatasetUnavailable("MovieLens-100k comes with the dev dependency recbole: run `uv sync`") from error
    path = Path(str(distribution.locate_file(ML100K_FILE)))
    if not path.is_file():
        raise DatasetUnavailable(f"recbole {distribution.version} has no {ML100K_FILE}")
    return path


def ml100k() -> pl.DataFrame:
    """ML-100k as interactions: ``user_id``, ``game_id`` (the movie), ``rating``, ``updated_at``.

    Every rating is an interaction (the usual implicit reading of MovieLens: a member
    rated it, so they watched it); the rating itself stays for the confidence weighting.
    """
    frame = pl.read_csv(ml100k_path(), separator="\t", infer_schema_length=0)
    frame = frame.rename({name: name.split(":")[0] for name in frame.columns})
    return frame.select(
        pl.col("user_id").cast(pl.String),
        pl.col("item_id").cast(pl.String).alias("game_id"),
        pl.col("rating").cast(pl.Float64),
        pl.from_epoch(pl.col("timestamp").cast(pl.Float64).cast(pl.Int64), time_unit="s").alias("updated_at"),
    )
