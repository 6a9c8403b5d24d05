"""The named records of one boosting fit: the plan read from an estimator's
hyperparameters, the checked inputs, the training and validation rows, the state that
changes between iterations, what every iteration reads and one iteration's outcome."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ._output_lanes import OutputLanes

if TYPE_CHECKING:
    from .._typing import MaxFeatures


def _per_output(raw):
    """The raw scores as a loss takes them: (n,) for one output, (n, K) for K."""
    return raw[:, 0] if raw.shape[1] == 1 else raw


def _masked_loss(loss, y, raw, sample_weight, mask=None):
    """The weighted mean loss of the rows of ``mask`` (all rows when None); NaN when
    they hold no weight."""
    if mask is None:
        return loss(y, _per_output(raw), sample_weight)
    if not sample_weight[mask].sum() > 0:
        return np.nan
    return loss(y[mask], _per_output(raw[mask]), sample_weight[mask])


@dataclass(frozen=True)
class ScoredRows:
    """Rows that early stopping scores: as given (``X``; None when nothing reads them),
    their encoded targets, weights and current raw scores (updated in place)."""

    X: object
    y: np.ndarray
    sample_weight: np.ndarray
    raw: np.ndarray


@dataclass(frozen=True)
class ScoringData:
    """The data of one fit that early-stopping scores read: whether early stopping is
    on and has validation rows of its own, the loss, the training rows and the
    validation rows (:class:`ScoredRows`; None without)."""

    early: bool
    has_validation: bool
    loss: object
    train: ScoredRows
    val: ScoredRows | None
    # whether the raw scores start from per-row offsets (``fit(init_score=...)``): a
    # scorer that predicts the rows as given would miss them
    has_offset: bool = False

    def rows(self, validation):
        """The validation rows when ``validation``, else the training rows."""
        return self.val if validation else self.train


@dataclass(frozen=True)
class BoostingPlan:
    """What one fit reads from an estimator's hyperparameters, in the engine's terms, so
    that scikit-learn's ``GradientBoosting*`` and ``HistGradientBoosting*`` (other names,
    other defaults) share one boosting loop.

    ``min_weight_fraction_leaf`` is a fraction of the training rows' total weight (trees
    on the negative gradient); ``early_stopping`` says, for a number of rows, whether a
    validation split is held out; ``stopping_rule`` (an :mod:`.early_stopping` rule)
    says from the recorded scores whether the fit stops.
    """

    n_iter: int
    max_depth: int | None
    max_leaf_nodes: int | None
    min_samples_split: int | float
    min_samples_leaf: int | float
    min_weight_fraction_leaf: float
    min_impurity_decrease: float
    min_child_weight: float
    l2_regularization: float
    max_features: MaxFeatures
    subsample: float
    split_gain: str
    init: object
    early_stopping: object
    validation_fraction: float
    stopping_rule: object
    # the L1 penalty ``alpha`` of the second-order gain and leaf values
    l1_regularization: float = 0.0
    # the fraction of the features each tree draws (LightGBM's ``feature_fraction``)
    colsample_bytree: float = 1.0


@dataclass(frozen=True)
class FitInputs:
    """The training data of one fit, checked: ``X`` as given, encoded (``Xe``), the
    encoded target, the weights (times the class weights), whether ``sample_weight``
    was given, whether the fit is a classifier's and a warm start, and the rows'
    offsets (``init_score``, shape (n_samples, n_outputs); None without)."""

    X: object
    Xe: object
    y: np.ndarray
    sample_weight: np.ndarray
    weighted: bool
    classifier: bool
    warm: bool
    offset: object = None


@dataclass(frozen=True)
class TrainingRows:
    """The rows the trees are fitted on: as given (``X``, for an initial estimator or a
    scorer), encoded (``Xe``), their targets and float64 weights; ``val`` the indices
    held out by the early-stopping split (None without one); whether early stopping is
    on, on external validation data, whether the rows as given are kept, and the
    training rows' offsets (None without)."""

    X: object
    Xe: object
    y: np.ndarray
    sample_weight: np.ndarray
    val: object
    early: bool
    external: bool
    keep_X: bool
    offset: object = None


@dataclass
class BoostingState:
    """What changes from one iteration to the next: the training rows' raw scores
    (updated in place), the gradients computed with the last loss (None when not),
    the binned training rows and the out-of-bag lists."""

    raw: np.ndarray
    carried: object
    Xb: np.ndarray
    oob_scores: list
    oob_improvement: list


@dataclass(frozen=True)
class ValidationRows:
    """Early stopping's rows: as given (None when nothing reads them), their targets,
    weights, bins and raw scores (updated in place)."""

    X: object
    y: np.ndarray
    sample_weight: np.ndarray
    Xb: np.ndarray
    raw: np.ndarray


@dataclass(frozen=True)
class StageSetup:
    """What every iteration reads: the grower, whether it grows on the second-order
    gain, the monotonic constraints, the bins' missing-value code, the rows of positive
    weight, the subsample's stream, size and mask, the statistics' buffer and the
    grower's workspace; with ``colsample_bytree``, the features each tree draws and
    their stream."""

    grower: object
    newton: bool
    monotonic: object
    missing_code: int
    positive_rows: np.ndarray
    subsampled: bool
    stage_rng: object
    n_inbag: int
    bag: np.ndarray
    stats: np.ndarray
    workspace: object
    # the threads that grow an iteration's trees side by side (:mod:`._output_lanes`)
    lanes: OutputLanes
    # the evaluation sets, metrics and callbacks (:mod:`.evaluation`), or None
    evaluation: object = None
    # colsample_bytree: how many features each tree draws (0: every feature, no draw)
    # and the stream they are drawn from
    n_tree_features: int = 0
    feature_rng: object = None


class Stage(NamedTuple):
    """One iteration's outcome: its trees (one per output), training and validation
    losses, the in-bag mask and the out-of-bag loss before it (None without
    subsampling)."""

    trees: list
    train_score: float
    val_score: object
    inbag: object
    oob_before: object
