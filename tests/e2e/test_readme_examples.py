"""Every `$ uv run bodoge …` example of README.md, run on the published night of `bodoge demo`
(its defaults), prints the lines the README shows (`tests/support/readme_examples.py` says how
lines compare, and how to regenerate the examples).

The night is a real `bodoge demo` (crawl over HTTP, build, every model, export), shared with
the analysts' cookbook (`tests/support/demo_night.py`): about
2½ minutes on 2 idle cores (the parsing of the examples is in tests/unit/test_readme_examples.py).
`BODOGE_README_DATA_DIR=DIR` reuses
a published night of `bodoge demo` with its defaults (its sample-site.json must say so)
while iterating.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bodoge.demo import DEMO_SITE, SITE_FILE
from tests.support.demo_night import shared_demo_night
from tests.support.readme_examples import README, Example, examples, mismatch, run_example

EXAMPLES = examples(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = shared_demo_night(tmp_path_factory)
    note = json.loads((data_dir / SITE_FILE).read_text(encoding="utf-8"))
    assert {k: note[k] for k in DEMO_SITE} == DEMO_SITE, f"{data_dir} is not the night of `bodoge demo`'s defaults"
    return data_dir


@pytest.mark.parametrize("example", EXAMPLES, ids=[" ".join(e.args) for e in EXAMPLES])
def test_each_readme_example_prints_what_the_readme_shows(demo_night: Path, example: Example) -> None:
    run = run_example(example, demo_night)
    assert run.returncode == 0, run.stderr
    problem = mismatch(example, run.stdout)
    if problem:
        pytest.fail(f"{problem}\n\n(regenerate: uv run python -m tests.support.readme_examples --write)", pytrace=False)
