"""The kernel library: every compiled loop of the project, and nothing else.

Each loop computes, one member's row at a time, what a numpy form in
``models.discovery.reference`` (or a model's own numpy scoring) computes over a batch,
with the same IEEE operations in the same order (float32 stays float32; no
``fastmath``), so the results are the same bit for bit; the docstrings state each loop's
contract (ties, NaN, ±inf, empty rows). Modules:

* ``compiled``: the numba decorator (GIL released, disk cache stamped with this package)
  and ``new_rows`` (batch outputs allocated by numpy, with huge pages);
* ``kernels``: top-n heaps, the reference scale, sparse look-ups, ``segment_argmax``;
* ``pairwise``: numpy's pairwise float sums and scipy's sparse row dots, replayed;
* ``products``: ``x_u W`` for dense and sparse item weights;
* ``statistics``: an ensemble member's per-row z-score statistics and z-adds;
* ``blend``: a member's blended row, the clip and placement of the champion's scores;
* ``fused``: an item-to-item champion's part of a member's row in one pass;
* ``onepass``: a whole-catalogue block (champion, content, blend, top-n) per member;
* ``anchors``: the reasons' anchors for item-to-item champions;
* ``rerank``: MMR.

Layering: this package imports numpy, numba and itself only (``tests/unit/test_layers.py``),
as implicit's ``cpu/`` and LensKit's ``_accel``: callers above hand it plain arrays.
"""
