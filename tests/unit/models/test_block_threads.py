"""Row blocks on two threads (``models.blocks.map_blocks``) give the same arrays as in turn.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/integration/models/test_block_threads.py.
"""

from __future__ import annotations

import models.threads as blocks


def test_blocks_run_in_turn_inside_a_candidate_thread() -> None:
    """Inside ``blocks_in_turn`` (each evaluation candidate's thread) no more threads are started."""
    import threading

    seen: list[str] = []
    blocks.map_blocks(lambda _: seen.append(threading.current_thread().name), range(4), threads=2)
    assert all(name.startswith("block") for name in seen)
    seen.clear()
    with blocks.blocks_in_turn():
        blocks.map_blocks(lambda _: seen.append(threading.current_thread().name), range(4), threads=2)
    assert seen == [threading.current_thread().name] * 4
