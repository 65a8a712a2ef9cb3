"""The one-line error: `bodoge: error: <what went wrong>` on stderr, and an exit code.

Why one formatter: operators, the nightly log and a parent process reading its child's
stderr all look for the last line of a failed command, in this one shape. It used to be
written by hand in each command (the CLI, the SQL shell, the crawl child, argparse's
errors, the export validator), and each copy could drift; `tests/unit/test_ops_errors.py`
fails if the shape is written anywhere else.
"""

from __future__ import annotations

import sys

PROG = "bodoge"
#: Module roots whose exceptions carry messages written for people: shown without their type.
OWN_MODULES = frozenset({"scrapers", "warehouse", "models", "samplesite", "bodoge", "pipelines", "ops"})


def one_line(exc: BaseException) -> str:
    """An exception as one line: its message, or its type where it has none.

    Our own exceptions (and OSError, ValueError) say what went wrong in their message; a
    library's keeps its type name in front, since its message alone may not.
    """
    text = str(exc).strip().splitlines()
    known = type(exc).__module__.split(".")[0] in OWN_MODULES
    message = text[0] if text else type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"no such file: {exc.filename}"
    return message if known or isinstance(exc, (OSError, ValueError)) else f"{type(exc).__name__}: {message}"


def error_line(message: str, *, prog: str = PROG) -> str:
    """`<prog>: error: <message>`, the line every failed command ends with."""
    return f"{prog}: error: {message}"


def error_of(line: str, *, prog: str = PROG) -> str | None:
    """The message of an `error_line`, or None for any other line (a parent reading its child)."""
    prefix = error_line("", prog=prog)
    return line.removeprefix(prefix) if line.startswith(prefix) else None


def fail(message: str, code: int, *, prog: str = PROG) -> int:
    """Print `error_line(message)` on stderr and return `code`, for `return fail(…)` in a command."""
    print(error_line(message, prog=prog), file=sys.stderr, flush=True)
    return code
