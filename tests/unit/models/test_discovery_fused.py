"""The champion's part made in one pass per member (``models.discovery.fused``), and the
whole block ranked in one pass per member (``models.discovery.onepass``), give the
ranked rows, scores and reasons of the separate steps, bit for bit, and keep the
ensemble's statistics as they keep them.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/integration/models/test_discovery_fused.py.
"""

from __future__ import annotations

import numpy as np

from models.discovery.onepass import Ranked


def test_evidence_follows_a_reordering() -> None:
    ids = np.array([[5, 2, 9, -1], [0, 1, 2, 3]])
    evidence = np.array([[True, False, True, False], [False, True, False, True]])
    block = Ranked(ids, np.zeros(ids.shape, dtype=np.float32), evidence, np.zeros(2, dtype=np.int64),
                   np.zeros(2, dtype=np.float32), np.zeros(2, dtype=np.float32))
    moved = np.array([[9, 5, 2], [3, 0, 2]])
    assert block.evidence_of(moved).tolist() == [[True, True, False], [True, False, False]]
