"""A benchmark's command line, written as a table of flag names and defaults.

Why a table: the benchmarks take sizes, seeds and a champion, and each of their parsers was
the same `add_argument("--games", type=int, default=…)` lines with other numbers; a flag
is now its name and its default, whose type is the flag's type.
"""

from __future__ import annotations

import argparse

Default = bool | int | float | str | list[int] | list[float] | list[str]


def options(argv: list[str] | None, description: str, **defaults: Default) -> argparse.Namespace:
    """`argv` (None: the process's) parsed with one ``--<name>`` per keyword, ``_`` written ``-``.

    A flag takes its default's type; a list default takes one or more values of its first
    item's type; a default of False makes a switch (present: True).
    """
    parser = argparse.ArgumentParser(description=description)
    for name, default in defaults.items():
        flag = f"--{name.replace('_', '-')}"
        if isinstance(default, bool):
            if default:
                raise ValueError(f"{flag}: a switch defaults to False")
            parser.add_argument(flag, action="store_true")
        elif isinstance(default, list):
            parser.add_argument(flag, type=type(default[0]), nargs="+", default=default)
        else:
            parser.add_argument(flag, type=type(default), default=default)
    return parser.parse_args(argv)
