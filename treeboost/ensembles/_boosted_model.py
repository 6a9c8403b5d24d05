"""A fitted booster: raw scores from its trees, the leaves rows reach, the feature
importances, its trees as scikit-learn estimators, and the state a model file holds
(checked on load).  :class:`~treeboost.ensembles._boosting.BaseGradientBoosting` adds the
fitting loop."""

from __future__ import annotations

from itertools import chain
from operator import is_
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..engine import (
    CoreShare,
    BinMapper,
    PackedTrees,
    Tree,
)
from ..persistence import check_classes, check_fitted, validate_part
from ..persistence._spec import array, check_state, integer
from ..losses import (
    BinaryLogLoss,
    ExponentialLoss,
    MultinomialLogLoss,
)
from ..losses.base import Loss
from ..losses.custom import is_builtin
from ..trees.cart import DecisionTreeRegressor
from ._gb_init import check_init_estimator
from .._input.fast_path import quick_check_is_fitted

if TYPE_CHECKING:
    from typing import Any

    from sklearn.base import BaseEstimator

    from .._input.estimator_input import EncoderMixin
    from .._typing import (
        Float64Array,
        MatrixLike,
        NDArray,
    )
    from ..persistence import PersistenceMixin
    from ._boosting_records import BoostingPlan

    class _ModelBase(PersistenceMixin, EncoderMixin, BaseEstimator):
        """To the type checker, the mixin sits on the bases of the booster it is mixed
        into (``BaseGradientBoosting``, which cannot be its base: it derives from it),
        where its ``super()`` calls go."""

else:
    _ModelBase = object


#: the state every fitted booster has (a classifier also its classes)
_FITTED_STATE = (
    "bin_mapper_",
    "trees_",
    "_init_raw",
    "_loss",
    "n_estimators_",
    "train_score_",
    "validation_score_",
)


