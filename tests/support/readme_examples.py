"""The README's example outputs, checked against (and regenerated from) the code they document.

Why: the README showed `bodoge recommend 41256 -n 3` answering with a list the code had
stopped giving; an example nobody runs drifts. Every ```text block of README.md holds
examples: a line `$ uv run bodoge ARGS  # comment`, then the output lines shown, up to the
next `$` line or a blank line. A line `…` elides output. The examples are run against the
published night of `bodoge demo` (its defaults: seed 0, 1,000 games, 2,000 members).

How lines compare (so padding is not content):

- rich table borders (`┏━┳`, `┡━╇`, `└─┴`) are dropped on both sides;
- a table row (`│ a │ b │` or the header `┃ a ┃ b ┃`) compares as its cells, each stripped,
  so column widths may differ (the README trims the padding rich adds for longer rows
  that are not shown);
- any other line compares with trailing spaces removed;
- the lines between two `…` (or the start or end of the example) must appear in the
  command's output contiguously, and the runs in the README's order.

Regenerate after a change to what the commands print (run from the repository root):

    uv run bodoge demo --data-dir /tmp/demo
    uv run python -m tests.support.readme_examples --data-dir /tmp/demo --write

Without `--data-dir` it builds the demo's night itself in a temporary folder first
(about 3 minutes on 2 cores). Without `--write` it only reports the examples that differ.
`--write` keeps each example's command and how many lines it shows (starting at the
table's header when the README's example does), and re-pads the table rows shown.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
ELISION = "…"
BORDER_CHARS = set("━─═┏┳┓┡╇┩└┴┘┗┻┛┌┬┐├┼┤╞╪╡┯┷┿╋ ")  # rows always hold │ or ┃, borders never
ROW_BARS = "│┃"
PROMPT = "$ uv run bodoge "


@dataclass(frozen=True)
class Example:
    """One `$ uv run bodoge …` line of README.md and the output lines it shows."""

    line_no: int  # 1-based line of the `$` line in README.md
    prompt: str  # the `$` line as written (with its comment)
    shown: tuple[str, ...]  # output lines as written, `…` included

    @property
    def args(self) -> list[str]:
        """The bodoge arguments, comment removed (`collection 41256 --sort players` → [...])."""
        return shlex.split(self.prompt[len(PROMPT):], comments=True)

    @property
    def segments(self) -> list[list[tuple]]:
        """The shown lines, normalised, in runs split at each `…`."""
        runs: list[list[tuple]] = [[]]
        for line in self.shown:
            if line.strip() == ELISION:
                runs.append([])
            elif (key := normalise(line)) is not None:
                runs[-1].append(key)
        return [run for run in runs if run]


def normalise(line: str) -> tuple | None:
    """A line as it compares: None for a border, ("row", bar, cells) for a table row, else ("text", line)."""
    if line.strip() and set(line) <= BORDER_CHARS:
        return None
    text = line.rstrip()
    stripped = text.strip()
    if stripped[:1] in ROW_BARS and stripped[-1:] in ROW_BARS and len(stripped) > 1:
        bar = stripped[0]
        return ("row", bar, tuple(cell.strip() for cell in stripped[1:-1].split(bar)))
    return ("text", text)


def output_keys(output: str) -> list[tuple]:
    """A command's output, normalised line by line, borders dropped."""
    return [key for line in output.splitlines() if (key := normalise(line)) is not None]


