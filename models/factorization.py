"""Matrix factorisation from implicit: ALS (weighted least squares) and BPR (pairwise ranking).

Both learn a vector per member and per game; a score is their dot product. They fit
with implicit's own threads, so BLAS is held to one thread meanwhile (see
``models.base.single_threaded_blas``). Seeds go to implicit as ``random_state``.
"""

from __future__ import annotations

from typing import ClassVar, Self

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize
from implicit.cpu.als import AlternatingLeastSquares
from implicit.cpu.bpr import BayesianPersonalizedRanking

from models.base import LatentFactors, Recommender, hyperparameters, single_threaded_blas


@hyperparameters
class _Factorization(Recommender):
    """Fitting, scoring and item similarity shared by the factor models.

    A subclass only says which implicit class it wraps and on how many threads, as class
    keywords (``class ALS(_Factorization, implicit=AlternatingLeastSquares, threads=0)``):
    the copy to float32, the one-thread BLAS and reading the factors back are the same for
    both, so they cannot drift apart. The hyperparameters are implicit's own, under
    implicit's names, and go to it whole (``get_params()``): a field added here cannot be
    forgotten on the way. The two both models share (vector length, seed) are declared
    here once.
    """

    implicit: ClassVar[type[AlternatingLeastSquares | BayesianPersonalizedRanking]]
    threads: ClassVar[int]
    """implicit's ``num_threads``: 0 is every core."""

    factors: int = 64
    random_state: int | None = 0

    def __init_subclass__(cls, *, implicit: type, threads: int, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.implicit, cls.threads = implicit, threads

    def _implicit_model(self) -> AlternatingLeastSquares | BayesianPersonalizedRanking:
        """implicit's model with every hyperparameter, on the subclass's threads."""
        return self.implicit(**self.get_params(), num_threads=self.threads)

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Fit the implicit model; only its factors are kept."""
        self._fit_factors(matrix)
        return self

    def _fit_factors(self, matrix: sp.csr_matrix) -> AlternatingLeastSquares | BayesianPersonalizedRanking:
        """Fit ``_implicit_model()`` on ``matrix`` and keep its factors; returns the fitted model."""
        self.matrix_ = sp.csr_matrix(matrix, dtype=np.float32)
        with single_threaded_blas():
            model = self._implicit_model()
            model.fit(self.matrix_, show_progress=False)
        self.user_factors_ = np.asarray(model.user_factors)
        self.item_factors_ = np.asarray(model.item_factors)
        return model

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """Dot products of user and game factors."""
        return np.asarray(self.user_factors_[user_rows] @ self.item_factors_.T, dtype=np.float32)

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """Cosine similarity of game factors (implicit's ``similar_items`` does the same)."""
        unit = normalize(self.item_factors_)  # a zero vector stays zero: similar to nothing
        return unit[item_idx] @ unit.T


@hyperparameters
class ALS(_Factorization, implicit=AlternatingLeastSquares, threads=0):
    """Implicit-feedback ALS (Hu, Koren & Volinsky 2008) with the conjugate-gradient solver.

    ``alpha`` scales confidences (implicit uses ``C = 1 + alpha * X``), ``regularization``
    is the L2 penalty, ``factors`` the vector length, ``iterations`` the sweeps. Its
    sweeps over users and games run on every core.
    """

    name = "als"

    regularization: float = 1.0
    alpha: float = 4.0
    iterations: int = 15

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Fit, keeping implicit's model too: ``explain`` asks it."""
        self.model_ = self._fit_factors(matrix)
        return self

    def latent_factors(self) -> LatentFactors:
        """The item factors, the penalty and the confidence scale of implicit's explanation."""
        return LatentFactors(self.item_factors_, float(self.regularization), float(self.alpha))

    def explain(self, user_row: int, item_idx: int, n: int = 3) -> list[tuple[int, float]]:
        """implicit's ALS explanation: each of the user's games' share of the score."""
        _, contributions, _ = self.model_.explain(user_row, self.matrix_, item_idx, N=n)
        return [(int(game), float(value)) for game, value in contributions if value > 0]


@hyperparameters
class BPR(_Factorization, implicit=BayesianPersonalizedRanking, threads=1):
    """Bayesian Personalized Ranking (Rendle et al. 2009), SGD on sampled pairs.

    Few epochs on purpose: on site-sized data implicit's BPR overfits quickly (validation
    NDCG falls well before 100 epochs), so ``iterations`` is tuned among small values.

    Fitted on one thread: implicit's BPR updates shared factors from several threads
    without locks, which makes multi-threaded results differ from run to run.
    """

    name = "bpr"

    learning_rate: float = 0.01
    regularization: float = 0.01
    iterations: int = 25
