"""What every tree ensemble shares: input handling, binning once, per-tree seeds, the
target's encoding and the members grown on the shared bins; the one ``fit`` of the
ensembles whose members are fitted in parallel (forests and bagging)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, clone, is_classifier, is_regressor
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..persistence import (
    PersistenceMixin,
    check_array,
    check_classes,
    check_real,
    is_hashable,
    validate_part,
)
from ..engine import BinMapper, CoreShare, fit_transform_weighted
from ..trees.cart import BaseDecisionTree, DecisionTreeClassifier
from ..trees._fitted_state import check_binned_state
from ..trees._params import check_multi_output, check_output_classes
from .._input.estimator_input import EncoderMixin
from .._input.weights import check_weights
from .._input.targets import (
    check_poisson_target,
    check_regression_outputs,
    check_regression_target,
    encode_classification_target,
)
from ._parallel import release_free_memory, run_chunks
from .._input.fast_path import quick_check_is_fitted

if TYPE_CHECKING:
    from .._typing import ArrayLike, MatrixLike, NDArray

    # the estimator itself, of its own class (typing.Self needs Python 3.11)
    Self = TypeVar("Self", bound="BaseParallelEnsemble")

#: the attributes an out-of-bag evaluation sets
OOB_ATTRIBUTES = ("oob_score_", "oob_decision_function_", "oob_prediction_")


def grows_on_shared_bins(estimator):
    """Whether an ensemble may grow ``estimator`` directly on its shared bins.

    True for treeboost's CART trees (and subclasses) whose ``fit`` is the base one; a
    subclass that overrides ``fit`` may do anything there, so it is fitted through that
    ``fit`` like any other estimator."""
    return isinstance(estimator, BaseDecisionTree) and type(estimator).fit is BaseDecisionTree.fit


def set_random_states(estimator, random_state):
    """Set every ``random_state`` parameter of ``estimator``, nested ones
    (``step__random_state``) included, to an int drawn from ``random_state``, one per
    parameter in the sorted order of their names.

    What scikit-learn's ensembles do (its ``sklearn.ensemble._base._set_random_states``,
    which is private): a member refitted alone on its sample grows the same model.
    """
    rng = check_random_state(random_state)
    to_set = {
        key: int(rng.randint(np.iinfo(np.int32).max))
        for key in sorted(estimator.get_params(deep=True))
        if key == "random_state" or key.endswith("__random_state")
    }
    if to_set:
        estimator.set_params(**to_set)
    return estimator


class BaseTreeEnsemble(PersistenceMixin, EncoderMixin, BaseEstimator):
    """Encode X and bin it once per ``fit``; every tree reuses the binned matrix."""

    def _bin(self, Xe, sample_weight):
        # seeded: above BinMapper's subsample the edges come from drawn rows
        self.bin_mapper_ = BinMapper(
            self.max_bins,
            self._encoder.is_categorical_,
            random_state=getattr(self, "random_state", None),
        )
        return fit_transform_weighted(self.bin_mapper_, Xe, sample_weight)

    def _encode_target(self, y, n_samples, *, multi_output, criterion=None, check_poisson=False):
        """``y`` as the members are grown on it: a classifier's class codes (it sets
        ``classes_`` and ``n_classes_``), a regressor's float targets.

        The one place every ensemble of members (forests, bagging, AdaBoost) encodes
        its target; the families differ only in the arguments.

        Parameters
        ----------
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        n_samples : int
            Rows of X, which ``y`` must match.
        multi_output : bool
            Whether a 2-D ``y`` of several outputs is taken.  A classifier then encodes
            each output (``classes_`` a list of label arrays, ``n_classes_`` their sizes;
            the ensemble's ``criterion`` must be one that takes several outputs); a
            regressor records the outputs in ``_n_targets``.  Otherwise a classifier's
            ``y`` must be one column and a regressor's one-dimensional.
        criterion : str or None, default=None
            A regressor's: the criterion of the trees grown on the shared bins, checked
            to take a multi-output ``y`` (None: the members check for themselves).
        check_poisson : bool, default=False
            A regressor's: its one-dimensional ``y`` must suit the Poisson deviance
            (non-negative, positive sum).

        Returns
        -------
        y : ndarray
            int codes of shape (n_samples,) or (n_samples, n_outputs), or float64
            targets.
        """
        if is_classifier(self):
            arr = np.asarray(y) if multi_output and not sparse.issparse(y) else None
            if arr is not None and arr.ndim == 2 and arr.shape[1] > 1:
                # several outputs: grown as DecisionTreeClassifier grows them (mean Gini)
                return DecisionTreeClassifier._validate_outputs(self, arr, n_samples)
            self.classes_, codes = encode_classification_target(y, n_samples)
            self.n_classes_ = self.classes_.shape[0]
            return codes
        if not multi_output:
            return check_regression_target(y, n_samples)
        y = check_regression_outputs(y, n_samples)
        self._n_targets = 1 if y.ndim == 1 else y.shape[1]
        if y.ndim == 2:
            if criterion is not None:
                check_multi_output(criterion, self._encoder)
            return y
        return check_poisson_target(y) if check_poisson else y

    def _warn_no_new_members(self):
        """A warm start asked for no new member: say so (scikit-learn's words)."""
        warnings.warn(
            "Warm-start fitting without increasing n_estimators does not fit new trees.",
            UserWarning,
        )

    def _seeds(self, n):
        """One seed per tree, drawn up front in tree order: the same model whatever n_jobs."""
        rng = check_random_state(self.random_state)
        return rng.randint(np.iinfo(np.int32).max, size=n)

    def _attach(self, tree):
        """Give a sub-tree what it needs to predict on raw X by itself."""
        tree.n_features_in_ = self.n_features_in_
        if hasattr(self, "feature_names_in_"):
            tree.feature_names_in_ = self.feature_names_in_
        tree._encoder = self._encoder
        tree.bin_mapper_ = self.bin_mapper_
        if hasattr(self, "classes_"):
            tree.classes_ = self.classes_
            tree.n_classes_ = self.n_classes_
        return tree

    # -- members grown on the shared bins (bagging and AdaBoost) -----------------------------

    def _new_member(self, base, random_state, on_bins):
        """A fresh member: a clone of ``base`` with every ``random_state`` (nested ones
        too) drawn from ``random_state``.

        When ``on_bins`` (the shared bins exist and the member reads all the columns) and
        the member grows there (:func:`grows_on_shared_bins`), it is given the
        ensemble's input and outputs, so that :meth:`_fit_member` can grow it without
        its ``fit`` and it can predict on raw X alone."""
        est = set_random_states(clone(base), random_state)
        if on_bins and grows_on_shared_bins(est):
            self._attach(est)
            est._n_targets = getattr(self, "_n_targets", 1)
        return est

    def _fit_member(
        self, est, *, Xe, Xb, y, weights, features=None, rows=None, parallel, workspace=None
    ):
        """Fit one member of a bagging or boosting ensemble to weighted rows.

        A member on all the columns that grows on the shared bins (``Xb`` not None and
        :func:`grows_on_shared_bins`; made by :meth:`_new_member`) is grown there with
        ``weights`` (a sample's draw counts or the boosting weights), without a copy of
        the rows.  Any other member, a user's subclass of a treeboost tree that
        overrides ``fit`` included, is fitted through its own ``fit`` on the class
        labels (the targets for a regressor).

        Parameters
        ----------
        est : estimator
        Xe : array-like of shape (n_samples, n_features)
            The encoded input, dense or sparse, as a member's own ``fit`` reads it.
        Xb : ndarray or None
            The shared bins of ``Xe``; None when there are none.
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Class codes (a classifier) or targets.
        weights : ndarray of shape (n_samples,)
            Non-negative row weights.
        features : ndarray or None, default=None
            The columns the member reads; None for all of them.
        rows : callable or None, default=None
            How the member's own ``fit`` sees the sample: None, all the rows with
            ``sample_weight=weights``; else ``rows()`` gives the row indices (repeats
            included) it is fitted on, without weights.
        parallel : bool
            Whether the tree's kernels run on numba's threads.
        workspace : GrowerWorkspace or None, default=None
            The worker's row buffers, reused from member to member.

        Returns
        -------
        est : the fitted member
        """
        if Xb is not None and features is None and grows_on_shared_bins(est):
            weights = np.asarray(weights, dtype=np.float64)
            # the grower's seed comes from the tree's random_state, as in its own fit
            est.grow_binned(
                Xb,
                est._stats(y, weights),
                weights,
                parallel=parallel,
                workspace=workspace,
                in_parts=False,  # the same tree on the threads as on one
            )
            if workspace is not None:
                # a worker growing tree after tree hands the freed pages back
                release_free_memory()
            return est
        labels = (lambda r: self.classes_[y[r]]) if is_classifier(self) else (lambda r: y[r])
        if rows is None:
            Xi = Xe if features is None else Xe[:, features]
            est.fit(Xi, labels(slice(None)), sample_weight=np.asarray(weights, np.float64))
        else:
            r = rows()
            Xi = Xe[r] if features is None else Xe[np.ix_(r, features)]
            est.fit(Xi, labels(r))
        return est

    def _drop_oob(self):
        """Forget a previous fit's out-of-bag results (a refit without ``oob_score``, or
        on other rows, must not keep them)."""
        for name in OOB_ATTRIBUTES:
            self.__dict__.pop(name, None)

    # -- the members as a sequence, as scikit-learn's ensembles give them ------------------

    def __len__(self) -> int:
        """Number of fitted members (AttributeError before ``fit``, as in scikit-learn)."""
        return len(self.estimators_)

    def __iter__(self) -> Iterator[Any]:
        """The fitted members, in ``estimators_`` order."""
        return iter(self.estimators_)

    def __bool__(self) -> bool:
        # an estimator is true whether fitted or not (``__len__`` would decide otherwise)
        return True

    def __getitem__(self, index: int | slice) -> Any:
        """``estimators_[index]``."""
        return self.estimators_[index]

    #: the end of the warning on rows in every sample, in the words of scikit-learn's
    #: counterpart (its users filter the warning by them)
    _oob_warning = "trees were used to compute any reliable OOB estimates"

    def _set_oob_from(self, Xe, y, members, scoring=True):
        """Out-of-bag scores from ``(out_of_bag_rows, predict(rows))`` pairs: each row's
        outputs averaged over the members that did not see it, scored on the rows some
        member left out by accuracy / R², or by ``scoring(y, pred)`` when it is a
        callable."""
        total = None
        seen = np.zeros(Xe.shape[0])
        for out, predict in members:
            if out.size == 0:
                continue
            pred = predict(Xe[out])
            if total is None:
                total = np.zeros((Xe.shape[0],) + pred.shape[1:])
            total[out] += pred
            seen[out] += 1
        has = seen > 0
        if total is None or not has.any():
            raise ValueError("no sample was out of bag: oob_score needs more estimators.")
        if not has.all():
            warnings.warn(
                f"Some inputs do not have OOB scores. This probably means too few "
                f"{self._oob_warning} ({int((~has).sum())} of {has.size} rows "
                f"were in every sample; oob_score_ is computed on the others).",
                UserWarning,
            )
        avg = np.full_like(total, np.nan)
        avg[has] = total[has] / (seen[has] if total.ndim == 1 else seen[has, None])
        if is_classifier(self):
            self.oob_decision_function_ = avg
            score, pred = accuracy_score, np.argmax(avg[has], axis=1)
        else:
            self.oob_prediction_ = avg
            score, pred = r2_score, avg[has]
        self.oob_score_ = float((scoring if callable(scoring) else score)(y[has], pred))

    def _encoded(self, X):
        quick_check_is_fitted(self, "estimators_")
        return self._encode_X(X, reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes: tuple[str, ...] = (
        "bin_mapper_",
        "classes_",
        "n_classes_",
        "estimators_",
        "oob_score_",
        "oob_decision_function_",
        "oob_prediction_",
    )

    def _validate_ensemble(self, where, required=()):
        """The checks every ensemble of members shares; returns whether it is fitted.

        The input encoder and bin mapper, ``classes_``, and ``estimators_``: a
        non-empty list of fitted treeboost estimators of the ensemble's kind, each
        checked on its own; a classifier member's labels among the ensemble's (they are
        mapped into ``classes_`` with searchsorted); the out-of-bag results.
        """
        classifier = is_classifier(self)
        needed = ["n_features_in_", "_encoder", "estimators_", *required]
        if not check_binned_state(self, where, needed, classifier):
            return False
        multi = classifier and isinstance(self.classes_, list)
        if multi:  # several outputs: a list of label arrays
            K: int | None = int(check_output_classes(self, where).sum())
        else:
            K = check_classes(self, where) if classifier else None
        members = self.estimators_
        if not isinstance(members, list) or not members:
            raise ValueError(f"{where}.estimators_: must be a non-empty list of estimators.")
        for i, m in enumerate(members):
            w = f"{where}.estimators_[{i}]"
            validate_part(m, w)
            kind_ok = hasattr(m, "get_params") and (
                is_classifier(m) if classifier else is_regressor(m)
            )
            if not kind_ok or "n_features_in_" not in vars(m):
                raise ValueError(
                    f"{w}: not a fitted {'classifier' if classifier else 'regressor'}."
                )
            if multi:
                if not (
                    isinstance(m.classes_, list)
                    and len(m.classes_) == len(self.classes_)
                    and all(np.array_equal(a, b) for a, b in zip(m.classes_, self.classes_))
                ):
                    raise ValueError(f"{w}.classes_: must be the ensemble's classes_.")
            elif classifier and not set(_labels(m.classes_)) <= set(_labels(self.classes_)):
                raise ValueError(f"{w}.classes_: must be among the ensemble's classes_.")
        if "oob_score_" in vars(self):
            check_real(self.oob_score_, f"{where}.oob_score_", finite=False)
        for name in ("oob_decision_function_", "oob_prediction_"):
            if name in vars(self):
                # a regressor's: one column per output when there are several
                ndim = (3 if multi else 2) if classifier or np.ndim(getattr(self, name)) == 2 else 1
                check_array(getattr(self, name), f"{where}.{name}", "float64", ndim=ndim)
        if (
            classifier
            and not multi
            and "oob_decision_function_" in vars(self)
            and self.oob_decision_function_.shape[1] != K
        ):
            raise ValueError(f"{where}.oob_decision_function_: must have {K} columns.")
        return True

    def _check_same_input(self, m, where):
        """A member whose tree reads the ensemble's encoded input directly: same encoder
        and bin mapper, number of features and classes."""
        if m._encoder is not self._encoder or m.n_features_in_ != self.n_features_in_:
            raise ValueError(
                f"{where}: a member predicting on the ensemble's input must "
                f"share its input encoder and {self.n_features_in_} features."
            )
        if "classes_" not in vars(self):
            return
        mine = self.classes_ if isinstance(self.classes_, list) else [self.classes_]
        theirs = m.classes_ if isinstance(m.classes_, list) else [m.classes_]
        if not (
            len(mine) == len(theirs)
            and all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(theirs, mine))
        ):
            raise ValueError(f"{where}.classes_: the member's classes differ from the ensemble's.")

    def _check_output_bound(self, where, trees):
        """The ensemble sums its trees' leaf values: the sum must stay finite."""
        bound = sum(float(np.abs(t.value).max()) for t in trees)
        if not np.isfinite(bound) or bound > 1e300:
            raise ValueError(
                f"{where}: the leaf values of the members sum to more than "
                f"1e300 (the predictions would overflow)."
            )


class BaseParallelEnsemble(BaseTreeEnsemble):
    """Members fitted independently of each other, each on its own sample of the rows,
    in parallel: the forests and bagging.

    :meth:`fit` is written once here; a family supplies small hooks for what differs:

    * ``_check_fit_params()``: its parameter checks beyond the shared ones;
    * ``_base_member()``: the member every member copies (its kind decides whether the
      members grow on the shared bins);
    * ``_check_y(y)``: checks of the raw ``y`` (default: none);
    * ``_fit_target(y, n_samples, base)``: ``y`` encoded, through
      :meth:`~BaseTreeEnsemble._encode_target`;
    * ``_fit_weights(y, weights, sample_weight)``: the weights the bins are built on and
      those the members take (None for unit weights);
    * ``_sample_size(n_samples, n_features, w)``: the rows (and columns) each member
      draws, with its errors and warnings;
    * ``_draw_samples(seeds, n_samples, n_features, size, w)``: the members' samples
      drawn up front, or None when the workers draw them from the seeds;
    * ``_make_members(base, seeds, samples, Xb)``: the unfitted members;
    * ``_member_task(...)``: the function :func:`~._parallel.run_chunks` runs over
      chunks of members, and its shared arguments;
    * ``_add_members(fitted, samples, size, warm, n_samples, n_features)``: the fitted
      members and what their samples are remembered by.
    """

    #: how the warm-start error names the members fitted before
    _fitted_members = "estimators already fitted"
    #: whether a warm start that adds no member still encodes X and y and computes the
    #: out-of-bag results (scikit-learn's forests: ``oob_score`` may be switched on
    #: then) or returns at once (its bagging)
    _warm_refit_without_members = False

    def fit(
        self: Self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Fit ``n_estimators`` members (more, with ``warm_start``) on samples of the
        rows (a forest's bootstrap samples; bagging's samples of rows and columns), in
        parallel.

        X may be sparse, as for the CART estimators
        (:meth:`~treeboost.DecisionTreeClassifier.fit`): the treeboost trees grow on its
        bins, made once without a dense copy of its floats; any other learner of a
        bagging ensemble gets the drawn rows (and columns) of the sparse matrix in its
        own format, as scikit-learn's bagging passes them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._validate_params()
        if self.oob_score and not self.bootstrap:
            raise ValueError(
                "Out of bag estimation only available if bootstrap=True: "
                "oob_score=True needs bootstrap=True (out-of-bag samples exist "
                "only with bootstrap sampling)."
            )
        self._check_fit_params()
        base = self._base_member()
        warm = self.warm_start and hasattr(self, "estimators_")
        start = len(self.estimators_) if warm else 0
        if warm and self.n_estimators < start:
            raise ValueError(
                f"n_estimators={self.n_estimators} must be at least the "
                f"{start} {self._fitted_members}."
            )
        if warm and self.n_estimators == start:
            self._warn_no_new_members()
            if not self._warm_refit_without_members:
                return self
        self._check_y(y)
        self._drop_oob()
        Xe = self._encode_X(X, reset=not warm, y=y, sample_weight=sample_weight)
        # the regions of the calling thread (the binning, the members a worker of one
        # thread fits here, the out-of-bag predictions) on the threads the rows x
        # features feed and other busy processes leave free; the workers' threads set
        # their own count (tree_threads)
        with CoreShare(n_cells=Xe.shape[0] * Xe.shape[1]):
            return self._fit_encoded(Xe, y, sample_weight, base, warm, start)

    def _fit_encoded(self, Xe, y, sample_weight, base, warm, start):
        """:meth:`fit` from the encoded ``Xe`` on."""
        n, p = Xe.shape
        y = self._fit_target(y, n, base)
        weights = check_weights(sample_weight, Xe, None if is_classifier(self) else y)
        bin_weights, w = self._fit_weights(y, weights, sample_weight)
        size = self._sample_size(n, p, w)
        seeds = self._seeds(self.n_estimators)[start:]
        samples = self._draw_samples(seeds, n, p, size, w)
        # a warm start adds members on the bins of the first fit, when it made them
        Xb = None
        if grows_on_shared_bins(base) and (not warm or "bin_mapper_" in vars(self)):
            Xb = self.bin_mapper_.transform(Xe) if warm else self._bin(Xe, bin_weights)
        members = self._make_members(base, seeds, samples, Xb)
        task, shared = self._member_task(members, seeds, samples, size, Xe, Xb, y, w)
        fitted = run_chunks(
            task,
            len(members),
            self.n_jobs,
            verbose=self.verbose,
            work=len(members) * n * p,
            **shared,
        )
        self._add_members(fitted, samples, size, warm, n, p)
        if self.oob_score:
            self._set_oob(Xe, y)
        return self

    def _check_y(self, y):
        """Checks of the raw ``y`` before X is encoded (none by default)."""

    # -- the members' samples: each family says how it recalls them -------------------------
    #
    # ``_sample_counts()`` yields each member's draw counts (both families draw them again
    # from the member's seed; bagging keeps those drawn in proportion to sample weights),
    # ``_out_of_bag_rows(n_samples)`` the rows
    # each member left out and ``_member_predictors()`` a function per member giving its
    # outputs (class probabilities or predictions) on encoded rows.

    @property
    def estimators_samples_(self) -> list[NDArray[np.signedinteger[Any]]]:
        """The rows each member was fitted on, as scikit-learn gives them: one array of
        row indices per member, a row drawn ``k`` times listed ``k`` times (in row
        order), built on demand."""
        check_is_fitted(self, "estimators_")
        return [drawn_rows(c) for c in self._sample_counts()]

    def _set_oob(self, Xe, y):
        """Out-of-bag results from the rows each member left out (see
        :meth:`BaseTreeEnsemble._set_oob_from`)."""
        self._set_oob_from(
            Xe,
            y,
            scoring=self.oob_score,
            members=zip(self._out_of_bag_rows(Xe.shape[0]), self._member_predictors()),
        )


def _labels(a):
    return [v if is_hashable(v) else repr(v) for v in a.tolist()]


def in_bag_rows(n_samples, n_draws):
    """A bound on the distinct rows of a bootstrap sample of ``n_draws`` rows that is
    rarely exceeded: the expectation ``n (1 - (1 - 1/n)^draws)`` (63 % of n when
    ``draws = n``) plus ``4 sqrt(n) + 64``, over ten standard deviations (the standard
    deviation is about ``0.31 sqrt(n)`` when ``draws = n``).

    A forest sizes each worker's row buffers by it, not by ``n``; a sample that
    exceeds it only makes the buffers grow for the next trees."""
    expected = (
        n_samples * -np.expm1(n_draws * np.log1p(-1.0 / n_samples))
        if n_samples > 1
        else float(n_samples)
    )
    return int(min(n_samples, np.ceil(expected + 4.0 * np.sqrt(n_samples) + 64)))


def drawn_rows(counts):
    """Row indices from draw counts, as scikit-learn's ``estimators_samples_`` lists them:
    row ``i`` repeated ``counts[i]`` times, in row order, int32 like scikit-learn's when
    the rows fit in it."""
    n = counts.shape[0]
    dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    return np.repeat(np.arange(n, dtype=dtype), counts)


def resolve_max_samples(max_samples, n_samples):
    """Draws of a forest's bootstrap sample, as scikit-learn 1.9: all ``n_samples``
    (None), ``max_samples`` (an int, which may exceed ``n_samples``), or
    ``max(1, floor(max_samples * n_samples))`` (a float, which may exceed 1)."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, (int, np.integer)) and not isinstance(max_samples, bool):
        return int(max_samples)
    return max(1, int(max_samples * n_samples))
