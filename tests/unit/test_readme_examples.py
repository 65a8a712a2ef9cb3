"""Every `$ uv run bodoge …` example of README.md, run on the published night of `bodoge demo`
(its defaults), prints the lines the README shows (`tests/support/readme_examples.py` says how
lines compare, and how to regenerate the examples).

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_readme_examples.py.
"""

from __future__ import annotations

import re


from bodoge.demo import DEMO_SITE
from tests.support.readme_examples import README, Example, examples, mismatch, rendered

EXAMPLES = examples(README.read_text(encoding="utf-8"))

FAKE_OUTPUT = """\
41256 のマイボードゲーム (3 games)                                   
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━┓
┃ game                                              ┃ players ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━┩
│ おばけの祭り / Obake no matsuri                   │ 1–4人   │
│ アウルコーヒー！ / Owl Coffee!                    │ 1–4人   │
│ サバイバー・オブ・ロケット / Survivor of Rocket   │ 2–4人   │
└───────────────────────────────────────────────────┴─────────┘
"""


def fake(*shown: str) -> Example:
    return Example(1, "$ uv run bodoge collection 41256  # a comment", tuple(shown))


def test_examples_are_read_from_the_text_blocks() -> None:
    text = "```bash\n$ uv run bodoge not-this\n```\n\n```text\n$ uv run bodoge collection 41256 --players 2\n" \
           "title\n…\n\n$ uv run bodoge cafes '41256'   # why\nline\n```\n"
    found = examples(text)
    assert [e.args for e in found] == [["collection", "41256", "--players", "2"], ["cafes", "41256"]]
    assert [e.shown for e in found] == [("title", "…"), ("line",)]
    assert found[0].line_no == 6
    assert len(EXAMPLES) >= 5 and all(e.args for e in EXAMPLES)


def test_padding_is_not_content_but_every_shown_line_is() -> None:
    trimmed = fake("41256 のマイボードゲーム (3 games)", "┃ game ┃ players ┃", "│ おばけの祭り / Obake no matsuri │ 1–4人 │", "…")
    assert mismatch(trimmed, FAKE_OUTPUT) is None
    skipped = fake("┃ game ┃ players ┃", "│ おばけの祭り / Obake no matsuri │ 1–4人 │",
                   "│ サバイバー・オブ・ロケット / Survivor of Rocket │ 2–4人 │")
    assert "does not print" in mismatch(skipped, FAKE_OUTPUT)  # a row left out without `…`
    elided = fake("┃ game ┃ players ┃", "│ おばけの祭り / Obake no matsuri │ 1–4人 │", "…",
                  "│ サバイバー・オブ・ロケット / Survivor of Rocket │ 2–4人 │")
    assert mismatch(elided, FAKE_OUTPUT) is None
    assert mismatch(fake("│ おばけの祭り / Obake no matsuri │ 1–5人 │"), FAKE_OUTPUT) is not None
    assert mismatch(fake("41256 のマイボードゲーム (4 games)"), FAKE_OUTPUT) is not None


def test_rendered_examples_keep_their_shape_and_match() -> None:
    old = fake("┃ game ┃ players ┃", "│ x │ y │", "…")
    lines = rendered(old, FAKE_OUTPUT)
    assert lines == ["┃ game                            ┃ players ┃",
                     "│ おばけの祭り / Obake no matsuri │ 1–4人   │", "…"]
    assert mismatch(fake(*lines), FAKE_OUTPUT) is None
    whole = rendered(fake("title", "a", "b", "c", "d", "e"), FAKE_OUTPUT)
    assert whole[0] == "41256 のマイボードゲーム (3 games)" and whole[-1] != "…" and len(whole) == 5


def test_the_readme_states_the_demos_defaults() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"After `bodoge demo` \(seed (\d+), ([\d,]+) games, ([\d,]+) members", text)
    assert match, "README: the line that says which night the examples come from"
    stated = [int(g.replace(",", "")) for g in match.groups()]
    assert stated == [DEMO_SITE["seed"], DEMO_SITE["games"], DEMO_SITE["users"]]