class BoostedModel(_ModelBase):
    """Prediction, introspection and the saved state of a fitted booster (a mixin of
    :class:`~treeboost.ensembles._boosting.BaseGradientBoosting`)."""

    if TYPE_CHECKING:
        # what the booster's fit sets and its subclasses define, read here
        trees_: list[list[Tree]]
        _loss: Loss
        _init_raw: Float64Array
        bin_mapper_: BinMapper
        n_classes_: int
        max_bins: int
        categorical_features: Any
        #: the trees ``_packer`` packed, and their packing (None without trees)
        _packed: tuple[tuple[Tree, ...], PackedTrees | None] | None

        def _plan(self) -> BoostingPlan: ...

        def _initial_raw(self, X: Any, n_samples: int, loss: Loss) -> Float64Array: ...

        def _check_scores(self, where: str, checked: dict[str, Any], n_iter: int) -> None: ...

    # -- prediction --------------------------------------------------------------------------
    def _raw_from_trees(self, Xe, K, X, loss):
        """Raw scores of the encoded ``Xe`` (``X`` as given, for an initial estimator)."""
        raw = self._initial_raw(X, Xe.shape[0], loss)
        if self.trees_:
            packer = self._packer()
            # on the threads its rows x trees feed and other busy processes leave free
            with CoreShare.for_prediction(Xe.shape[0] * packer.roots.shape[0]):
                packer.predict(Xe, K, out=raw)
        return raw

    def _packer(self):
        flat = list(chain.from_iterable(self.trees_))
        packed = getattr(self, "_packed", None)
        # keyed on the trees themselves, not their count: packed trees of another fit
        # (a refit or warm start with as many trees) are never reused
        if packed is None or len(packed[0]) != len(flat) or not all(map(is_, packed[0], flat)):
            outputs = [k for trees in self.trees_ for k in range(len(trees))]
            # a fit that diverged at its first iteration keeps no tree: predict returns
            # the initial score without packed trees
            packed = self._packed = (tuple(flat), PackedTrees(flat, outputs) if flat else None)
        return packed[1]

    def _raw_predict(self, X, num_iteration=None):
        quick_check_is_fitted(self, "trees_")
        n_iter = self._iterations_used(num_iteration)
        Xe = self._encode_X(X, reset=False)
        if n_iter == len(self.trees_):
            return self._raw_from_trees(Xe, self._loss.n_outputs, X, self._loss)
        raw = self._initial_raw(X, Xe.shape[0], self._loss)
        kept = self.trees_[:n_iter]
        flat = [t for trees in kept for t in trees]
        if flat:
            outputs = [k for trees in kept for k in range(len(trees))]
            PackedTrees(flat, outputs).predict(Xe, self._loss.n_outputs, out=raw)
        return raw

    def _iterations_used(self, num_iteration):
        """The iterations a prediction adds up: every one (None), the best
        (``"best"``: ``best_iteration_``) or the first ``num_iteration``."""
        n = len(self.trees_)
        if num_iteration is None:
            return n
        if isinstance(num_iteration, str) and num_iteration == "best":
            best = getattr(self, "best_iteration_", None)
            if best is None:
                raise ValueError(
                    "num_iteration='best' needs best_iteration_: fit with eval_set first."
                )
            return int(best)
        if (
            isinstance(num_iteration, (bool, np.bool_))
            or not isinstance(num_iteration, (int, np.integer))
            or not 0 <= num_iteration <= n
        ):
            raise ValueError(
                f"num_iteration must be None, 'best' or an integer in [0, {n}], "
                f"got {num_iteration!r}."
            )
        return int(num_iteration)

    def _staged_raw_predict(self, X):
        check_is_fitted(self, "trees_")
        Xe = self._encode_X(X, reset=False)
        raw = self._initial_raw(X, Xe.shape[0], self._loss)
        for trees in self.trees_:
            for k, tree in enumerate(trees):
                raw[:, k] += tree.predict(Xe)[:, 0]
            yield raw.copy()

    @property
    def init_score_(self) -> Float64Array:
        """The initial raw score ``F0``, one per output, shape (n_outputs,): the loss's
        best constant on the training rows (without the validation split of early
        stopping): the log-odds ``ln(sum w y / sum w (1 - y))`` for two classes, the log
        of each class's weight share for K, the weighted mean of ``y`` (squared error),
        its median (absolute error, Huber) or ``alpha``-quantile (quantile loss); 0 with
        ``init="zero"`` or an initial estimator.  The raw score of a row is
        ``init_score_`` (plus the initial estimator's raw score) plus the leaf value of
        every tree it reaches (``decision_function`` for a classifier, ``predict`` for a
        regressor)."""
        check_is_fitted(self, "trees_")
        return self._init_raw.copy()

    def apply(self, X: MatrixLike) -> NDArray[np.int64]:
        """The leaf each row reaches in each tree, as scikit-learn's gradient boosting
        gives it.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        leaves : ndarray of int64, shape (n_samples, n_estimators_, n_outputs)
            ``leaves[i, m, k]``: the node id (a row of ``trees_[m][k]``'s arrays) of the
            leaf row ``i`` reaches in iteration ``m``'s tree of output ``k`` (one output
            for two classes, K for K classes); a regressor's, as scikit-learn's, of shape
            (n_samples, n_estimators_).
        """
        check_is_fitted(self, "trees_")
        Xe = self._encode_X(X, reset=False)
        K = self._init_raw.shape[0]
        out = np.empty((Xe.shape[0], len(self.trees_), K), np.int64)
        for m, trees in enumerate(self.trees_):
            for k, tree in enumerate(trees):
                out[:, m, k] = tree.apply(Xe)
        return out

    @property
    def feature_importances_(self) -> Float64Array:
        """Total second-order gain (or squared-error decrease) of each feature over all
        trees, normalised to sum to 1."""
        check_is_fitted(self, "trees_")
        total = np.zeros(self.n_features_in_)
        for trees in self.trees_:
            for tree in trees:
                total += tree.compute_feature_importances(normalize=False)
        s = total.sum()
        return total / s if s > 0 else total

    @property
    def estimators_(self) -> NDArray[np.object_]:
        """ndarray of :class:`~treeboost.DecisionTreeRegressor` of shape
        (n_estimators_, n_outputs): ``estimators_[i, k]`` predicts the leaf values of
        ``trees_[i][k]``, the engine tree it shares (built on first access, not by
        ``fit``).  Unlike scikit-learn's, its leaf values hold the learning rate already:
        the raw score is the initial score plus the sum of their predictions; and its
        parameters are the estimator's current ones (after a warm start with other
        parameters, also those of the earlier iterations)."""
        check_is_fitted(self, "trees_")
        cached = getattr(self, "_estimators", None)
        flat = [t for trees in self.trees_ for t in trees]
        if (
            cached is None
            or cached.size != len(flat)
            or any(m.tree_ is not t for m, t in zip(cached.ravel(), flat))
        ):
            K = self._init_raw.shape[0]
            cached = np.empty((len(self.trees_), K), dtype=object)
            for i, trees in enumerate(self.trees_):
                for k, tree in enumerate(trees):
                    cached[i, k] = self._member(tree)
            self._estimators = cached
        return cached

    def _member(self, tree):
        """A fitted DecisionTreeRegressor around the engine tree ``tree``."""
        plan = self._plan()
        member = DecisionTreeRegressor(
            max_depth=plan.max_depth,
            max_leaf_nodes=plan.max_leaf_nodes,
            min_samples_leaf=plan.min_samples_leaf,
            min_weight_fraction_leaf=plan.min_weight_fraction_leaf,
            min_impurity_decrease=plan.min_impurity_decrease,
            max_features=plan.max_features,
            max_bins=self.max_bins,
            categorical_features=self.categorical_features,
        )
        for name in (
            "n_features_in_",
            "feature_names_in_",
            "_encoder",
            "bin_mapper_",
            "max_features_",
        ):
            if hasattr(self, name):
                setattr(member, name, getattr(self, name))
        member.tree_ = tree
        return member

    def __len__(self) -> int:
        """Number of fitted iterations."""
        check_is_fitted(self, "trees_")
        return len(self.trees_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes: tuple[str, ...] = (
        "classes_",
        "n_classes_",
        *_FITTED_STATE,
        "init_",
        "max_features_",
        "oob_scores_",
        "oob_improvement_",
        "oob_score_",
    )
    #: the packed trees of predict and the members of ``estimators_``, rebuilt on demand
    _persist_transient: tuple[str, ...] = ("_packed", "_estimators")
    #: the arrays and numbers of a loaded booster, by :func:`check_state`: ``n_outputs``
    #: is its loss's, ``n_iter`` the iterations of ``trees_``
    _state_spec = {
        "_init_raw": array("float64", ("n_outputs",), finite=True),
        "n_estimators_": integer(),
        "train_score_": array("float64", ("n_iter",)),
        "validation_score_": array("float64", ndim=1),
        "oob_scores_": array("float64", ("n_iter",), optional=True),
        "oob_improvement_": array("float64", ("n_iter",), optional=True),
    }

    def _validate_state(self, where="model", **context):
        """Check a loaded booster: its loss (the log-loss of its number of classes, or a
        regression loss), ``trees_`` (one list of one tree per output per iteration, each
        on the booster's bins) whose leaf values, added to the initial score, stay finite,
        ``_state_spec`` and what it cannot say (``n_estimators_`` the iterations, no more
        validation scores than iterations, ``init_``)."""
        super()._validate_state(where, **context)
        classifier = isinstance(self, ClassifierMixin)
        required = ["n_features_in_", "_encoder", *_FITTED_STATE]
        if classifier:
            required += ["classes_", "n_classes_"]
        if not check_fitted(self, where, required):
            return
        n = self.n_features_in_
        flags = self._encoder.is_categorical_
        validate_part(
            self.bin_mapper_,
            f"{where}.bin_mapper_",
            expect=BinMapper,
            n_features=n,
            categorical=flags,
        )
        loss = self._loss
        if not isinstance(loss, Loss):
            raise ValueError(f"{where}._loss: not a loss.")
        validate_part(loss, f"{where}._loss")
        if classifier:
            n_classes = check_classes(self, where, at_least=2)
            want = (BinaryLogLoss, ExponentialLoss) if n_classes == 2 else (MultinomialLogLoss,)
            custom = not is_builtin(loss)
            if custom and (loss.n_outputs != (1 if n_classes == 2 else n_classes)):
                raise ValueError(
                    f"{where}._loss: {n_classes} classes need "
                    f"{1 if n_classes == 2 else n_classes} output(s), "
                    f"got {loss.n_outputs}."
                )
            if (
                not custom
                and type(loss) not in want
                or (isinstance(loss, MultinomialLogLoss) and loss.n_classes != n_classes)
            ):
                names = " or ".join(w.__name__ for w in want)
                raise ValueError(
                    f"{where}._loss: {n_classes} classes need {names}"
                    f"{'' if n_classes == 2 else f' of {n_classes} classes'}, "
                    f"got {type(loss).__name__}."
                )
        elif loss.is_classification:
            raise ValueError(
                f"{where}._loss: a regressor needs a regression loss, got {type(loss).__name__}."
            )
        K = loss.n_outputs
        trees = self.trees_
        if not isinstance(trees, list) or any(
            not isinstance(t, list) or len(t) != K for t in trees
        ):
            raise ValueError(
                f"{where}.trees_: must be a list holding, per iteration, a list "
                f"of {K} tree(s) (one per output)."
            )
        checked = check_state(self, where, self._state_spec, {"n_outputs": K, "n_iter": len(trees)})
        bound = np.abs(checked["_init_raw"])
        for i, per_output in enumerate(trees):
            for k, tree in enumerate(per_output):
                validate_part(
                    tree,
                    f"{where}.trees_[{i}][{k}]",
                    expect=Tree,
                    n_features=n,
                    n_outputs=1,
                    categorical=flags,
                    bin_mapper=self.bin_mapper_,
                )
                bound[k] += np.abs(tree.value).max()
        if not np.all(bound < 1e300):
            raise ValueError(
                f"{where}.trees_: the initial score and the leaf values sum to "
                f"more than 1e300 (the raw scores would overflow)."
            )
        n_iter = checked["n_estimators_"]
        if n_iter != len(trees):
            raise ValueError(
                f"{where}.n_estimators_: must be the number of iterations in "
                f"trees_ ({len(trees)}), got {n_iter}."
            )
        self._check_scores(where, checked, len(trees))
        check_init_estimator(
            getattr(self, "init_", None),
            f"{where}.init_",
            n,
            self.n_classes_ if classifier else None,
        )
