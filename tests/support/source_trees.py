"""The project's source files as syntax trees, parsed once per test process.

Why: several unit tests read the whole tree as syntax (the layers' import graphs, the
settings' second defaults, the one error line, the compiled loops' home, the environment's
readers); parsing the ~320 files takes ~1.2 s of CPU and walking them ~0.3 s, and each of
those tests did both again, a dozen times per worker. A tree is kept under its path and the
file's size and modification time, so a file a test writes or changes (a planted tree in
`tmp_path`) is parsed as it is now. Callers read the trees and never change them: one tree
serves every test of the process.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path


def parsed(path: Path) -> ast.Module:
    """The syntax tree of the Python file at `path` (UTF-8), as it is on disk now."""
    stat = path.stat()
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size)


def walked(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `parsed(path)`, in `ast.walk`'s order."""
    stat = path.stat()
    return _walked(str(path), stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parsed(path: str, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)


@functools.cache
def _walked(path: str, mtime_ns: int, size: int) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed(path, mtime_ns, size)))
