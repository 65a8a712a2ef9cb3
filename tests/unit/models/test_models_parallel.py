"""map_candidates: the candidates' order kept, the ensemble after the others, BLAS held and restored."""

import threading
import time

import pytest
from threadpoolctl import threadpool_info

from models import parallel
from models.threads import single_threaded_blas
from models.candidates import Candidate, default_candidates
from models.parallel import map_candidates

CANDIDATES = {name: default_candidates()[name] for name in ("popularity", "cosine", "bm25", "ease", "ensemble")}


def _blas_threads() -> set[int]:
    return {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}


def test_results_keep_the_candidates_order_whichever_finishes_first() -> None:
    delays = {"popularity": 0.3, "cosine": 0.0, "bm25": 0.1, "ease": 0.0}
    finished: list[str] = []

    def single(name: str, candidate: Candidate) -> str:
        time.sleep(delays[name])
        finished.append(name)
        return f"{name} on {threading.current_thread().name}"

    def ensemble(name: str, candidate: Candidate, singles: dict[str, str]) -> str:
        assert list(singles) == ["popularity", "cosine", "bm25", "ease"]  # every single one, in order
        return f"{name} of {len(singles)}"

    done = map_candidates(CANDIDATES, single, ensemble, threads=2)
    assert list(done) == list(CANDIDATES)
    assert finished[0] != "popularity"  # it finished after others: the order is not the finishing order
    assert done["ensemble"] == "ensemble of 4"
    assert all("MainThread" not in done[name] for name in delays)


def test_one_thread_is_the_plain_loop() -> None:
    seen: list[tuple[str, list[str]]] = []

    def single(name: str, candidate: Candidate) -> str:
        assert threading.current_thread() is threading.main_thread()
        seen.append((name, []))
        return name

    def ensemble(name: str, candidate: Candidate, singles: dict[str, str]) -> str:
        seen.append((name, list(singles)))
        return name

    assert list(map_candidates(CANDIDATES, single, ensemble, threads=1)) == list(CANDIDATES)
    assert [name for name, _ in seen] == list(CANDIDATES)
    assert seen[-1][1] == ["popularity", "cosine", "bm25", "ease"]


def test_module_constant_sets_the_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "EVALUATION_THREADS", 1)
    names = map_candidates(CANDIDATES, lambda name, _: threading.current_thread().name, lambda *_: "")
    assert names["popularity"] == threading.main_thread().name


def test_an_ensemble_needs_its_function() -> None:
    with pytest.raises(ValueError, match="ensemble"):
        map_candidates(CANDIDATES, lambda name, _: name)


def test_first_failure_is_raised() -> None:
    def single(name: str, candidate: Candidate) -> str:
        if name == "bm25":
            raise RuntimeError("bm25 broke")
        return name

    with pytest.raises(RuntimeError, match="bm25 broke"):
        map_candidates(CANDIDATES, single, lambda *_: "", threads=2)


def test_blas_is_one_thread_inside_and_restored_after() -> None:
    """Fits enter and leave ``single_threaded_blas`` on both threads at once: inside it BLAS
    must stay at one thread, and afterwards be back where it was."""
    before = _blas_threads()
    seen: set[int] = set()

    def single(name: str, candidate: Candidate) -> str:
        for _ in range(20):
            with single_threaded_blas():
                seen.update(_blas_threads())
            seen.update(_blas_threads())
        return name

    map_candidates(CANDIDATES, single, lambda *_: "", threads=2)
    assert seen == {1}
    assert _blas_threads() == before
