"""Candidates only a forward view can reward, tried on real ratings: ``python -m benchmarks.forward_candidates``.

Why: a random holdout cannot reward knowing *when* a member added a game; a forward cut can.
Two ideas are measured against their plain base (EASE at its default λ 300: tuned EASE's setting on
MovieLens-100k), on MovieLens-100k cut at the same five global moments as
``quality_real --forward``, and on a seeded random 20 % holdout of each cut's TRAIN (the
offline check: a keeper must win forward *without losing on the random split*):

* **recency**: every interaction's confidence times ``0.5 ** (age / half_life)``, its age in
  days before the cut (the fit and the member's own row both);
* **transitions**: item-to-item transitions from the order in which members add games
  (each member's rows by ``updated_at``, then game id; row-normalised counts of i → j), scored
  from the member's three latest games (weights 1, ½, ¼) and added to EASE's scores (each
  scaled by the member's largest) with weight ``beta``.

Printed as JSON: each variant's forward and random NDCG@10 (mean over cuts) and the paired
Wilcoxon test against the base over all cuts' members, forward and random. The settings are
a small grid read off TEST itself (optimistic for the variants); none is a night candidate.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import scipy.sparse as sp  # noqa: E402

CUTS = (0.5, 0.6, 0.7, 0.8, 0.9)
HALF_LIVES = (7.0, 30.0, 90.0, 180.0, 365.0)
BETAS = (0.05, 0.1, 0.3)
K = 10


def _top(scores: np.ndarray, seen: sp.csr_matrix) -> np.ndarray:
    """The top K columns per row, the member's own games excluded."""
    scores = scores.astype(np.float64, copy=True)
    scores[seen.nonzero()] = -np.inf
    top = np.argpartition(-scores, K, axis=1)[:, :K]
    order = np.take_along_axis(-scores, top, axis=1).argsort(axis=1, kind="stable")
    return np.take_along_axis(top, order, axis=1)


def _ndcg(top: np.ndarray, users: np.ndarray, relevant: sp.csr_matrix) -> np.ndarray:
    """Per-member NDCG@K (binary relevance) of the rows ``users`` against ``relevant``'s rows."""
    discounts = 1.0 / np.log2(np.arange(2, K + 2))
    out = np.zeros(users.size)
    for i, user in enumerate(users):
        wanted = set(relevant.indices[relevant.indptr[user]:relevant.indptr[user + 1]])
        gains = np.array([1.0 if g in wanted else 0.0 for g in top[i]])
        ideal = discounts[: min(len(wanted), K)].sum()
        out[i] = float(gains @ discounts) / ideal if ideal else 0.0
    return out


def _transitions(fit: pl.DataFrame, n_games: int) -> sp.csr_matrix:
    """Row-normalised counts of game i → game j, consecutive in a member's adding order."""
    ordered = fit.sort("row", "when", "col")
    rows, cols = ordered.get_column("row").to_numpy(), ordered.get_column("col").to_numpy()
    same = rows[1:] == rows[:-1]
    counts = sp.csr_matrix((np.ones(int(same.sum())), (cols[:-1][same], cols[1:][same])), shape=(n_games, n_games))
    totals = np.asarray(counts.sum(axis=1)).ravel()
    return sp.diags(1.0 / np.maximum(totals, 1.0)) @ counts


def _latest(fit: pl.DataFrame, n_users: int, n_games: int) -> sp.csr_matrix:
    """Each member's three latest games, weighted 1, ½, ¼."""
    ranked = fit.with_columns(
        pos=pl.struct(pl.col("when"), pl.col("col")).rank("ordinal", descending=True).over("row")
    ).filter(pl.col("pos") <= 3)
    return sp.csr_matrix((0.5 ** (ranked.get_column("pos").to_numpy() - 1.0),
                          (ranked.get_column("row").to_numpy(), ranked.get_column("col").to_numpy())),
                         shape=(n_users, n_games))


