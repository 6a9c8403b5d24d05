"""Gradient boosting of CART trees (Friedman 2001) on the shared histogram engine.

Each iteration asks the :class:`~treeboost.losses.Loss` for the per-sample gradient
``g`` and hessian ``h`` of the current raw scores, grows one tree per output on the
binned data (binned once per ``fit``) from the statistics ``(w g, w h)`` with the
second-order gain ``G_L^2/(H_L+l) + G_R^2/(H_R+l) - G^2/(H+l)`` (or, with
``split_gain="gradient"``, a squared-error tree on the negative gradient), then asks the
loss for each leaf's value (the Newton step ``-G/(H+l)`` for squared error and log-loss,
medians and quantiles for the others), times ``learning_rate``.  Whatever differs between
losses (a parameter re-estimated every iteration, the leaf values, the initial score, the
name of the metric) is the loss's: the booster never asks which loss it holds.
"""
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..persistence import PersistenceMixin, register
from ..losses import (AbsoluteError, BinaryLogLoss, HuberLoss, MultinomialLogLoss,
                      QuantileLoss, SquaredError)
from ..losses.base import LeafSamples
from ..engine.binning import BinMapper, fit_transform_weighted
from ..trees.cart import resolve_max_features
from ..engine.criteria import NEWTON, SQUARED_ERROR
from ..trees.encoding import EncoderMixin, check_weights
from ..trees.targets import check_regression_target, encode_classification_target
from ..engine.grower import GrowerWorkspace, TreeGrower
from ..engine.tree import PackedTrees


def _per_output(raw):
    """The raw scores as a loss takes them: (n,) for one output, (n, K) for K."""
    return raw[:, 0] if raw.shape[1] == 1 else raw


