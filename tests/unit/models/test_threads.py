"""BLAS held at one thread while models fit and score (`models.threads.single_threaded_blas`),
with threadpoolctl's view of the loaded libraries kept between calls."""

from __future__ import annotations

import sys
import types

import numpy as np
from threadpoolctl import threadpool_info

from models import threads


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_every_blas_runs_one_thread_inside_and_as_before_after() -> None:
    np.ones((2, 2)) @ np.ones((2, 2))  # numpy's BLAS is loaded
    before = _blas_threads()
    assert before, "no BLAS library found: numpy links one"
    with threads.single_threaded_blas():
        assert _blas_threads() == [1] * len(before)
        with threads.single_threaded_blas():  # nested, as a fit inside an evaluation
            assert _blas_threads() == [1] * len(before)
        assert _blas_threads() == [1] * len(before)
    assert _blas_threads() == before


def test_the_libraries_are_looked_up_again_after_an_import() -> None:
    first = threads._blas_libraries()
    assert threads._blas_libraries() is first  # nothing imported: the same view
    name = "tests.unit.models._threads_probe"
    sys.modules.pop(name, None)
    sys.modules[name] = types.ModuleType(name)
    try:
        assert threads._blas_libraries() is not first  # a module more: a library may have come with it
    finally:
        del sys.modules[name]
