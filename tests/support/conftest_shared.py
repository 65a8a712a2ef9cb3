"""Where the shared reference material lives, for tests that read it.

`../shared` (the checkout's sibling) holds the site samples, real page texts and
BoardGameGeek XML the parsers are checked against. It is not part of the project: a
fresh clone may not have it, so every test that needs it skips with a clear reason.
Import the helpers (`from tests.support.conftest_shared import shared_file`); this is a plain
module, not a conftest, so it registers nothing on its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SKIP_REASON = "../shared (site samples and BoardGameGeek XML) is not beside this checkout"


def shared_dir() -> Path:
    """`<checkout>/../shared`; skips the calling test when it is absent."""
    path = Path(__file__).resolve().parents[3] / "shared"
    if not path.is_dir():
        pytest.skip(SKIP_REASON)
    return path


def shared_file(*parts: str) -> Path:
    """A file under ../shared (e.g. `shared_file("site-samples", "game-propolis.html")`)."""
    path = shared_dir().joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"{path} is missing from ../shared")
    return path


def shared_files(folder: str, pattern: str) -> list[Path]:
    """Every file of a ../shared folder matching a glob, sorted; skips when there is none."""
    paths = sorted(shared_dir().joinpath(folder).glob(pattern))
    if not paths:
        pytest.skip(f"no {pattern} in ../shared/{folder}")
    return paths


def shared_params(folder: str, pattern: str) -> list[object]:
    """Names of ../shared/<folder> files matching a glob, as `pytest.param`s for parametrize.

    Collection must not skip, so an absent ../shared gives one skipped param instead.
    """
    root = Path(__file__).resolve().parents[3] / "shared" / folder
    names = sorted(p.name for p in root.glob(pattern)) if root.is_dir() else []
    if not names:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-shared")]
    return [pytest.param(name, id=name[:60]) for name in names]
