"""Matrix factorisation from implicit: ALS (weighted least squares) and BPR (pairwise ranking).

Both learn a vector per member and per game; a score is their dot product. They fit
with implicit's own threads, so BLAS is held to one thread meanwhile (see
``models.threads.single_threaded_blas``). Seeds go to implicit as ``random_state``.
"""

from __future__ import annotations

from typing import ClassVar, Self

import numpy as np
import scipy.sparse as sp
from implicit.cpu.als import AlternatingLeastSquares
from implicit.cpu.bpr import BayesianPersonalizedRanking

from models.base import LatentFactors, Recommender, hyperparameters
from models.fast.products import factor_scores
from models.sklearn_lazy import normalize
from models.threads import single_threaded_blas


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
        self.item_factors_ = np.asarray(model.item_factors)
        self.fold_in()  # the members' factors solved against the item factors: fold-in's one path
        return model

    def fold_in(self) -> None:
        """Each member of ``matrix_`` gets the factors that fit their row best against the
        fixed item factors (``solve_users``): the fit's members and fold-in alike."""
        self.user_factors_ = self.solve_users(self.matrix_)

    def solve_users(self, matrix: sp.csr_matrix) -> np.ndarray:
        """The members' factors of ``matrix``'s rows, float32 ``(rows, len(item factor))``."""
        raise NotImplementedError

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """Dot products of user and game factors, each member's row alone (``factor_scores``)."""
        if not hasattr(self, "_item_factors_t"):
            self._item_factors_t = np.ascontiguousarray(self.item_factors_.T, dtype=np.float32)
        users = np.ascontiguousarray(self.user_factors_[user_rows], dtype=np.float32)
        return factor_scores(users, self._item_factors_t)

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

    def solve_users(self, matrix: sp.csr_matrix) -> np.ndarray:
        """implicit's own least squares for a member (its ``recalculate_user``), solved exactly:
        a fresh solve, where implicit's fit ends on factors from before its last item sweep."""
        return solve_user_factors(matrix, self.item_factors_, regularization=float(self.regularization),
                                  alpha=float(self.alpha))

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

    FOLD_IN_PENALTY: ClassVar[float] = 1.0
    """The L2 penalty of a member's projection (not BPR's SGD ``regularization``: at 0.01 the
    projection fits noise, and the two-block test's own block is lost; 1 to 10 keep it)."""

    def solve_users(self, matrix: sp.csr_matrix) -> np.ndarray:
        """BPR learns no closed form for a member, so a member's factors are the least-squares
        projection of their row onto the item factors (confidence 1 on their games, 0 on the
        rest, the item biases fixed, penalty ``FOLD_IN_PENALTY``): the same step for the fit's
        members and for fold-in, so the night scores every member as fold-in would."""
        k = self.item_factors_.shape[1] - 1  # implicit's BPR: the last column is the item bias
        factors = solve_user_factors(matrix, self.item_factors_[:, :k], regularization=self.FOLD_IN_PENALTY,
                                     alpha=1.0, bias=self.item_factors_[:, k])
        return np.hstack([factors, np.ones((factors.shape[0], 1), dtype=np.float32)])

    learning_rate: float = 0.01
    regularization: float = 0.01
    iterations: int = 25


def solve_user_factors(
    matrix: sp.csr_matrix, item_factors: np.ndarray, *, regularization: float, alpha: float,
    bias: np.ndarray | None = None,
) -> np.ndarray:
    """Each row's factors ``x`` minimising ``Σ_i c_i (p_i − b_i − x·y_i)² + λ|x|²`` over every
    game (Hu, Koren & Volinsky 2008): ``p_i`` 1 on the row's games with confidence
    ``c_i = α·r_i``, 0 and confidence 1 elsewhere; ``b`` item biases (None: 0, implicit's ALS).

    ``(YᵀY + λI + Yᵀ(C−I)Y) x = Yᵀ C p − Yᵀ C b``, in float64, one member at a time: each
    row's factors depend on that row alone, so a member solved alone (fold-in) gets the
    same numbers as in the night's whole matrix. Float32 out.
    """
    y_all = np.asarray(item_factors, dtype=np.float64)
    k = y_all.shape[1]
    base = y_all.T @ y_all + regularization * np.eye(k)
    biases = None if bias is None else np.asarray(bias, dtype=np.float64)
    empty_rhs = np.zeros(k) if biases is None else -(y_all.T @ biases)
    empty = np.linalg.solve(base, empty_rhs)  # a row without games
    out = np.empty((matrix.shape[0], k), dtype=np.float32)
    indptr, indices, data = matrix.indptr, matrix.indices, matrix.data
    for row in range(matrix.shape[0]):
        start, stop = indptr[row], indptr[row + 1]
        if start == stop:
            out[row] = empty
            continue
        games = indices[start:stop]
        confidence = alpha * data[start:stop].astype(np.float64)
        y = y_all[games]
        system = base + (y * (confidence - 1.0)[:, None]).T @ y
        target = confidence if biases is None else confidence * (1.0 - biases[games]) + biases[games]
        rhs = y.T @ target + empty_rhs
        out[row] = np.linalg.solve(system, rhs)
    return out
