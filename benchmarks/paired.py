"""The paired per-user test the quality benchmarks share (``quality_real``, ``quality_forward``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl


def paired(a: pl.DataFrame, b: pl.DataFrame) -> dict[str, Any]:
    """Wilcoxon signed-rank of per-user NDCG ``a`` vs ``b`` (same users), two-sided."""
    from scipy.stats import wilcoxon

    joined = a.join(b, on="user_id", suffix="_b").sort("user_id")
    x, y = joined.get_column("ndcg").to_numpy(), joined.get_column("ndcg_b").to_numpy()
    differs = np.any(x != y)
    p_value = float(wilcoxon(x, y, zero_method="wilcox").pvalue) if differs else 1.0
    return {
        "users": int(x.size),
        "mean_a": round(float(x.mean()), 4),
        "mean_b": round(float(y.mean()), 4),
        "gain": round(float(x.mean() / max(y.mean(), 1e-12) - 1.0), 4),
        "wins": int((x > y).sum()),
        "losses": int((x < y).sum()),
        "p_wilcoxon": p_value,
    }