def examples(text: str) -> list[Example]:
    """Every example in the ```text blocks of the README's text."""
    found: list[Example] = []
    in_text_block = False
    current: tuple[int, str, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            if current:
                found.append(Example(current[0], current[1], tuple(current[2])))
                current = None
            in_text_block = line.strip() == "```text" if not in_text_block else False
            continue
        if not in_text_block:
            continue
        if line.startswith(PROMPT):
            if current:
                found.append(Example(current[0], current[1], tuple(current[2])))
            current = (number, line.rstrip(), [])
        elif not line.strip():
            if current:
                found.append(Example(current[0], current[1], tuple(current[2])))
            current = None
        elif current:
            current[2].append(line.rstrip())
    return found


def mismatch(example: Example, output: str) -> str | None:
    """None when every run of shown lines appears in `output`, in order; else what is missing."""
    keys = output_keys(output)
    at = 0
    for run in example.segments:
        start = _find(keys, run, at)
        if start is None:
            shown = "\n".join(_render_key(k) for k in run)
            return f"README.md:{example.line_no}: `{example.prompt}` does not print\n{shown}"
        at = start + len(run)
    return None


def _find(keys: list[tuple], run: list[tuple], start: int) -> int | None:
    for i in range(start, len(keys) - len(run) + 1):
        if keys[i:i + len(run)] == run:
            return i
    return None


def _render_key(key: tuple) -> str:
    if key[0] == "row":
        return f"{key[1]} " + f" {key[1]} ".join(key[2]) + f" {key[1]}"
    return key[1]


def rendered(example: Example, output: str) -> list[str]:
    """The example's new shown lines from `output`: as many as it showed, from the same kind
    of first line (the table's header when the README started there), table rows re-padded
    to the widths of the rows shown, and `…` when the output goes on."""
    from rich.cells import cell_len

    keys = output_keys(output)
    segments = example.segments
    count = sum(len(s) for s in segments) or 1
    start = 0
    if segments and segments[0][0][0] == "row":
        start = next((i for i, k in enumerate(keys) if k[0] == "row"), 0)
    chosen = keys[start:start + count]
    rows = [k for k in chosen if k[0] == "row"]
    widths: list[int] = []
    for _, _, cells in rows:
        widths = [max(w, cell_len(c)) for w, c in zip(widths + [0] * len(cells), cells)]
    lines = []
    for key in chosen:
        if key[0] == "row":
            bar, cells = key[1], key[2]
            padded = [c + " " * (widths[i] - cell_len(c)) for i, c in enumerate(cells)]
            lines.append(f"{bar} " + f" {bar} ".join(padded) + f" {bar}")
        else:
            lines.append(key[1])
    if start + count < len(keys):
        lines.append(ELISION)
    return lines


def run_example(example: Example, data_dir: Path) -> subprocess.CompletedProcess:
    """The example's command, as `uv run bodoge` runs it (this environment's `bodoge` script),
    reading DATA_DIR's published night, stdout piped (so rich prints 200 columns wide)."""
    script = Path(sys.executable).with_name("bodoge")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "bodoge.cli"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_")}
    env["BODOGE_DATA_DIR"] = str(data_dir)
    return subprocess.run([*command, *example.args], capture_output=True, text=True, encoding="utf-8", env=env,
                          timeout=300)


def build_demo_night(data_dir: Path) -> None:
    """`bodoge demo` with its defaults into DATA_DIR (a real night: crawl, build, models, export)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BODOGE_")}
    run = subprocess.run([sys.executable, "-m", "bodoge.cli", "demo", "--data-dir", str(data_dir)],
                         capture_output=True, text=True, encoding="utf-8", env=env, timeout=1800)
    if run.returncode != 0:
        raise RuntimeError(f"bodoge demo failed ({run.returncode}): {run.stderr.strip()[-2000:]}")


def write(readme: Path, data_dir: Path) -> list[str]:
    """Rewrite every example's shown lines from its command's output; returns the commands that changed."""
    lines = readme.read_text(encoding="utf-8").split("\n")
    changed = []
    for example in sorted(examples("\n".join(lines)), key=lambda e: -e.line_no):  # bottom up: line numbers hold
        run = run_example(example, data_dir)
        if run.returncode != 0:
            raise RuntimeError(f"`{example.prompt}` failed: {run.stderr.strip()}")
        new = rendered(example, run.stdout)
        if list(example.shown) != new:
            changed.append(example.prompt)
        lines[example.line_no:example.line_no + len(example.shown)] = new
    readme.write_text("\n".join(lines), encoding="utf-8")
    return changed[::-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.readme_examples", description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, help="a published night of `bodoge demo` (default: build one)")
    parser.add_argument("--write", action="store_true", help="rewrite README.md's example outputs")
    parser.add_argument("--readme", type=Path, default=README)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="readme-demo-") as tmp:
        data_dir = args.data_dir
        if data_dir is None:
            data_dir = Path(tmp) / "data"
            print(f"building the demo's night in {data_dir} …", file=sys.stderr, flush=True)
            build_demo_night(data_dir)
        if args.write:
            for prompt in write(args.readme, data_dir):
                print(f"rewrote: {prompt}")
            return 0
        problems = []
        for example in examples(args.readme.read_text(encoding="utf-8")):
            run = run_example(example, data_dir)
            problem = mismatch(example, run.stdout) if run.returncode == 0 else f"`{example.prompt}`: {run.stderr}"
            if problem:
                problems.append(problem)
        print("\n\n".join(problems) or "every example matches")
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
