"""Bagging (Breiman 1996): the same learner fitted on bootstrap samples, then a vote.

With the default estimator (a treeboost CART tree, or any treeboost tree given as
``estimator``) X is binned once and every tree is grown on the shared bins from its
bootstrap counts used as weights; any other scikit-learn estimator is cloned and fitted
with its draw counts as sample weights when its ``fit`` takes them, else on the resampled
rows themselves (and columns), as scikit-learn's bagging does.

The draws are scikit-learn's (same random calls for the same member seed): the columns
first, then the rows; with ``sample_weight`` the rows are drawn with probabilities
proportional to their weights and the member sees only the draw counts, so that a weight
of ``k`` means what ``k`` copies of the row mean (frequency semantics).
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from numbers import Integral
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy import sparse
from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier, is_regressor
from sklearn.utils import get_tags
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.random import sample_without_replacement
from sklearn.utils.validation import check_is_fitted

from ..persistence import check_array, register
from ..persistence._spec import array, check_state, list_of
from ..trees.cart import DecisionTreeClassifier, DecisionTreeRegressor
from ..trees._params import store_params
from ..trees.category_guard import CAT_SMOOTH, GUARD_CONSTRAINTS, MIN_SAMPLES_PER_CATEGORY
from ..engine import WorkspacePool
from ._base import BaseParallelEnsemble, drawn_rows, grows_on_shared_bins, in_bag_rows
from ._parallel import n_workers, tree_threads

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from .._typing import (
        CategoricalFeatures,
        Float64Array,
        MatrixLike,
        MaxBins,
        NDArray,
        RandomStateLike,
    )


#: one member's draw: its rows' counts, its columns (None: all, in order), the seed they
#: were drawn from, and whether rows were drawn in proportion to sample weights
MemberDraw = namedtuple("MemberDraw", ["counts", "features", "seed", "weighted"])


def _fit_members(chunk, threads, *, bag, members, plans, Xe, Xb, y, workspaces):
    """Fit ``members[i]`` for ``i`` in ``chunk`` on its plan ``(counts, features)``, the
    counts as weights (:meth:`~treeboost.ensembles._base.BaseTreeEnsemble._fit_member`):
    a treeboost tree on all the columns grows on the shared bins (no resampled copy of
    X); any other member is fitted on all the rows with the counts as weights when it
    takes weights, else on the drawn rows themselves.  The trees' grower workspace comes
    from the pool ``workspaces``, kept from chunk to chunk; ``threads``: the numba
    threads each grows on (:func:`~._parallel.tree_threads`)."""
    out = []
    with workspaces.lend() as workspace, tree_threads(threads):
        for i in chunk:
            est = members[i]
            counts, features = plans[i].counts, plans[i].features
            rows = None if _takes_weight(est) else (lambda counts=counts: drawn_rows(counts))
            out.append(
                bag._fit_member(
                    est,
                    Xe=Xe,
                    Xb=Xb,
                    y=y,
                    weights=counts,
                    features=features,
                    rows=rows,
                    parallel=threads > 1,  # a last member's threads (tree_threads)
                    workspace=workspace,
                )
            )
    return out


def _n_draws(max_samples, n, sample_weight, bootstrap):
    """Rows drawn per member, scikit-learn's rule: ``n`` for None, the integer itself,
    else ``max(1, int(max_samples * W))`` with ``W`` the number of rows or, with
    weights, their sum (a fraction of the weighted rows)."""
    if max_samples is None:
        k = n
    elif isinstance(max_samples, Integral):
        k = int(max_samples)
    else:
        total = n if sample_weight is None else float(sample_weight.sum())
        k = max(int(max_samples * total), 1)
        if k < max(10, n ** (1 / 3)):
            what = (
                f"the number of samples is {total} "
                if sample_weight is None
                else f"the total sum of sample weights is {total} "
            )
            warnings.warn(
                f"Using the fractional value max_samples={max_samples} when "
                f"{what}results in a low number ({k}) of bootstrap samples. We "
                f"recommend passing `max_samples` as an integer instead.",
                UserWarning,
                stacklevel=4,
            )  # as when fit called it
    if not bootstrap and k > n:
        raise ValueError(
            f"Effective max_samples={k} must be <= n_samples={n} to be able to "
            f"sample without replacement."
        )
    return k


def _draw(
    seed: int,
    n: int,
    k: int,
    p: int,
    n_feat: int,
    bootstrap: bool,
    bootstrap_features: bool,
    sample_weight: Float64Array | None,
) -> tuple[NDArray[Any], NDArray[np.int64] | None]:
    """One member's ``(counts, features)``, drawn as scikit-learn draws them from the
    member's seed: the columns first (all of them are drawn even when all are kept),
    then ``k`` rows, with probabilities proportional to ``sample_weight`` when given.

    ``counts`` (how many times each row is drawn) is in the smallest unsigned integer
    type that holds it: the ensemble keeps one such array per member for its
    out-of-bag rows.  ``features`` is None for all the columns in their order."""
    rows, features = _draw_rows(seed, n, k, p, n_feat, bootstrap, bootstrap_features, sample_weight)
    counts = np.bincount(rows, minlength=n)
    counts = counts.astype(np.min_scalar_type(int(counts.max())))
    return counts, features


def _draw_rows(seed, n, k, p, n_feat, bootstrap, bootstrap_features, sample_weight):
    """:func:`_draw`'s ``k`` drawn rows (in the order drawn) and features: memory in
    ``k``, not in ``n``, unless ``k`` is above a hundredth of ``n`` (scikit-learn's
    sampling without replacement permutes the rows then)."""
    rng = np.random.RandomState(seed)
    features = (
        rng.randint(0, p, n_feat)
        if bootstrap_features
        else sample_without_replacement(p, n_feat, random_state=rng)
    )
    if sample_weight is not None:
        rows = rng.choice(n, k, replace=bootstrap, p=sample_weight / sample_weight.sum())
    elif bootstrap:
        rows = rng.randint(0, n, k)
    else:
        rows = sample_without_replacement(n, k, random_state=rng)
    if n_feat == p and not bootstrap_features:
        features = None
    return rows, (None if features is None else features.astype(np.int64))


def _takes_weight(est):
    import inspect

    try:
        return "sample_weight" in inspect.signature(est.fit).parameters
    except (TypeError, ValueError):
        return False


class BaseBagging(BaseParallelEnsemble):
    _oob_warning = "estimators were used to compute any reliable oob estimates"
    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
        ],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
        ],
        "bootstrap": ["boolean"],
        "bootstrap_features": ["boolean"],
        "oob_score": ["boolean"],
        "warm_start": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "max_bins": [Interval(Integral, 2, 65535, closed="both"), StrOptions({"auto"}), None],
        "categorical_features": ["array-like", StrOptions({"auto"}), None],
        **GUARD_CONSTRAINTS,
    }

    def _base_estimator(self):
        if self.estimator is None:
            return (DecisionTreeClassifier if is_classifier(self) else DecisionTreeRegressor)(
                max_bins=self.max_bins,
                categorical_features=self.categorical_features,
                min_samples_per_category=self.min_samples_per_category,
                cat_smooth=self.cat_smooth,
            )
        # refused when it says it is of the other kind; an estimator that does not say
        # (no classifier or regressor tag) is taken at its word, as scikit-learn does
        if is_classifier(self) and is_regressor(self.estimator):
            raise ValueError(
                f"estimator={self.estimator!r} is not a classifier; "
                f"{type(self).__name__} needs one."
            )
        if not is_classifier(self) and is_classifier(self.estimator):
            raise ValueError(
                f"estimator={self.estimator!r} is not a regressor; {type(self).__name__} needs one."
            )
        return self.estimator

    # -- the steps of fit that are bagging's own (BaseParallelEnsemble.fit) ------------------

    def _check_fit_params(self):
        if self.warm_start and self.oob_score:
            # scikit-learn's bagging refuses the pair; so does ours, to mean the same
            raise ValueError(
                "Out of bag estimate only available if warm_start=False: "
                "pass oob_score=False with warm_start=True."
            )

    def _base_member(self):
        return self._base_estimator()

    def _fit_target(self, y, n_samples, base):
        # a multi-output y is a regressor's; the trees grown on the shared bins must
        # take it, any other member checks it in its own fit
        return self._encode_target(
            y,
            n_samples,
            multi_output=not is_classifier(self),
            criterion=base.criterion if grows_on_shared_bins(base) else None,
        )

    def _fit_weights(self, y, weights, sample_weight):
        """The bins are built on the sample weights; the members see them only through
        the draws (None: unit weights, drawn uniformly)."""
        w = None if sample_weight is None else weights
        if w is not None and not self.bootstrap:
            # stacklevel: the frame the warning named when fit itself raised it
            warnings.warn(
                f"When fitting {type(self).__name__} with sample_weight it is "
                f"recommended to use bootstrap=True, got {self.bootstrap}.",
                UserWarning,
                stacklevel=3,
            )
        return weights, w

    def _sample_size(self, n_samples, n_features, w):
        """``(rows, columns)`` drawn per member."""
        n_rows = _n_draws(self.max_samples, n_samples, w, self.bootstrap)
        if isinstance(self.max_features, (int, np.integer)):
            if self.max_features > n_features:
                raise ValueError(
                    f"max_features={self.max_features} is larger than the number "
                    f"of features ({n_features})."
                )
            n_feat = int(self.max_features)
        else:
            n_feat = max(1, int(self.max_features * n_features))
        return n_rows, n_feat

    def _draw_samples(self, seeds, n_samples, n_features, size, w):
        """Each member's :class:`MemberDraw`, drawn up front from its seed."""
        n_rows, n_feat = size
        return [
            MemberDraw(
                *_draw(
                    s,
                    n_samples,
                    n_rows,
                    n_features,
                    n_feat,
                    self.bootstrap,
                    self.bootstrap_features,
                    w,
                ),
                int(s),
                w is not None,
            )
            for s in seeds
        ]

    def _make_members(self, base, seeds, samples, Xb):
        # every random_state of the member, nested ones too, from the member's seed
        return [
            self._new_member(base, int(s), Xb is not None and feats is None)
            for s, feats in zip(seeds, (d.features for d in samples))
        ]

    def _member_task(self, members, seeds, samples, size, Xe, Xb, y, w):
        n, n_rows = Xe.shape[0], size[0]
        pool = WorkspacePool(
            min_rows=min(n, in_bag_rows(n, n_rows) if self.bootstrap else n_rows),
            workers=n_workers(self.n_jobs, len(members)),
        )
        return _fit_members, dict(
            bag=self, members=members, plans=samples, Xe=Xe, Xb=Xb, y=y, workspaces=pool
        )

    def _add_members(self, fitted, samples, size, warm, n_samples, n_features):
        # Each member's rows are drawn again from its seed when asked for (scikit-learn's
        # way, as the forests'): the seed and the draw's sizes are kept, not its counts.
        # A draw in proportion to sample weights keeps its counts (one byte a row, less
        # than the weights it would need), as does every member of an ensemble from a
        # file that kept counts only.
        if not warm:
            self.estimators_, self._draw_counts, self.estimators_features_ = [], [], []
            self._draw_seeds = np.empty(0, np.int64)
            self._draw_plans = np.empty((0, 4), np.int64)
        self.estimators_ += fitted
        regenerable = "_draw_seeds" in vars(self)
        self._draw_counts += [d.counts if d.weighted or not regenerable else None for d in samples]
        if regenerable:
            self._draw_seeds = np.r_[self._draw_seeds, [d.seed for d in samples]]
            self._draw_plans = np.vstack(
                [
                    self._draw_plans,
                    np.tile(
                        [n_samples, size[0], self.bootstrap, self.bootstrap_features],
                        (len(samples), 1),
                    ),
                ]
            ).astype(np.int64)
        self.estimators_features_ += [
            np.arange(n_features) if d.features is None else d.features for d in samples
        ]

    def _member_output(self, est, Xe, features):
        """Class probabilities (classifier) or predictions (regressor) of one member."""
        tree = getattr(est, "tree_", None)
        full = features.shape[0] == self.n_features_in_ and np.all(
            features == np.arange(features.size)
        )
        if tree is not None and full and getattr(est, "_encoder", None) is self._encoder:
            out = tree.predict(Xe)
            return out if is_classifier(self) or out.shape[1] > 1 else out[:, 0]
        Xi = Xe if full else Xe[:, features]
        if not is_classifier(self):
            return est.predict(Xi)
        if getattr(self, "voting", "soft") == "soft" and hasattr(est, "predict_proba"):
            proba = est.predict_proba(Xi)
            full_proba = np.zeros((Xe.shape[0], self.n_classes_))
            cols = np.searchsorted(self.classes_, est.classes_)
            full_proba[:, cols] = proba
            return full_proba
        votes = np.zeros((Xe.shape[0], self.n_classes_))
        votes[np.arange(Xe.shape[0]), np.searchsorted(self.classes_, est.predict(Xi))] = 1
        return votes

    @property
    def estimator_(self) -> BaseEstimator:
        """The learner the members are copies of: ``estimator``, or the default
        treeboost CART tree (scikit-learn's name)."""
        check_is_fitted(self, "estimators_")
        return self._base_estimator()

    def __sklearn_tags__(self):
        # NaN and a sparse X are the member's to accept (a treeboost tree takes both)
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
            tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags

    def _member_call(self, est, Xe, features, method):
        """``est.<method>`` on the columns the member reads; a member whose tree reads
        the ensemble's encoded input calls its tree (the input is encoded already)."""
        full = features.shape[0] == self.n_features_in_ and np.array_equal(
            features, np.arange(features.size)
        )
        if full and "tree_" in vars(est) and getattr(est, "_encoder", None) is self._encoder:
            return getattr(est.tree_, method)(Xe)
        return getattr(est, method)(Xe if full else Xe[:, features])

    def apply(self, X: MatrixLike) -> NDArray[np.int64]:
        """Leaf index of each sample in each member, shape (n_samples, n_estimators)
        (members with an ``apply`` method: trees)."""
        Xe = self._encoded(X)
        return np.column_stack(
            [
                self._member_call(e, Xe, f, "apply")
                for e, f in zip(self.estimators_, self.estimators_features_)
            ]
        )

    def decision_path(self, X: MatrixLike) -> tuple[sparse.csr_matrix, NDArray[np.int64]]:
        """The nodes each sample goes through in every member (trees).

        Returns
        -------
        indicator : sparse CSR matrix of shape (n_samples, n_nodes)
            The nodes of member ``k`` are the columns ``n_nodes_ptr[k]:n_nodes_ptr[k+1]``.
        n_nodes_ptr : ndarray of shape (n_estimators + 1,)
        """
        Xe = self._encoded(X)
        paths = [
            self._member_call(e, Xe, f, "decision_path")
            for e, f in zip(self.estimators_, self.estimators_features_)
        ]
        n_nodes_ptr = np.cumsum([0] + [p.shape[1] for p in paths])
        return sparse.hstack(paths, format="csr"), n_nodes_ptr

    def _aggregate(self, Xe):
        total: Any = None  # the sum of the members' outputs (estimators_ is never empty)
        for est, feats in zip(self.estimators_, self.estimators_features_):
            out = self._member_output(est, Xe, feats)
            if is_classifier(self) and getattr(self, "voting", "soft") == "hard":
                hard = np.zeros_like(out)
                hard[np.arange(out.shape[0]), np.argmax(out, axis=1)] = 1
                out = hard
            total = out if total is None else total + out
        return total / len(self.estimators_)

    def _out_of_bag_rows(self, n_samples):
        return (np.flatnonzero(counts == 0) for counts in self._sample_counts())

    def _member_predictors(self):
        return (
            lambda rows, est=est, feats=feats: self._member_output(est, rows, feats)
            for est, feats in zip(self.estimators_, self.estimators_features_)
        )

    @property
    def _max_samples(self):
        """The rows drawn per member in the last fit (scikit-learn's validated
        ``max_samples``)."""
        check_is_fitted(self, "estimators_")
        if self._draw_counts[-1] is None:
            return int(self._draw_plans[-1, 1])
        return int(self._draw_counts[-1].sum())

    def _sample_counts(self):
        """Each member's draw counts: kept, or drawn again from its seed (the same
        draws: the columns first, then the rows, from one generator)."""
        for i, counts in enumerate(self._draw_counts):
            if counts is None:
                n, k, bootstrap, bootstrap_features = (int(v) for v in self._draw_plans[i])
                counts, _ = _draw(
                    int(self._draw_seeds[i]),
                    n,
                    k,
                    self.n_features_in_,
                    self.estimators_features_[i].shape[0],
                    bool(bootstrap),
                    bool(bootstrap_features),
                    None,
                )
            yield counts

    @property
    def estimators_samples_(self) -> list[NDArray[np.signedinteger[Any]]]:
        """The rows each member was fitted on, as scikit-learn gives them: one array of
        row indices per member, a row drawn ``k`` times listed ``k`` times (in row
        order), built on demand; a draw made again from its seed is sorted, without an
        array of counts over every training row."""
        check_is_fitted(self, "estimators_")
        out = []
        for i, counts in enumerate(self._draw_counts):
            if counts is not None:
                out.append(drawn_rows(counts))
                continue
            n, k, bootstrap, bootstrap_features = (int(v) for v in self._draw_plans[i])
            rows, _ = _draw_rows(
                int(self._draw_seeds[i]),
                n,
                k,
                self.n_features_in_,
                self.estimators_features_[i].shape[0],
                bool(bootstrap),
                bool(bootstrap_features),
                None,
            )
            rows.sort()
            out.append(rows.astype(np.int32 if n <= np.iinfo(np.int32).max else np.int64))
        return out

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = (
        "_draw_counts",
        "estimators_features_",
        "_member_seeds",
        "_draw_seeds",
        "_draw_plans",
    )
    #: the outputs of the y being fitted
    _persist_transient = ("_n_targets",)

    def _check_draw_plan(self, where, i):
        """A kept draw plan ``(n_samples, n_rows, bootstrap, bootstrap_features)`` that
        :meth:`_sample_counts` can draw again: flags 0 or 1, at least one row and, without
        replacement, no more rows than there are."""
        n, k, bootstrap, bootstrap_features = (int(v) for v in self._draw_plans[i])
        if (
            n < 1
            or k < 1
            or bootstrap not in (0, 1)
            or bootstrap_features not in (0, 1)
            or (not bootstrap and k > n)
            or k > 2**31 - 1
            or n > 2**31 - 1
        ):
            raise ValueError(
                f"{where}._draw_plans[{i}]: (n_samples, n_rows, bootstrap, "
                f"bootstrap_features) = {(n, k, bootstrap, bootstrap_features)} "
                f"is not a draw of bagging."
            )
        # the member's tree records its draws: the distinct rows drawn at its root, and,
        # the draws being unweighted, their number as the root's weight (without class
        # weights); a plan of more draws would make estimators_samples_ build more rows
        # than the model was fitted on
        member = self.estimators_[i]
        tree = vars(member).get("tree_")
        if hasattr(tree, "n_node_samples") and tree.node_count:
            distinct = int(tree.n_node_samples[0])
            weight = float(tree.weighted_n_node_samples[0])
            if distinct > min(n, k) or (
                getattr(member, "class_weight", None) is None and weight != k
            ):
                raise ValueError(
                    f"{where}._draw_plans[{i}]: {k} rows drawn from {n}, the "
                    f"member's tree was grown on {distinct} distinct rows of "
                    f"weight {weight!r}."
                )
        if not bootstrap_features and self.estimators_features_[i].shape[0] > self.n_features_in_:
            raise ValueError(
                f"{where}.estimators_features_[{i}]: more columns than the "
                f"ensemble has, drawn without replacement."
            )

    #: the draws made again (with ``_draw_counts`` None): a 32-bit seed and a plan of
    #: four numbers per member
    _draw_spec = {
        "_draw_seeds": array("int64", ("n_members",), low=0, high=2**32 - 1),
        "_draw_plans": array("int64", ("n_members", 4), low=0),
    }
    #: the columns each member reads, in range
    _features_spec = {
        "estimators_features_": list_of(
            array(("int64", "int32"), ndim=1, low=0, high="last_feature"),
            "n_members",
            "must hold one array of column indices per member ({length}).",
        )
    }

    def _validate_state(self, where="model", **context):
        """Check a loaded bagging ensemble: ``_draw_counts`` (each member's unsigned draw
        counts, one per training row, or None for a draw made again from ``_draw_seeds``
        and ``_draw_plans``, which must be draws bagging can make) and ``estimators_features_``
        (the columns each
        member reads: in range, as many as the member has features) match
        ``estimators_`` one for one; a member on all the columns and the ensemble's
        encoder has its tree read the ensemble's input directly."""
        super()._validate_state(where, **context)
        if not self._validate_ensemble(where, required=("_draw_counts", "estimators_features_")):
            return
        members = self.estimators_
        n = len(members)
        counts, feats = self._draw_counts, self.estimators_features_
        if not isinstance(counts, list) or len(counts) != n:
            raise ValueError(
                f"{where}._draw_counts: must hold one array of draw counts per member ({n})."
            )
        regenerable = "_draw_seeds" in vars(self) or "_draw_plans" in vars(self)
        if regenerable:
            check_state(self, where, self._draw_spec, {"n_members": n})
        kept = [c for c in counts if c is not None or not regenerable]
        n_rows = kept[0].shape[0] if kept and isinstance(kept[0], np.ndarray) else None
        for i, c in enumerate(counts):
            if c is None and regenerable:
                continue
            check_array(c, f"{where}._draw_counts[{i}]", ("uint8", "uint16", "uint32"), (n_rows,))
        p = self.n_features_in_
        check_state(self, where, self._features_spec, {"n_members": n, "last_feature": p - 1})
        trees = []
        for i, (m, f) in enumerate(zip(members, feats)):
            w = f"{where}.estimators_features_[{i}]"
            if f.size < 1 or m.n_features_in_ != f.size:
                raise ValueError(
                    f"{w}: the member reads {f.size} column(s) but has {m.n_features_in_} features."
                )
            full = f.size == p and np.array_equal(f, np.arange(p))
            if full and getattr(m, "_encoder", None) is self._encoder and "tree_" in vars(m):
                self._check_same_input(m, f"{where}.estimators_[{i}]")
            if "tree_" in vars(m) and hasattr(m.tree_, "children_left"):
                trees.append(m.tree_)
        if not is_classifier(self) and trees:
            self._check_output_bound(where, trees)
        if regenerable:
            sizes = set() if n_rows is None else {n_rows}
            for i, c in enumerate(counts):
                if c is None:
                    self._check_draw_plan(where, i)
                    sizes.add(int(self._draw_plans[i, 0]))
            if len(sizes) > 1:
                raise ValueError(
                    f"{where}._draw_plans: the members' draws must be of one "
                    f"training set, got {sorted(sizes)} rows."
                )
        if "_member_seeds" in vars(self):
            # the seeds of the last fit's members, in files of older versions (not read:
            # the members grow from their own random_state now)
            check_array(
                self._member_seeds, f"{where}._member_seeds", ("int64", "int32"), ndim=1, low=0
            )


