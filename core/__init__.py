"""The bottom layer: configuration and paths, ids, HTTP helpers.

Why a package of its own: every other package (scrapers, warehouse, models, pipelines,
bodoge, dashboards) needs these, and none of them may import another one sideways just
to borrow a helper. `core` imports nothing of this project, so the layers only point down
(`tests/unit/test_layers.py` walks every import and fails on a cycle).
"""
