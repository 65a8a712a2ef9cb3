"""scikit-learn's pieces the models use, imported on first use.

Why: ``import sklearn`` costs ~1.1 s of CPU (it imports pandas, scipy.stats and joblib), and
every process that loads the Dagster definitions imported it through the models: the nightly
worker, each code server of ``bodoge serve``, each stage of the scale benchmark, nights
that fail before they fit anything. Only the steps that fit or tune a model need it; they
import it here, once, when they first call. The functions are scikit-learn's own, so every
figure and list is the same.
"""

from __future__ import annotations

from typing import Any


def normalize(matrix: Any, **kwargs: Any) -> Any:
    """``sklearn.preprocessing.normalize`` (rows to unit L2 norm by default; a zero row stays zero)."""
    from sklearn.preprocessing import normalize as sk_normalize

    return sk_normalize(matrix, **kwargs)


def tfidf_vectorizer(**kwargs: Any) -> Any:
    """A ``sklearn.feature_extraction.text.TfidfVectorizer`` with these arguments."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(**kwargs)


def parameter_grid(grid: Any) -> Any:
    """``sklearn.model_selection.ParameterGrid`` over ``grid``."""
    from sklearn.model_selection import ParameterGrid

    return ParameterGrid(grid)


def parameter_sampler(grid: Any, **kwargs: Any) -> Any:
    """``sklearn.model_selection.ParameterSampler`` over ``grid``."""
    from sklearn.model_selection import ParameterSampler

    return ParameterSampler(grid, **kwargs)
