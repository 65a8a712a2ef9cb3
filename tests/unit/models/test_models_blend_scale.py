"""The blend's reference scale: each member's best candidate maps to 1, the reference (the
k-th best) to 0, so the champion's, content's and popularity's scores can be mixed."""

from __future__ import annotations

import numpy as np

from models.discovery.blend import reference_scale


def test_reference_scale_maps_best_to_one_and_reference_to_zero() -> None:
    values = np.array(
        [[5.0, 4.0, 3.0, 1.0], [2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [9.0, 1.0, 3.0, 2.0]],
        dtype=np.float32,
    )
    mask = np.ones_like(values, dtype=bool)
    mask[3, 0] = False  # an excluded game does not set the scale
    offset, slope = reference_scale(values, mask, 3)
    scaled = (values - offset[:, None]) * slope[:, None]
    np.testing.assert_allclose(scaled[0], [1.0, 0.5, 0.0, -1.0])
    np.testing.assert_allclose(scaled[1], [1.0, 1.0, 0.0, 0.0])  # best equals the 3rd best: divide by the best
    assert slope[2] == 0  # no signal
    np.testing.assert_allclose(scaled[3, 1:], [0.0, 1.0, 0.5])  # 3 is best, 1 the 3rd best