_DOC = """
    Parameters
    ----------
    estimator : estimator or None, default=None
        Any scikit-learn estimator (default: a treeboost CART tree grown on shared bins).
    n_estimators : int, default=10
    max_samples : int, float or None, default=None
        Rows drawn per member: ``n_samples`` for None, the number itself for an int, a
        fraction of ``n_samples`` (of the sum of ``sample_weight`` when given) for a
        float.  With ``sample_weight`` the rows are drawn with probabilities proportional
        to their weights and each member sees its draw counts as weights.
    max_features : int or float, default=1.0
        Columns drawn per member.
    bootstrap : bool, default=True
        Rows with replacement.
    bootstrap_features : bool, default=False
        Columns with replacement.
    oob_score : bool, default=False
    warm_start : bool, default=False
    n_jobs : int, default=None
    random_state : int, RandomState instance or None
    verbose : int, default=0
    max_bins : int, None or "auto", default="auto"
        The bins of X, shared by every member: as in
        :class:`~treeboost.DecisionTreeClassifier` (``"auto"``: exact thresholds for a
        feature of at most 16,384 distinct values, 255 quantile bins above; 255 for the
        fastest fit).
    categorical_features
        As in :class:`~treeboost.DecisionTreeClassifier` (used for encoding).
    min_samples_per_category, cat_smooth
        As in :class:`~treeboost.DecisionTreeClassifier`, for the default members (the
        category guard, :mod:`treeboost.trees.category_guard`); a given ``estimator``
        keeps its own.

    Attributes
    ----------
    estimators_, estimators_samples_ (each member's rows, with repeats), estimators_features_
    oob_score_, oob_decision_function_ / oob_prediction_
"""


