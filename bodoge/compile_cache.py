"""Warm numba's on-disk cache of the models' compiled loops: `python -m bodoge.compile_cache`.

Why: the ranking's loops are compiled by numba the first time a process calls them and
cached on disk (`models.fast.compiled`); a fresh checkout, or any change under models/fast/
(the cache is stamped with the kernel library), compiles them all again: ~24 s of CPU, in every
process that runs a night's evaluation or discovery before one of them has written the
cache. Two test workers, or a night and a test beside it, pay it each. Run once before
them (the test suite's controller does, tests/conftest.py), it leaves each loading the
cache instead (~0.7 s).

How: the night's own model path, through its public entry points, on a small generated
site (80 games, 140 members: the crash tests' nights; at 40 x 60 the ensemble's kept
statistics were never reached): the content model, the evaluation of every candidate,
discovery with each candidate as the champion (each kind of champion compiles loops of
its own: dense, sparse, factors, the ensemble's parts), and one member folded in by each
champion's saved model in every mode (the API's and `bodoge refresh`'s path: the separate
blend, the shelves' few columns). Same code, same array types, so the same compiled loops
as a real night's and the API's; a few seconds once the cache is warm. Two loops only
larger sites reach are left to the first process that needs them (`fused_rows_into`,
`reference_scale_rows`).

Nothing is warmed where numba cannot cache (`cacheable`): each process compiles for
itself there anyway, and compiling here too would be wasted. Once warm, a stamp beside the
cache (a digest of models/, this file and the numba, numpy and Python versions) says so,
and the next call returns at once until one of them changes.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

STAMP_PREFIX = "bodoge-compile-cache-"


@dataclass(frozen=True)
class Warming:
    """What `warm_compile_cache` did: "warmed", "already warm" or "not cacheable", and the
    seconds of each part it ran."""

    status: str
    seconds: dict[str, float] = field(default_factory=dict)


def cache_folder() -> Path:
    """Where numba keeps the loops' machine code: NUMBA_CACHE_DIR, else beside the kernel
    library's source (models/fast/). (numba may also fall back to the user's cache
    directory; this does not count on it, so a read-only checkout is never warmed in vain.)"""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given)
    return _models_folder() / "fast" / "__pycache__"


def _models_folder() -> Path:
    import models

    return Path(models.__file__).resolve().parent


def cacheable() -> bool:
    """Whether numba can write its cache (`cache_folder`)."""
    return _writable(cache_folder())


def stamp() -> str:
    """A digest of what the warm-up depends on: every source file under models/ (the loops
    in models/fast/, and the callers that choose which array types they are compiled for),
    this file (what it warms), and the numba, numpy and Python versions."""
    from importlib.metadata import version  # not the packages themselves: a warm call stays instant

    digest = hashlib.sha256(f"{version('numba')} {version('numpy')} {sys.version}".encode())
    root = _models_folder()
    for path in sorted(root.rglob("*.py")) + [Path(__file__).resolve()]:
        digest.update(str(path.relative_to(root.parent)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def warm_compile_cache(*, force: bool = False, n_games: int = 80, n_members: int = 140, seed: int = 0) -> Warming:
    """Run the night's model path once on a tiny site, unless the cache cannot be written
    (`cacheable`) or was warmed for this very code (`stamp`; `force` warms all the same)."""
    if not cacheable():
        return Warming("not cacheable")
    marker = cache_folder() / f"{STAMP_PREFIX}{stamp()}"
    if marker.exists() and not force:
        return Warming("already warm")
    seconds = _run_models(n_games=n_games, n_members=n_members, seed=seed)
    for old in cache_folder().glob(f"{STAMP_PREFIX}*"):
        old.unlink(missing_ok=True)
    marker.write_text(" ".join(f"{k}={v:.2f}" for k, v in seconds.items()) + "\n", encoding="utf-8")
    return Warming("warmed", seconds)


def _run_models(*, n_games: int, n_members: int, seed: int) -> dict[str, float]:
    """The night's evaluation and discovery (each candidate as champion) on a generated site,
    then one member folded in by each champion's saved model, in every mode."""
    import polars as pl

    from models.threads import single_threaded_blas
    from models.content import ContentModel
    from models.discovery.foldin import MODES, FoldIn
    from models.discovery.members import mark_site
    from models.discovery.run import catalog_frame, discover_interactions
    from models.evaluate import evaluate
    from models.interactions import normalise_interactions
    from models.split import holdout_split
    from samplesite.generator import generate_site
    from samplesite.truth import truth_frames
    from warehouse.filter_columns import with_filter_columns

    seconds: dict[str, float] = {}
    tick = time.perf_counter()
    frames = truth_frames(generate_site(n_games=n_games, n_users=n_members, seed=seed))
    collections = frames["collections"]
    rows = normalise_interactions(collections.drop("updated_at"), source="collections")
    content = ContentModel.fit(catalog_frame(with_filter_columns(frames["games"])), None)
    seconds["setup"] = time.perf_counter() - tick

    tick = time.perf_counter()
    train, test = holdout_split(rows, fraction=0.2, seed=seed)
    report = evaluate(train, test, k=10, seed=seed, item_vectors=(content.game_ids, content.features))
    seconds["evaluation"] = time.perf_counter() - tick

    site_rows = collections.select(pl.col("user_id").cast(pl.String), pl.col("game_id").cast(pl.String))
    marked = mark_site(rows, site_rows)
    member = site_rows.get_column("user_id")[0]
    posted = collections.filter(pl.col("user_id").cast(pl.String) == member)
    for name, result in report.results.items():  # each candidate as the night's champion
        tick = time.perf_counter()
        with tempfile.TemporaryDirectory() as saved, single_threaded_blas():
            discover_interactions(
                interactions=marked, content=content, champion=name, params=dict(result.params),
                weighting=report.weighting.name, run_id="warm-compile-cache",
                generated_at=datetime(2026, 1, 1, tzinfo=timezone.utc), seed=seed, model_dir=Path(saved))
            folding = FoldIn.load(saved, engine="compiled")
            for mode in MODES:
                folding.rank(member, posted, mode)
        seconds[f"discovery_{name}"] = time.perf_counter() - tick
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bodoge.compile_cache", description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="warm even if the stamp says it is warm")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    warming = warm_compile_cache(force=args.force)
    if warming.status == "not cacheable":
        print(f"compile cache: numba cannot write {cache_folder()} here; nothing warmed", file=sys.stderr)
    elif warming.status == "already warm":
        print(f"compile cache: already warm for this code ({cache_folder()})", file=sys.stderr)
    else:
        parts = ", ".join(f"{name} {value:.1f}s" for name, value in warming.seconds.items())
        print(f"compile cache: warmed in {time.perf_counter() - started:.1f}s ({parts})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