def variants(fit: pl.DataFrame, held: pl.DataFrame, n_users: int, n_games: int, cut_days: float, *,
             half_lives: tuple[float, ...] = HALF_LIVES, betas: tuple[float, ...] = BETAS) -> dict[str, np.ndarray]:
    """Every variant's per-member NDCG@K: fitted on ``fit`` (row, col, value, when: seconds), scored on ``held``
    (row, col). An endless half-life or a zero beta is EASE itself (what the test pins)."""
    from models.ease import EASE

    def matrix(values: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((values, (fit.get_column("row").to_numpy(), fit.get_column("col").to_numpy())),
                             shape=(n_users, n_games))

    plain = matrix(fit.get_column("value").to_numpy())
    relevant = sp.csr_matrix((np.ones(held.height), (held.get_column("row").to_numpy(), held.get_column("col").to_numpy())),
                             shape=(n_users, n_games))
    users = np.unique(held.get_column("row").to_numpy())
    base_scores = EASE().fit(plain).score(users)
    out = {"ease": _ndcg(_top(base_scores, plain[users]), users, relevant)}
    age = cut_days - fit.get_column("when").to_numpy() / 86_400.0
    for half_life in half_lives:
        weighted = matrix(fit.get_column("value").to_numpy() * 0.5 ** (np.maximum(age, 0.0) / half_life))
        scores = EASE().fit(weighted).score(users)
        out[f"recency_{half_life:g}d"] = _ndcg(_top(scores, plain[users]), users, relevant)
    following = (_latest(fit, n_users, n_games)[users] @ _transitions(fit, n_games)).toarray()
    scaled_base = base_scores / np.maximum(np.abs(base_scores).max(axis=1, keepdims=True), 1e-12)
    scaled_next = following / np.maximum(following.max(axis=1, keepdims=True), 1e-12)
    for beta in betas:
        out[f"transitions_{beta:g}"] = _ndcg(_top(scaled_base + beta * scaled_next, plain[users]), users, relevant)
    return out


def one_cut(frame: pl.DataFrame, quantile: float, **grid: tuple[float, ...]) -> dict[str, dict[str, np.ndarray]]:
    """Forward (TRAIN → what members added after the cut) and random (a 20 % holdout of TRAIN)."""
    from models.interactions import InteractionMatrix
    from models.split import forward_split, holdout_split
    from models.weighting import WEIGHTINGS

    train, test = forward_split(frame, quantile=quantile)
    full = InteractionMatrix.from_frame(train.drop("updated_at"), WEIGHTINGS["graded"])
    values = full.matrix.tocoo()
    shaped = pl.DataFrame({"row": values.row, "col": values.col, "value": values.data})
    stamped = train.select(
        row=pl.Series(full.user_rows(train.get_column("user_id"))),
        col=pl.Series(full.game_cols(train.get_column("game_id"))),
        when=pl.col("updated_at").dt.epoch("s").cast(pl.Float64),
        user_id="user_id", game_id="game_id",
    )
    fit = shaped.join(stamped, on=["row", "col"])
    cut_days = float(fit.get_column("when").to_numpy().max()) / 86_400.0
    n_users, n_games = full.shape
    held = test.select(row=pl.Series(full.user_rows(test.get_column("user_id"))),
                       col=pl.Series(full.game_cols(test.get_column("game_id")))).filter(pl.col("col") >= 0)
    forward = variants(fit, held, n_users, n_games, cut_days, **grid)
    kept, out = holdout_split(fit.select("user_id", "game_id"), fraction=0.2, seed=0)
    random_fit = fit.join(kept, on=["user_id", "game_id"], how="semi")
    random_held = fit.join(out, on=["user_id", "game_id"], how="semi").select("row", "col")
    return {"forward": forward, "random": variants(random_fit, random_held, n_users, n_games, cut_days, **grid)}


def main() -> None:
    """Every cut, then each variant against EASE, as one JSON object."""
    from scipy.stats import wilcoxon

    from models.interactions import normalise_interactions
    from models.movielens import ml100k

    raw = ml100k()
    frame = normalise_interactions(raw)  # keeps updated_at
    runs = [one_cut(frame, cut) for cut in CUTS]
    table: dict[str, Any] = {}
    for name in runs[0]["forward"]:
        row: dict[str, Any] = {}
        for view in ("forward", "random"):
            row[f"{view}_ndcg"] = round(float(np.mean([run[view][name].mean() for run in runs])), 4)
            if name != "ease":
                a = np.concatenate([run[view][name] for run in runs])
                b = np.concatenate([run[view]["ease"] for run in runs])
                row[f"{view}_gain"] = round(float(a.mean() / b.mean() - 1.0), 4)
                row[f"{view}_p"] = float(wilcoxon(a, b).pvalue) if np.any(a != b) else 1.0
        table[name] = row
    print(json.dumps({"dataset": "MovieLens-100k (recbole 1.2.1 wheel)", "cuts": list(CUTS),
                      "members_forward": int(sum(run["forward"]["ease"].size for run in runs)), "variants": table}))


if __name__ == "__main__":
    main()
