"""Tables of examples for small pure functions: literal inputs and the answer each must give.

Why one helper: the field and BoardGameGeek parsers are checked on many tables of real
strings, every row the same way (``function(given) == expected``). Written once here, that
check is also stricter than a bare ``==``: the answer must have the expected type, so
``True`` does not pass for ``1`` nor a list for a tuple. Import it
(``from tests.support.examples import check, examples``); it registers nothing on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

Table = Mapping[Callable[[Any], Any], Sequence[tuple[Any, Any]]]


def examples(table: Table) -> list[Any]:
    """One ``pytest.param(function, given, expected)`` per row, named after the function and row."""
    return [
        pytest.param(function, given, expected, id=f"{function.__name__}-{index}")
        for function, rows in table.items()
        for index, (given, expected) in enumerate(rows)
    ]


def check(function: Callable[[Any], Any], given: Any, expected: Any) -> None:
    """``function(given)`` equals ``expected`` and is of its type."""
    answer = function(given)
    assert (type(answer), answer) == (type(expected), expected), (
        f"{function.__name__}({given!r}) gave {answer!r}, expected {expected!r}"
    )
