"""Recommender models, dagster-free: plain functions and classes, tested on their own.

Data and evaluation
* ``interactions``: read/validate interaction files, the confidence weighting,
  ``InteractionMatrix`` (users×games CSR with its id mappings); ``synthetic``,
  ``movielens``: seeded synthetic data and real public ratings for measuring.
* ``split``: seeded per-user and time holdouts; ``metrics`` (NDCG, precision, recall, MAP,
  coverage at k on long frames) and ``beyond`` (popularity, diversity, stability).
* ``candidates``, ``tuning``, ``tuning_store``, ``validation``, ``budget``: the grids, tuning
  on validation splits of TRAIN, the last full tuning kept, the shortcuts at real-site size.
* ``evaluate``, ``parallel``, ``final_scores``, ``champion``, ``report``, ``bgg_gain``:
  ``bodoge evaluate`` end to end, the champion's choice and what is reported.

The candidates (one base, ``base.Recommender``: ``score``, ``item_weights``, ``latent_factors``,
``parts``)
* ``popularity``; ``knn`` (cosine, BM25); ``factorization`` (ALS, BPR); ``ease`` (EASE, EDLAE);
  ``gfcf``; ``rp3beta``; ``ensemble`` (z-scored members, greedy selection) with
  ``member_statistics``; ``column_scores`` (a few columns of ``x_u W``); ``persist``.
* ``content``, ``similarity``, ``specs``: what a game *is* (text, specs), for content scores.

Serving
* ``discovery``: every list a member sees (its own package docstring); ``discovery.reference``
  says what a list is, in numpy.
* ``fast``: the kernel library, every compiled loop; it imports nothing above it.
* ``sklearn_lazy``: scikit-learn's functions, imported on first use (importing it costs
  ~1.1 s of CPU in every process that loads the definitions).

Nothing here imports dagster or does work at import time.
"""
