"""The compiled loops run whether or not numba can keep their machine code on disk.

numba raises at import when no cache directory can be written (``cache=True``); a
read-only checkout run by a service user without a home must still rank. Real
processes: a copy of the two modules in a fresh directory, run by a new interpreter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROGRAM = (
    "import numpy as np\n"
    "from models.fast.kernels import top_n_rows\n"
    "ids, values, flagged = top_n_rows(np.array([[0.5, 2.0, 1.0]], dtype=np.float32), 2)\n"
    "print(ids.tolist(), values.tolist(), flagged.tolist())\n"
)


def _run(tree: Path, cache_home: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
    env.update(PYTHONPATH=str(tree), XDG_CACHE_HOME=str(cache_home), HOME=str(cache_home),
               PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", PROGRAM], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=300)


def _tree(root: Path) -> Path:
    package = root / "models" / "fast"
    package.mkdir(parents=True)
    (root / "models" / "__init__.py").write_text("", encoding="utf-8")
    for name in ("__init__.py", "compiled.py", "kernels.py"):
        shutil.copy(ROOT / "models" / "fast" / name, package / name)
    return root


def test_the_loops_are_cached_where_a_cache_can_be_written(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    result = _run(tree, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[[1, 2]] [[2.0, 1.0]] [False]"
    assert list((tree / "models" / "fast" / "__pycache__").glob("kernels.top_n_rows-*.nbi"))  # the cache index


def test_the_loops_run_where_no_cache_can_be_written(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    (tree / "models" / "fast" / "__pycache__").write_text("not a directory", encoding="utf-8")  # no cache beside the source
    nowhere = tmp_path / "nowhere"
    nowhere.write_text("a file, not a directory", encoding="utf-8")  # nor in the user's cache directory
    result = _run(tree, nowhere)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[[1, 2]] [[2.0, 1.0]] [False]"
    assert "Traceback" not in result.stderr


CALLEE = "from models.fast.compiled import compiled\n\n\n@compiled\ndef step(x):\n    return x + {step}\n"
CALLER = (
    "from models.fast.compiled import compiled\nfrom models.fast.callee import step\n\n\n"
    "@compiled\ndef twice(x):\n    return step(step(x))\n"
)


def test_a_changed_callee_in_another_module_is_compiled_afresh(tmp_path: Path) -> None:
    """numba keys a loop's cache on its own file only: after an upgrade that changed only
    the module a cached loop calls into, the loop must not run the old callee."""
    tree = _tree(tmp_path / "tree")
    package = tree / "models" / "fast"
    (package / "caller.py").write_text(CALLER, encoding="utf-8")
    program = "from models.fast.caller import twice\nprint(twice(1))\n"

    def run() -> str:
        env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
        env.update(PYTHONPATH=str(tree), HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "home"),
                   PYTHONDONTWRITEBYTECODE="1")
        result = subprocess.run([sys.executable, "-c", program], cwd=tree, env=env, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    (package / "callee.py").write_text(CALLEE.format(step=1), encoding="utf-8")
    assert run() == "3"
    assert list((package / "__pycache__").glob("caller.twice-*.nbi"))  # the caller's code is cached
    (package / "callee.py").write_text(CALLEE.format(step=10), encoding="utf-8")  # the upgrade
    assert run() == "21"


def test_an_edit_outside_the_kernel_library_keeps_the_cache(tmp_path: Path) -> None:
    """The cache is stamped with ``models/fast/`` alone: a docstring edit elsewhere in
    ``models/`` must not recompile every loop in every process."""
    tree = _tree(tmp_path / "tree")
    home = tmp_path / "home"
    assert _run(tree, home).returncode == 0
    cached = sorted((tree / "models" / "fast" / "__pycache__").glob("kernels.*.nb[ci]"))
    assert cached
    before = {path: path.stat().st_mtime_ns for path in cached}
    (tree / "models" / "elsewhere.py").write_text('"""An edit outside the kernels."""\n', encoding="utf-8")
    assert _run(tree, home).returncode == 0
    assert {path: path.stat().st_mtime_ns for path in cached} == before
    (tree / "models" / "fast" / "note.py").write_text('"""An edit inside them."""\n', encoding="utf-8")
    assert _run(tree, home).returncode == 0
    assert {path: path.stat().st_mtime_ns for path in cached} != before  # compiled afresh, written again
