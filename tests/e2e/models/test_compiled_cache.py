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
    "from models.kernels import top_n_rows\n"
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
    package = root / "models"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name in ("compiled.py", "kernels.py"):
        shutil.copy(ROOT / "models" / name, package / name)
    return root


def test_the_loops_are_cached_where_a_cache_can_be_written(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    result = _run(tree, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[[1, 2]] [[2.0, 1.0]] [False]"
    assert list((tree / "models" / "__pycache__").glob("kernels.top_n_rows-*.nbi"))  # the cache index


def test_the_loops_run_where_no_cache_can_be_written(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    (tree / "models" / "__pycache__").write_text("not a directory", encoding="utf-8")  # no cache beside the source
    nowhere = tmp_path / "nowhere"
    nowhere.write_text("a file, not a directory", encoding="utf-8")  # nor in the user's cache directory
    result = _run(tree, nowhere)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[[1, 2]] [[2.0, 1.0]] [False]"
    assert "Traceback" not in result.stderr


CALLEE = "from models.compiled import compiled\n\n\n@compiled\ndef step(x):\n    return x + {step}\n"
CALLER = (
    "from models.compiled import compiled\nfrom models.callee import step\n\n\n"
    "@compiled\ndef twice(x):\n    return step(step(x))\n"
)


def test_a_changed_callee_in_another_module_is_compiled_afresh(tmp_path: Path) -> None:
    """numba keys a loop's cache on its own file only: after an upgrade that changed only
    the module a cached loop calls into, the loop must not run the old callee."""
    tree = tmp_path / "tree"
    package = tree / "models"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(ROOT / "models" / "compiled.py", package / "compiled.py")
    (package / "caller.py").write_text(CALLER, encoding="utf-8")
    program = "from models.caller import twice\nprint(twice(1))\n"

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
