"""Recommender models, dagster-free: plain functions and classes, tested on their own.

* ``models.interactions``: read/validate interaction files, the confidence weighting,
  ``InteractionMatrix`` (users×games CSR with its id mappings).
* ``models.split``: seeded per-user holdout.
* ``models.metrics``: NDCG, precision, recall, MAP and coverage at k on long frames.
* ``models.base`` and the candidates ``popularity``, ``knn`` (cosine, BM25),
  ``factorization`` (ALS, BPR), ``ease``, ``rp3beta``; ``models.persist`` saves a model
  with its mappings.
* ``models.candidates``/``models.tuning``/``models.validation``: grids and tuning on
  validation splits of TRAIN.
* ``models.evaluate``: ``evaluate``/``evaluate_files`` behind ``bodoge evaluate``;
  ``models.report`` holds the result.

Nothing here imports dagster or does work at import time.
"""