class BaseGradientBoosting(PersistenceMixin, EncoderMixin, BaseEstimator):
    """Fitting loop shared by the classifier and the regressor."""

    _parameter_constraints = {
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "min_child_weight": [Interval(Real, 0.0, None, closed="left")],
        "l2_regularization": [Interval(Real, 0.0, None, closed="left")],
        "subsample": [Interval(Real, 0.0, 1.0, closed="right")],
        "max_features": [Interval(Integral, 1, None, closed="left"),
                         Interval(Real, 0.0, 1.0, closed="right"),
                         StrOptions({"sqrt", "log2"}), None],
        "max_bins": [Interval(Integral, 2, 255, closed="both")],
        "categorical_features": ["array-like", StrOptions({"auto"}), None],
        "split_gain": [StrOptions({"hessian", "gradient"})],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # -- fitting -------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the boosted trees.

        Parameters
        ----------
        X : array-like, DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
            NaN is a missing value; categorical columns and sparse X as in the CART
            estimators (:meth:`~treeboost.DecisionTreeClassifier.fit`).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Besides bad parameters and input: a regression target so large that its loss
            at the initial score overflows float64 (the squared error or Huber loss of a
            target near 1e300); absolute error and quantile loss take it.

        Warns
        -----
        RuntimeWarning
            When the training (or validation) loss of an iteration overflows, the fit
            diverged (a learning rate far above 1): boosting stops, that iteration is
            dropped and the model keeps the iterations before it (``n_estimators_`` says
            how many), whose predictions of the training data are finite.
        """
        self._validate_params()
        warm = self.warm_start and hasattr(self, "trees_")
        if warm and self.n_estimators < len(self.trees_):
            raise ValueError(f"n_estimators={self.n_estimators} must be at least the "
                             f"{len(self.trees_)} iterations already fitted with "
                             f"warm_start=True.")
        Xe = self._encode_X(X, reset=not warm, y=y, sample_weight=sample_weight)
        y = self._validate_target(y, Xe.shape[0], reset=not warm)
        # a regression target also bounds the weights: the sums of w * gradient must not
        # overflow (a classifier's y holds class indices)
        sw = check_weights(sample_weight, Xe,
                           None if isinstance(self, ClassifierMixin) else y)
        rng = check_random_state(self.random_state)
        loss = self._make_loss()
        n = Xe.shape[0]

        train, val = np.arange(n), None
        if self.early_stopping:
            stratify = y if isinstance(self, ClassifierMixin) else None
            try:
                train, val = train_test_split(np.arange(n), test_size=self.validation_fraction,
                                              stratify=stratify,
                                              random_state=rng.randint(2 ** 31 - 1))
            except ValueError:  # a class too rare to stratify
                train, val = train_test_split(np.arange(n), test_size=self.validation_fraction,
                                              random_state=rng.randint(2 ** 31 - 1))
            train.sort()
            val.sort()
        # without a validation split X is used as it is (no copy of a large X)
        Xtr, ytr, wtr = (Xe, y, sw) if val is None else (Xe[train], y[train], sw[train])
        if not warm:
            init = np.atleast_1d(np.asarray(loss.init_raw(ytr, wtr), dtype=np.float64))
            raw = np.tile(init, (ytr.shape[0], 1))
            # refused before any fitted attribute is set
            self._check_loss_is_finite(loss, ytr, raw, wtr)
            self.bin_mapper_ = BinMapper(self.max_bins, self._encoder.is_categorical_,
                                         random_state=rng.randint(2 ** 31 - 1))
            Xb = fit_transform_weighted(self.bin_mapper_, Xtr, wtr)
            self.trees_ = []
            self.train_score_ = []
            self.validation_score_ = []
            self._init_raw = init
        else:
            raw = self._raw_from_trees(Xtr, loss.n_outputs)
            self._check_loss_is_finite(loss, ytr, raw, wtr)
            self.train_score_ = list(self.train_score_)
            self.validation_score_ = list(self.validation_score_)
            Xb = self.bin_mapper_.transform(Xtr)
        K = loss.n_outputs
        val_raw = Xb_val = None
        if val is not None:
            Xb_val = self.bin_mapper_.transform(Xe[val])
            val_raw = self._raw_from_trees(Xe[val], K)

        lr = self.learning_rate
        newton = self.split_gain == "hessian"
        grower = TreeGrower(
            self.bin_mapper_, NEWTON if newton else SQUARED_ERROR, 2,
            max_depth=self.max_depth, min_samples_split=2 * self.min_samples_leaf,
            min_samples_leaf=self.min_samples_leaf,
            min_weight_leaf=self.min_child_weight if newton else 0.0,
            max_features=resolve_max_features(self.max_features, self.n_features_in_),
            max_leaf_nodes=self.max_leaf_nodes, l2_regularization=self.l2_regularization,
            parallel=True)
        mc = self.bin_mapper_.missing_values_code_
        positive_rows = np.flatnonzero(wtr > 0)
        n_sub = max(1, int(round(self.subsample * positive_rows.size)))
        stats = np.empty((Xtr.shape[0], 3))
        stats[:, 2] = wtr > 0
        workspace = GrowerWorkspace(min_rows=positive_rows.size)
        t0 = time.perf_counter()
        # a diverging fit overflows to inf / NaN in the scores and the loss; the loss of
        # every iteration is tested below instead of letting numpy warn along the way
        with np.errstate(over="ignore", invalid="ignore"):
            for it in range(len(self.trees_), self.n_estimators):
                loss.start_iteration(ytr, _per_output(raw), wtr)
                g, h = loss.gradient_hessian(ytr, _per_output(raw))
                g = g.reshape(-1, K)
                h = h.reshape(-1, K)
                rows = positive_rows
                if n_sub < positive_rows.size:
                    rows = np.sort(rng.choice(positive_rows, n_sub, replace=False))
                grower.random_state = rng.randint(2 ** 31 - 1)
                trees = []
                for k in range(K):
                    sq = None
                    if newton:
                        stats[:, 0] = wtr * g[:, k]
                        stats[:, 1] = wtr * h[:, k]
                    else:   # Friedman's original: least squares on the negative gradient
                        stats[:, 0] = wtr
                        stats[:, 1] = -wtr * g[:, k]
                        sq = wtr * g[:, k] ** 2
                    tree, leaf = grower.grow(Xb, stats, sq, rows, workspace)
                    # the second-order gain's node values already are the Newton step
                    samples = LeafSamples(leaf[rows], tree.node_count, rows, ytr, raw[:, k],
                                          wtr, g[:, k], h[:, k], self.l2_regularization,
                                          tree.value[:, 0] if newton else None)
                    tree.value = (lr * loss.leaf_values(samples))[:, None]
                    if rows.size < Xtr.shape[0]:
                        leaf = tree.apply_binned(Xb, mc)
                    raw[:, k] += tree.value[leaf, 0]
                    if val_raw is not None:
                        val_raw[:, k] += tree.value[tree.apply_binned(Xb_val, mc), 0]
                    trees.append(tree)
                train_score = loss(ytr, _per_output(raw), wtr)
                val_score = None if val_raw is None else \
                    loss(y[val], _per_output(val_raw), sw[val])
                if not np.isfinite(train_score) or not np.isfinite(
                        0.0 if val_score is None else val_score):
                    self._warn_diverged(it, "training" if not np.isfinite(train_score)
                                        else "validation")
                    break
                self.trees_.append(trees)
                self.train_score_.append(train_score)
                if val_score is not None:
                    self.validation_score_.append(val_score)
                if self.verbose and ((it + 1) % int(self.verbose) == 0
                                     or it + 1 == self.n_estimators):
                    self._report(it, loss, time.perf_counter() - t0)
                if val_raw is not None and self._should_stop():
                    break
        self.n_estimators_ = len(self.trees_)
        self.train_score_ = np.asarray(self.train_score_, dtype=np.float64)
        self.validation_score_ = np.asarray(self.validation_score_, dtype=np.float64)
        self._loss = loss
        self._packed = None
        self._packer()      # built now, so that predict never changes the estimator
        return self

    @staticmethod
    def _check_loss_is_finite(loss, y, raw, sample_weight):
        """Refuse a target whose loss at the start of the fit (``raw``: the initial score,
        or a warm start's current scores) overflows float64, the squared error of a target
        near 1e300: the training loss of every iteration would be infinite, and the
        gradient sums of the split search overflow with it."""
        with np.errstate(over="ignore", invalid="ignore"):
            value = loss(y, _per_output(raw), sample_weight)
        if not np.isfinite(value):
            raise ValueError(
                f"y is too large for loss={loss.name!r}: its loss at the start of the fit "
                f"overflows float64 (largest |y| = {float(np.max(np.abs(y))):.3g}). Rescale y "
                f"(divide it by a constant such as its largest absolute value).")

    def _warn_diverged(self, it, which):
        warnings.warn(
            f"Boosting diverged at iteration {it + 1}: the {which} loss overflows "
            f"(learning_rate={self.learning_rate!r} may be too large). "
            f"The fit stopped and keeps the {len(self.trees_)} iteration(s) before it.",
            RuntimeWarning, stacklevel=3)

    def _should_stop(self):
        k = self.n_iter_no_change
        scores = self.validation_score_
        if len(scores) <= k:
            return False
        reference = scores[-k - 1]
        return min(scores[-k:]) > reference - self.tol

    def _report(self, it, loss, elapsed):
        name = loss.metric_name
        line = f"[{it + 1}]\ttraining's {name}: {self.train_score_[-1]:.6g}"
        if len(self.validation_score_):
            line += f"\tvalid's {name}: {self.validation_score_[-1]:.6g}"
        print(line + f"\t({elapsed:.2f} s)", flush=True)

    # -- prediction --------------------------------------------------------------------------
    def _raw_from_trees(self, Xe, K):
        raw = np.tile(self._init_raw, (Xe.shape[0], 1)) if K > 1 or self._init_raw.size > 1 \
            else np.full((Xe.shape[0], 1), self._init_raw[0])
        if self.trees_:
            self._packer().predict(Xe, K, out=raw)
        return raw

    def _packer(self):
        flat = [t for trees in self.trees_ for t in trees]
        packed = getattr(self, "_packed", None)
        # keyed on the trees themselves, not their count: packed trees of another fit
        # (a refit or warm start with as many trees) are never reused
        if packed is None or len(packed[0]) != len(flat) \
                or any(a is not b for a, b in zip(packed[0], flat)):
            outputs = [k for trees in self.trees_ for k in range(len(trees))]
            # a fit that diverged at its first iteration keeps no tree: predict returns
            # the initial score without packed trees
            self._packed = (tuple(flat), PackedTrees(flat, outputs) if flat else None)
        return self._packed[1]

    def _raw_predict(self, X):
        check_is_fitted(self, "trees_")
        Xe = self._encode_X(X, reset=False)
        return self._raw_from_trees(Xe, self._loss.n_outputs)

    def _staged_raw_predict(self, X):
        check_is_fitted(self, "trees_")
        Xe = self._encode_X(X, reset=False)
        raw = np.tile(self._init_raw, (Xe.shape[0], 1))
        for trees in self.trees_:
            for k, tree in enumerate(trees):
                raw[:, k] += tree.predict(Xe)[:, 0]
            yield raw.copy()

    @property
    def init_score_(self):
        """The initial raw score ``F0``, one per output, shape (n_outputs,): the loss's
        best constant on the training rows (without the validation split of early
        stopping): the log-odds ``ln(sum w y / sum w (1 - y))`` for two classes, the log
        of each class's weight share for K, the weighted mean of ``y`` (squared error),
        its median (absolute error, Huber) or ``alpha``-quantile (quantile loss).  The raw score of a row is ``init_score_`` plus the leaf
        value of every tree it reaches (``decision_function`` for a classifier,
        ``predict`` for a regressor)."""
        check_is_fitted(self, "trees_")
        return self._init_raw.copy()

    def apply(self, X):
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
            for two classes and for regression, K for K classes).
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
    def feature_importances_(self):
        """Total second-order gain (or squared-error decrease) of each feature over all
        trees, normalised to sum to 1."""
        check_is_fitted(self, "trees_")
        total = np.zeros(self.n_features_in_)
        for trees in self.trees_:
            for tree in trees:
                total += tree.compute_feature_importances(normalize=False)
        s = total.sum()
        return total / s if s > 0 else total

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = ("classes_", "n_classes_", "bin_mapper_", "trees_", "_init_raw",
                           "_loss", "n_estimators_", "train_score_", "validation_score_")
    #: the packed trees of predict, rebuilt on demand
    _persist_transient = ("_packed",)

    def _validate_state(self, where="model", **context):
        """Check a loaded booster: its loss (the log-loss of its number of classes, or a
        regression loss), ``_init_raw`` (one finite score per output), ``trees_`` (one
        list of one tree per output per iteration, each on the booster's bins) whose
        leaf values, added to the initial score, stay finite, and the score arrays."""
        from ..persistence import check_array, check_classes, check_fitted, check_int, \
            validate_part
        from ..engine.tree import Tree
        from ..losses.base import Loss
        super()._validate_state(where, **context)
        classifier = isinstance(self, ClassifierMixin)
        required = ["n_features_in_", "_encoder", "bin_mapper_", "trees_", "_init_raw",
                    "_loss", "n_estimators_", "train_score_", "validation_score_"]
        if classifier:
            required += ["classes_", "n_classes_"]
        if not check_fitted(self, where, required):
            return
        n = self.n_features_in_
        flags = self._encoder.is_categorical_
        validate_part(self.bin_mapper_, f"{where}.bin_mapper_", expect=BinMapper,
                      n_features=n, categorical=flags)
        loss = self._loss
        if not isinstance(loss, Loss):
            raise ValueError(f"{where}._loss: not a loss.")
        validate_part(loss, f"{where}._loss")
        if classifier:
            n_classes = check_classes(self, where, at_least=2)
            want = BinaryLogLoss if n_classes == 2 else MultinomialLogLoss
            if type(loss) is not want or (n_classes > 2 and loss.n_classes != n_classes):
                raise ValueError(f"{where}._loss: {n_classes} classes need {want.__name__}"
                                 f"{'' if n_classes == 2 else f' of {n_classes} classes'}, "
                                 f"got {type(loss).__name__}.")
        elif loss.is_classification:
            raise ValueError(f"{where}._loss: a regressor needs a regression loss, got "
                             f"{type(loss).__name__}.")
        K = loss.n_outputs
        init = check_array(self._init_raw, f"{where}._init_raw", "float64", (K,), finite=True)
        trees = self.trees_
        if not isinstance(trees, list) or any(not isinstance(t, list) or len(t) != K
                                              for t in trees):
            raise ValueError(f"{where}.trees_: must be a list holding, per iteration, a list "
                             f"of {K} tree(s) (one per output).")
        bound = np.abs(init)
        for i, per_output in enumerate(trees):
            for k, tree in enumerate(per_output):
                validate_part(tree, f"{where}.trees_[{i}][{k}]", expect=Tree, n_features=n,
                              n_outputs=1, categorical=flags, bin_mapper=self.bin_mapper_)
                bound[k] += np.abs(tree.value).max()
        if not np.all(bound < 1e300):
            raise ValueError(f"{where}.trees_: the initial score and the leaf values sum to "
                             f"more than 1e300 (the raw scores would overflow).")
        n_iter = check_int(self.n_estimators_, f"{where}.n_estimators_")
        if n_iter != len(trees):
            raise ValueError(f"{where}.n_estimators_: must be the number of iterations in "
                             f"trees_ ({len(trees)}), got {n_iter}.")
        check_array(self.train_score_, f"{where}.train_score_", "float64", (len(trees),))
        val = check_array(self.validation_score_, f"{where}.validation_score_", "float64",
                          ndim=1)
        if val.size > len(trees):
            raise ValueError(f"{where}.validation_score_: more scores ({val.size}) than "
                             f"iterations ({len(trees)}).")


_COMMON_DOC = """
    learning_rate : float, default=0.1
        Shrinkage of every leaf value (> 0).
    n_estimators : int, default=100
        Number of boosting iterations (trees per output).
    max_depth : int or None, default=None
        Maximum depth of each tree (None: limited by ``max_leaf_nodes`` only).
    max_leaf_nodes : int or None, default=31
        Leaves per tree; trees grow best-first (leaf-wise, as LightGBM's ``num_leaves``).
    min_samples_leaf : int, default=20
        Minimum number of samples per leaf (LightGBM's ``min_data_in_leaf``).
    min_child_weight : float, default=1e-3
        Minimum hessian sum per leaf (``min_sum_hessian_in_leaf``).
    l2_regularization : float, default=0.0
        The ``lambda`` of the gain ``G^2/(H+lambda)`` and the leaf value ``-G/(H+lambda)``.
    subsample : float in (0, 1], default=1.0
        Fraction of rows drawn without replacement for each iteration (stochastic
        gradient boosting).
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features sampled at each node.
    max_bins : int, default=255
        Bins per numeric feature (X is binned once per ``fit``).
    categorical_features : None, "auto" or array-like, default=None
        As in :class:`~treeboost.DecisionTreeClassifier`.
    split_gain : {"hessian", "gradient"}, default="hessian"
        "hessian": second-order gain on ``(g, h)``; "gradient": each tree is a least-squares
        fit of the negative gradient (Friedman's original).  Leaf values come from the
        loss either way.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data and stop when the validation loss has
        not improved by ``tol`` for ``n_iter_no_change`` iterations (all fitted trees are
        kept).
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=10
    tol : float, default=1e-7
        The improvement of the validation loss that counts, in the loss's own units (an
        absolute tolerance, as scikit-learn's): for a target of a very small scale, lower
        it with the loss (to 0, say).
    warm_start : bool, default=False
        Keep the fitted trees and add iterations up to ``n_estimators``.
    random_state : int, RandomState instance or None, default=None
        Seeds subsampling, feature sampling and the validation split.
    verbose : int, default=0
        ``k > 0`` prints the training (and validation) loss every ``k`` iterations and at
        the last one, LightGBM-style (``[10]  training's binary_logloss: ...``).

    Attributes
    ----------
    trees_ : list of list of Tree
        ``trees_[i][k]``: the tree of iteration ``i`` for output ``k``.
    init_score_ : ndarray of shape (n_outputs,)
        The initial raw score ``F0`` every row starts from (read-only).
    n_estimators_ : int
        Iterations fitted: fewer than ``n_estimators`` after early stopping or a fit that
        diverged.
    train_score_, validation_score_ : ndarray
        Loss after each iteration on the training data (and the validation data).
    feature_importances_ : ndarray of shape (n_features,)
    bin_mapper_ : BinMapper
"""


class GradientBoostingRegressor(RegressorMixin, BaseGradientBoosting):
    __doc__ = """Gradient-boosted regression trees.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "huber", "quantile"}, default="squared_error"
        See :mod:`treeboost.losses` for the gradient, hessian, initial score and leaf value
        of each.
    alpha : float in (0, 1), default=0.9
        Quantile of ``loss="quantile"``; for ``"huber"``, the quantile of the absolute
        residuals that sets ``delta``.""" + _COMMON_DOC

    _parameter_constraints = {
        **BaseGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"squared_error", "absolute_error", "huber", "quantile"})],
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],
    }

    def __init__(self, *, loss="squared_error", learning_rate=0.1, n_estimators=100,
                 max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, min_child_weight=1e-3,
                 l2_regularization=0.0, subsample=1.0, max_features=None, max_bins=255,
                 categorical_features=None, split_gain="hessian", alpha=0.9,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 tol=1e-7, warm_start=False, random_state=None, verbose=0):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.subsample = subsample
        self.max_features = max_features
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.split_gain = split_gain
        self.alpha = alpha
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def _make_loss(self):
        return {"squared_error": SquaredError, "absolute_error": AbsoluteError,
                "huber": lambda: HuberLoss(self.alpha),
                "quantile": lambda: QuantileLoss(self.alpha)}[self.loss]()

    def _validate_target(self, y, n_samples, reset):
        return check_regression_target(y, n_samples)

    def predict(self, X):
        """Sum of the initial score and every tree's leaf value."""
        return self._raw_predict(X)[:, 0]

    def staged_predict(self, X):
        """Predictions after each iteration (a generator)."""
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0]


class GradientBoostingClassifier(ClassifierMixin, BaseGradientBoosting):
    __doc__ = """Gradient-boosted classification trees (log-loss).

    Two classes: one tree per iteration on the log-odds, ``p = expit(F)``.  K > 2 classes:
    K trees per iteration, ``p = softmax(F)``.

    Parameters
    ----------
    loss : {"log_loss"}, default="log_loss"
        A regression loss here is refused.""" + _COMMON_DOC

    _parameter_constraints = {
        **BaseGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"log_loss"})],
    }

    def __init__(self, *, loss="log_loss", learning_rate=0.1, n_estimators=100, max_depth=None,
                 max_leaf_nodes=31, min_samples_leaf=20, min_child_weight=1e-3,
                 l2_regularization=0.0, subsample=1.0, max_features=None, max_bins=255,
                 categorical_features=None, split_gain="hessian", early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, tol=1e-7, warm_start=False,
                 random_state=None, verbose=0):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.subsample = subsample
        self.max_features = max_features
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.split_gain = split_gain
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def _make_loss(self):
        if self.n_classes_ == 2:
            return BinaryLogLoss()
        return MultinomialLogLoss(self.n_classes_)

    def _validate_target(self, y, n_samples, reset):
        classes, y_enc = encode_classification_target(y, n_samples)
        if classes.shape[0] < 2:
            raise ValueError(f"log_loss needs at least 2 classes in y; got only one class: "
                             f"{classes.tolist()!r}.")
        if reset:
            self.classes_ = classes
            self.n_classes_ = classes.shape[0]
        elif not np.array_equal(classes, self.classes_):
            raise ValueError("warm_start: y has other classes than the first fit.")
        return y_enc

    def decision_function(self, X):
        """Raw scores: the log-odds (n_samples,) for two classes, else (n_samples, K)."""
        raw = self._raw_predict(X)
        return raw[:, 0] if self.n_classes_ == 2 else raw

    def staged_decision_function(self, X):
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0] if self.n_classes_ == 2 else raw

    def _proba(self, raw):
        return self._loss.proba(_per_output(raw))

    def predict_proba(self, X):
        """Class probabilities ``expit(F)`` or ``softmax(F)``."""
        return self._proba(self._raw_predict(X))

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X):
        for raw in self._staged_raw_predict(X):
            yield self._proba(raw)

    def staged_predict(self, X):
        for raw in self._staged_raw_predict(X):
            yield self.classes_[np.argmax(self._proba(raw), axis=1)]


register(GradientBoostingClassifier, GradientBoostingRegressor, AbsoluteError, BinaryLogLoss,
         HuberLoss, MultinomialLogLoss, QuantileLoss, SquaredError)