class BaggingClassifier(ClassifierMixin, BaseBagging):
    __doc__ = (
        """Bagging of classifiers; ``voting="soft"`` averages ``predict_proba``,
    ``"hard"`` takes the majority vote of the members' predictions (the textbook's
    Bagging)."""
        + _DOC
    )

    _parameter_constraints = {
        **BaseBagging._parameter_constraints,
        "voting": [StrOptions({"soft", "hard"})],
    }

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        n_estimators: int = 10,
        *,
        max_samples: int | float | None = None,
        max_features: int | float = 1.0,
        bootstrap: bool = True,
        bootstrap_features: bool = False,
        oob_score: bool = False,
        warm_start: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        verbose: int = 0,
        voting: Literal["soft", "hard"] = "soft",
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())

    def predict_proba(self, X: MatrixLike) -> Float64Array:
        """Mean class probabilities (soft voting) or vote shares (hard voting)."""
        return self._aggregate(self._encoded(X))

    def predict_log_proba(self, X: MatrixLike) -> Float64Array:
        """Logarithm of :meth:`predict_proba` (``-inf`` for a class of probability 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _member_has_decision_function(self):
        if "estimators_" in vars(self):
            return hasattr(self.estimators_[0], "decision_function")
        return hasattr(self.estimator, "decision_function")  # None: a tree has none

    @available_if(_member_has_decision_function)
    def decision_function(self, X: MatrixLike) -> Float64Array:
        """Mean of the members' ``decision_function`` (when the member has one), as
        scikit-learn's bagging: shape (n_samples,) for two classes, else
        (n_samples, n_classes); every member must have seen every class."""
        Xe = self._encoded(X)
        total: Any = 0.0  # the sum of the members' decisions
        for est, feats in zip(self.estimators_, self.estimators_features_):
            if est.classes_.shape[0] != self.n_classes_:
                raise ValueError(
                    "decision_function needs every member to have seen all "
                    f"{self.n_classes_} classes; a bootstrap sample missed "
                    "some (more rows per member would help)."
                )
            total = total + self._member_call(est, Xe, feats, "decision_function")
        return total / len(self.estimators_)

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class BaggingRegressor(RegressorMixin, BaseBagging):
    __doc__ = "Bagging of regressors: the mean of the members' predictions." + _DOC

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        n_estimators: int = 10,
        *,
        max_samples: int | float | None = None,
        max_features: int | float = 1.0,
        bootstrap: bool = True,
        bootstrap_features: bool = False,
        oob_score: bool = False,
        warm_start: bool = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        verbose: int = 0,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())

    def predict(self, X: MatrixLike) -> Float64Array:
        """Mean of the members' predictions, shape (n_samples,) or (n_samples,
        n_outputs) for a multi-output ``y``."""
        return self._aggregate(self._encoded(X))


register(BaggingClassifier, BaggingRegressor)
