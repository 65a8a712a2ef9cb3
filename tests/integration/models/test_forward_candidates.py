"""``benchmarks.forward_candidates`` on one late MovieLens-100k cut: the variants reduce to
their base where they should (an endless half-life, a zero beta), and they do move the lists
where they should not reduce (a week's half-life)."""

from __future__ import annotations

import numpy as np

from benchmarks.forward_candidates import one_cut
from models.interactions import normalise_interactions
from models.movielens import ml100k


def test_variants_reduce_to_ease_at_their_limits_and_differ_otherwise() -> None:
    raw = ml100k()
    frame = normalise_interactions(raw)  # keeps updated_at
    run = one_cut(frame, 0.9, half_lives=(1e12, 7.0), betas=(0.0, 0.3))
    for view in ("forward", "random"):
        scores = run[view]
        assert scores["ease"].size >= 50
        np.testing.assert_allclose(scores["recency_1e+12d"], scores["ease"])
        np.testing.assert_allclose(scores["transitions_0"], scores["ease"])
        assert not np.allclose(scores["recency_7d"], scores["ease"])
        assert not np.allclose(scores["transitions_0.3"], scores["ease"])
        assert all(0.0 <= v.min() and v.max() <= 1.0 + 1e-9 for v in scores.values())
