"""Random forests (Breiman 2001) and Extra-Trees (Geurts et al. 2006).

Each tree sees a bootstrap sample of the rows (as integer weights: a row drawn twice
weighs 2) and draws ``max_features`` features at every node; Extra-Trees also draw the
cut point at random and, by default, use all rows.  X is binned once; all trees share it.
"""

from __future__ import annotations

from numbers import Integral
from operator import is_
from typing import TYPE_CHECKING, Any, Literal

import warnings
import weakref

import numpy as np
from scipy import sparse
from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier
from sklearn.metrics import accuracy_score
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.class_weight import compute_class_weight, compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from ..persistence import register
from ..trees.category_guard import CAT_SMOOTH, MIN_SAMPLES_PER_CATEGORY
from ..persistence._spec import array, check_state, list_of
from ..trees.cart import BaseDecisionTree, DecisionTreeClassifier, DecisionTreeRegressor
from ..trees._params import deprecated_criterion, store_params
from ..engine import (
    CoreShare,
    CLASSIFICATION_CRITERIA,
    REGRESSION_CRITERIA,
    PackedForest,
    SampleStatistics,
    WorkspacePool,
    prepared_csr,
)
from ._base import BaseParallelEnsemble, in_bag_rows, resolve_max_samples
from ._bootstrap import bootstrap_weights
from ._parallel import n_workers, release_free_memory, tree_threads

if TYPE_CHECKING:
    from .._typing import (
        ArrayLike,
        CategoricalFeatures,
        ClassificationCriterion,
        Float64Array,
        ForestClassWeight,
        MatrixLike,
        MaxBins,
        MaxFeatures,
        NDArray,
        OobScore,
        RandomStateLike,
        RegressionCriterion,
    )


#: ``sample_weight`` of :func:`bootstrap_weights` for unit weights
_UNIT = np.empty(0)

_TREE_PARAMS = (
    "criterion",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "min_weight_fraction_leaf",
    "max_features",
    "max_leaf_nodes",
    "min_impurity_decrease",
    "max_bins",
    "categorical_features",
    "ccp_alpha",
    "monotonic_cst",
    "min_samples_per_category",
    "cat_smooth",
)


#: each forest's packed trees (:meth:`BaseForest._packed_forest`) under its first member,
#: dropped with it
_PACKED: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()


def _fit_trees(chunk, threads, *, forest, trees, seeds, Xb, y, w, n_draws, workspaces):
    """Fit ``trees[i]`` for ``i`` in ``chunk``; returns each with its out-of-bag rows as
    bits (1/64 of the memory of the counts, which would otherwise be held until the last
    tree is done; ``benchmarks/_memory.py`` measures a fit's peak).  ``y`` holds int64 class codes
    (classifier) or float64
    targets, as the kernels read them; ``w`` is None for unit weights (no array of n
    ones).

    The worker's only per-row buffers are the bootstrap weights, the rows drawn and a
    grower workspace from the pool ``workspaces``, all reused from tree to tree (the
    workspace from chunk to chunk).  ``threads``: the numba threads each tree grows on
    (:func:`~._parallel.tree_threads`)."""
    out = []
    n = y.shape[0]
    weights = np.empty(n)
    # without bootstrap "balanced_subsample" is "balanced", applied in fit
    subsample = getattr(forest, "class_weight", None) == "balanced_subsample" and forest.bootstrap
    # with balanced_subsample the class weights come from the draw counts
    sw = _UNIT if w is None or subsample else w
    if not forest.bootstrap:
        # every tree sees every row with its weight: the weights once a chunk, not a new
        # array of n rows a tree
        weights[:] = 1.0 if sw is _UNIT else sw
    with workspaces.lend() as workspace, tree_threads(threads):
        for i in chunk:
            tree = trees[i]
            bits = np.zeros((n + 7) // 8, np.uint8)
            tree_weights = weights
            if forest.bootstrap:
                bootstrap_weights(int(seeds[i]), n_draws, sw, weights, bits)
                if subsample:
                    tree_weights = _balance_subsample(y, weights, forest.n_classes_)
                    if w is not None:
                        tree_weights *= w
            # the grower's seed comes from the tree's random_state, as in the tree's own
            # fit: the tree refitted alone on its sample grows the same tree
            tree.grow_binned(
                Xb,
                forest._stats(y, tree_weights),
                tree_weights,
                # a last tree's nodes on its threads (tree_threads), grown whole: the
                # tree a worker of one thread grows
                parallel=threads > 1,
                workspace=workspace,
                in_parts=False,
            )
            out.append((tree, bits))
            del tree_weights
    # once a chunk: after each tree, the trees' next arrays fault their pages in again
    # (the peak is the same: benchmarks/_memory.py measures it)
    release_free_memory()
    return out


def _balance_subsample(y, counts, n_classes):
    """``counts * n_drawn / (n_present * n_k)`` with ``n_k`` the draws of row ``i``'s class
    and ``n_present`` the classes drawn: every class weighs the same in the sample
    (scikit-learn's "balanced_subsample", which counts repeated draws)."""
    if y.ndim == 2:  # several outputs: the weights multiply, as scikit-learn's
        out = counts.copy()
        for k in range(y.shape[1]):
            out *= _balance_subsample(y[:, k], counts, int(n_classes[k])) / np.where(
                counts > 0, counts, 1.0
            )
        return out
    codes = y.astype(np.intp)
    per_class = np.bincount(codes, weights=counts, minlength=n_classes)
    present = per_class > 0
    class_weight = np.zeros(n_classes)
    class_weight[present] = per_class.sum() / (present.sum() * per_class[present])
    return counts * class_weight[codes]


class BaseForest(BaseParallelEnsemble):
    """Bagged randomized trees on shared bins."""

    #: the outputs of the y being fitted; a fitted forest reads them from its trees
    _persist_transient = ("_n_targets",)

    # the tree parameters are checked exactly as the CART estimators check them
    _parameter_constraints = {
        **{p: BaseDecisionTree._parameter_constraints[p] for p in _TREE_PARAMS if p != "criterion"},
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "bootstrap": ["boolean"],
        "oob_score": ["boolean", callable],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
        # as scikit-learn 1.9: more draws than rows are allowed (issue #28507)
        "max_samples": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, None, closed="neither"),
        ],
    }
    _splitter: Literal["best", "random"] = "best"

    _fitted_members = "trees already fitted with warm_start=True"
    # scikit-learn's forests compute the out-of-bag results of a warm start without new
    # trees (oob_score may have been switched on since)
    _warm_refit_without_members = True

    # -- the steps of fit that are the forests' own (BaseParallelEnsemble.fit) ---------------

    def _check_fit_params(self):
        if not self.bootstrap and self.max_samples is not None:
            raise ValueError(
                "`max_sample` cannot be set if `bootstrap=False`. Either switch "
                "to `bootstrap=True` or set `max_sample=None` (max_samples can "
                "be set only with bootstrap=True)."
            )

    def _base_member(self):
        return self.estimator

    def _check_y(self, y):
        if sparse.issparse(y):
            # scikit-learn's forests say this (its trees raise a TypeError, as ours do)
            raise ValueError("sparse multilabel-indicator for y is not supported.")

    def _fit_target(self, y, n_samples, base):
        y = self._encode_target(
            y,
            n_samples,
            multi_output=True,
            criterion=self.criterion,
            check_poisson=self.criterion == "poisson",
        )
        if self.oob_score and is_classifier(self) and y.ndim == 2 and np.max(self.n_classes_) > 2:
            # scikit-learn's rule and words: no out-of-bag score for this target type
            raise ValueError(
                "The type of target cannot be used to compute OOB estimates. "
                "Got multiclass-multioutput while only the following are "
                "supported: continuous, continuous-multioutput, binary, "
                "multiclass, multilabel-indicator."
            )
        return y

    def _fit_weights(self, y, weights, sample_weight):
        """The class weights multiply the sample weights, of the bins too; the trees take
        None for unit weights (no array of n ones)."""
        cw = None
        if is_classifier(self):
            # a dict names the classes by their labels, not by their codes
            cw = self._class_weights(self._labels_of(y), weights)
            if cw is not None:
                weights = weights * cw
        return weights, (None if sample_weight is None and cw is None else weights)

    def _sample_size(self, n_samples, n_features, w):
        """Draws of each bootstrap sample (all the rows without bootstrap)."""
        return resolve_max_samples(self.max_samples, n_samples) if self.bootstrap else n_samples

    def _draw_samples(self, seeds, n_samples, n_features, size, w):
        # each worker draws its trees' samples from their seeds (_fit_trees)
        return None

    def _make_members(self, base, seeds, samples, Xb):
        return [self._attach(self._make_tree(s)) for s in seeds]

    def _member_task(self, members, seeds, samples, size, Xe, Xb, y, w):
        n = y.shape[0]
        pool = WorkspacePool(
            min_rows=in_bag_rows(n, size) if self.bootstrap else n,
            workers=n_workers(self.n_jobs, len(members)),
        )
        return _fit_trees, dict(
            forest=self, trees=members, seeds=seeds, Xb=Xb, y=y, w=w, n_draws=size, workspaces=pool
        )

    def _add_members(self, fitted, samples, size, warm, n_samples, n_features):
        if not warm:
            self.estimators_ = []
            self._oob_bits = []
            self._bootstrap_draws = np.empty((0, 2), np.int64)
        self.estimators_ += [t for t, _ in fitted]
        self._oob_bits += [bits for _, bits in fitted]
        # (rows, draws) of each tree's bootstrap, 0 draws for all rows: with the tree's
        # seed they give its sample again (estimators_samples_)
        if hasattr(self, "_bootstrap_draws"):  # not in a forest of a version-1 file
            self._bootstrap_draws = np.vstack(
                [
                    self._bootstrap_draws,
                    np.tile([n_samples, size if self.bootstrap else 0], (len(fitted), 1)),
                ]
            )

    @property
    def _n_samples_bootstrap(self):
        """Draws of the last trees' bootstrap samples (scikit-learn's private name), None
        without bootstrap."""
        check_is_fitted(self, "estimators_")
        draws = getattr(self, "_bootstrap_draws", None)
        if draws is None or len(draws) == 0 or draws[-1, 1] == 0:
            return None
        return int(draws[-1, 1])

    def _make_tree(self, seed):
        params = {p: getattr(self, p) for p in _TREE_PARAMS}
        cls = DecisionTreeClassifier if is_classifier(self) else DecisionTreeRegressor
        tree = cls(
            splitter=self._splitter, random_state=None if seed is None else int(seed), **params
        )
        if hasattr(self, "_n_targets"):  # the outputs of the y being fitted
            tree._n_targets = self._n_targets
        return tree

    @property
    def estimator(self) -> DecisionTreeClassifier | DecisionTreeRegressor:
        """The kind of tree the forest grows, unfitted and with its default parameters
        (scikit-learn's name; not a parameter: the trees take the forest's)."""
        cls = DecisionTreeClassifier if is_classifier(self) else DecisionTreeRegressor
        return cls(splitter=self._splitter)

    @property
    def estimator_(self) -> DecisionTreeClassifier | DecisionTreeRegressor:
        """The template of the trees: the forest's tree parameters, no seed (each tree
        of ``estimators_`` is a copy with its own ``random_state``)."""
        check_is_fitted(self, "estimators_")
        return self._make_tree(None)

    def _tree_outputs(self, tree, Xe):
        out = tree.tree_.predict(Xe)
        return out if is_classifier(self) or out.shape[1] > 1 else out[:, 0]

    def _set_oob(self, Xe, y):
        if is_classifier(self) and y.ndim == 2:
            return self._set_oob_outputs(Xe, y)
        super()._set_oob(Xe, y)

    def _out_of_bag_rows(self, n_samples):
        # each tree's packed mask (bit set: the row was not drawn)
        return (np.flatnonzero(np.unpackbits(bits, count=n_samples)) for bits in self._oob_bits)

    def _member_predictors(self):
        return (lambda rows, tree=tree: self._tree_outputs(tree, rows) for tree in self.estimators_)

    def _set_oob_outputs(self, Xe, y):
        """Out-of-bag results of a multi-output classifier, as scikit-learn's:
        ``oob_decision_function_`` of shape (n, max classes, n_outputs) (NaN past an
        output's classes), ``oob_score_`` the subset accuracy (or the callable's score)
        of the codes of shape (n, n_outputs)."""
        n = Xe.shape[0]
        total, seen = np.zeros((n, self._n_values)), np.zeros(n)
        for tree, rows in zip(self.estimators_, self._out_of_bag_rows(n)):
            if rows.size:
                total[rows] += tree.tree_.predict(Xe[rows])
                seen[rows] += 1
        has = seen > 0
        if not has.any():
            raise ValueError("no sample was out of bag: oob_score needs more estimators.")
        if not has.all():
            warnings.warn(
                f"Some inputs do not have OOB scores. This probably means too few "
                f"trees were used to compute any reliable OOB estimates "
                f"({int((~has).sum())} of {n} rows were in every sample).",
                UserWarning,
            )
        avg = np.full_like(total, np.nan)
        avg[has] = total[has] / seen[has, None]
        blocks = np.split(avg, np.cumsum(self.n_classes_)[:-1], axis=1)
        out = np.full((n, int(np.max(self.n_classes_)), len(blocks)), np.nan)
        for k, b in enumerate(blocks):
            out[:, : b.shape[1], k] = b
        self.oob_decision_function_ = out
        pred = np.column_stack([np.argmax(b[has], axis=1) for b in blocks])
        # scikit-learn's: accuracy_score of the (n, n_outputs) codes, the fraction of
        # rows with every output right (as ClassifierMixin.score on a multi-output y)
        scorer = self.oob_score if callable(self.oob_score) else accuracy_score
        self.oob_score_ = float(scorer(y[has], pred))

    def _sample_counts(self):
        """Each tree's draw counts, drawn again from the tree's seed (they are not
        stored); every row once without bootstrap."""
        if not hasattr(self, "_bootstrap_draws"):
            raise AttributeError(
                "estimators_samples_ is unknown for this forest: its trees' sample sizes "
                "were not kept (a model file of format version 1, or a forest grown on a "
                "Dask cluster, each tree from the rows of one worker)."
            )
        for tree, (n, n_draws) in zip(self.estimators_, self._bootstrap_draws):
            if n_draws == 0:
                yield np.ones(n, np.uint8)
                continue
            counts = np.empty(n)
            bootstrap_weights(
                int(tree.random_state),
                int(n_draws),
                _UNIT,
                counts,
                np.empty((n + 7) // 8, np.uint8),
            )
            yield counts.astype(np.intp)

    @property
    def feature_importances_(self) -> Float64Array:
        """Mean over the trees of each tree's normalised impurity-decrease importances."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "estimators_")
        imp = np.mean([t.tree_.compute_feature_importances() for t in self.estimators_], axis=0)
        s = imp.sum()
        return imp / s if s > 0 else imp

    def apply(self, X: MatrixLike) -> NDArray[np.int64]:
        """Leaf index of each sample in each tree, shape (n_samples, n_estimators)."""
        Xe = self._encoded(X)
        return np.column_stack([t.tree_.apply(Xe) for t in self.estimators_])

    def decision_path(self, X: MatrixLike) -> tuple[sparse.csr_matrix, NDArray[np.int64]]:
        """The nodes each sample goes through, in every tree.

        Returns
        -------
        indicator : sparse CSR matrix of shape (n_samples, n_nodes)
            Entry ``(i, j)`` is 1 when sample ``i`` goes through node ``j``; the nodes of
            tree ``k`` are the columns ``n_nodes_ptr[k]:n_nodes_ptr[k + 1]``.
        n_nodes_ptr : ndarray of shape (n_estimators + 1,)
        """
        Xe = self._encoded(X)
        paths = [t.tree_.decision_path(Xe) for t in self.estimators_]
        n_nodes_ptr = np.cumsum([0] + [p.shape[1] for p in paths])
        return sparse.hstack(paths, format="csr"), n_nodes_ptr

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = ("_oob_bits", "_bootstrap_draws")

    def _sum_members(self, Xe, n_outputs):
        """Sum of the members' predictions (class probabilities or values), shape
        (n_samples, n_outputs), each row's sum taken in the order of the trees.

        A dense X is walked by the trees packed into one
        :class:`~treeboost.engine.PackedForest` (built on the first prediction, kept
        until the trees change): blocks of rows on numba's threads, each block through
        every tree while its rows stay in a core's cache, with no Python between the
        trees.  A forest with a categorical split adds its trees one at a time, each on
        numba's threads.

        A sparse X is not densified: each tree walks its CSR rows on numba's threads
        (:mod:`~treeboost.engine.predict.csr_rows`), a row's value found among its stored
        columns.  The sums are those of the dense X.
        """
        members = list(self.estimators_)
        trees = tuple(est.tree_ for est in members)
        # on the threads its rows x trees feed and other busy processes leave free (a
        # few hundred rows: one; the trees one at a time make a region each)
        with CoreShare.for_prediction(Xe.shape[0] * len(trees)):
            return self._sum_into(Xe, members, trees, np.zeros((Xe.shape[0], n_outputs)))

    def _sum_into(self, Xe, members, trees, total):
        """:meth:`_sum_members` into ``total``, inside its :class:`CoreShare`."""
        if sparse.issparse(Xe):
            # each tree walks the CSR rows on numba's threads, the structure checked once
            csr = prepared_csr(Xe)
            for tree in trees:
                tree.add_predictions(csr, total)
            return total
        packed = self._packed_forest(members, trees)
        if packed is not None:
            return packed.add_predictions(Xe, total)
        for tree in trees:
            tree.add_predictions(Xe, total)
        return total

    def _packed_forest(self, members, trees=None):
        """The :class:`~treeboost.engine.PackedForest` of ``trees``, the trees of
        ``members`` (fitted CART estimators; taken from them when None), kept between
        predictions and keyed on the trees
        themselves (a refit or a warm start never reuses the packing of other trees);
        None where a tree cannot be packed.

        It is kept beside the members (:data:`_PACKED`, under the first one), not in the
        forest: a prediction leaves the estimator as it was, each public method runs on
        a view of the estimator's state (:mod:`treeboost._atomic`), and a fit does not
        spend its time packing trees that may never predict.  The packing holds the
        trees' arrays, not the members, so it goes with them."""
        if not members:
            return None
        if trees is None:
            trees = tuple(m.tree_ for m in members)
        kept = _PACKED.get(members[0])
        if kept is None or len(kept[0]) != len(trees) or not all(map(is_, kept[0], trees)):
            kept = (trees, PackedForest.of(list(trees)))
            _PACKED[members[0]] = kept
        return kept[1]

    #: the (rows, draws) of each member's sample; absent from a version-1 file
    _state_spec = {
        "_oob_bits": list_of(
            array("uint8", ndim=1), "n_members", "must hold one uint8 array per tree."
        ),
        "_bootstrap_draws": array("int64", ("n_members", 2), low=0, optional=True),
    }

    def _validate_state(self, where="model", **context):
        """Check a loaded forest: members are CART trees of its kind on its encoded input
        (their ``tree_`` is read directly), ``_oob_bits`` one packed mask per tree and
        ``_bootstrap_draws`` the (rows, draws) of each tree's sample, at most as many
        draws as rows (``estimators_samples_`` draws them again)."""
        super()._validate_state(where, **context)
        if not self._validate_ensemble(where, required=("bin_mapper_", "_oob_bits")):
            return
        cls = DecisionTreeClassifier if is_classifier(self) else DecisionTreeRegressor
        members = self.estimators_
        for i, m in enumerate(members):
            w = f"{where}.estimators_[{i}]"
            if type(m) is not cls or "tree_" not in vars(m):
                raise ValueError(f"{w}: not a fitted {cls.__name__}.")
            self._check_same_input(m, w)
            if m.bin_mapper_ is not self.bin_mapper_:
                raise ValueError(f"{w}.bin_mapper_: must be the forest's.")
        if not is_classifier(self):
            self._check_output_bound(where, [m.tree_ for m in members])
        checked = check_state(self, where, self._state_spec, {"n_members": len(members)})
        bits, draws = checked["_oob_bits"], checked["_bootstrap_draws"]
        if draws is None:
            return  # a version-1 file: it predicts; estimators_samples_ says it is unknown
        rows, n_draws = draws[:, 0], draws[:, 1]
        if (
            np.any(rows < 1)
            or np.any(n_draws > rows)
            or any(b.size != (r + 7) // 8 for b, r in zip(bits, rows.tolist()))
        ):
            raise ValueError(
                f"{where}._bootstrap_draws: must hold (rows, draws) per tree, "
                f"at most as many draws as rows, the rows matching the tree's "
                f"out-of-bag mask."
            )
        for i, m in enumerate(members):
            seed = m.random_state
            if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
                raise ValueError(
                    f"{where}.estimators_[{i}].random_state: the seed of the "
                    f"tree's sample must be an integer >= 0, got {seed!r:.40}."
                )


if TYPE_CHECKING:
    # to the type checker, the mixins are the forests they are mixed into
    _ForestBase = BaseForest
else:
    _ForestBase = object


class _ForestClassifierMixin(_ForestBase):
    """What a forest of classification trees adds to :class:`BaseForest`."""

    _parameter_constraints = {
        **BaseForest._parameter_constraints,
        "criterion": [StrOptions(set(CLASSIFICATION_CRITERIA))],
        "class_weight": [dict, StrOptions({"balanced", "balanced_subsample"}), None],
    }

    def _multi_output(self):
        return isinstance(getattr(self, "classes_", None), list)

    def _labels_of(self, codes):
        """The class labels of codes of shape (n,) or (n, n_outputs)."""
        codes = np.asarray(codes, dtype=np.intp)
        if codes.ndim == 1:
            return self.classes_[codes]
        return np.column_stack([c[codes[:, k]] for k, c in enumerate(self.classes_)])

    @property
    def _n_values(self):
        """Value columns of a tree: the classes, of every output for several."""
        return int(np.sum(self.n_classes_))

    def _class_weights(self, labels, sample_weight):
        """Each row's class weight (None for none, or for ``"balanced_subsample"`` with
        bootstrap, which the trees weigh on their own samples), as scikit-learn 1.9's
        forests: ``"balanced"`` (and ``"balanced_subsample"`` without bootstrap) gives
        class ``c`` the weight ``W / (n_classes W_c)`` with ``W_c`` the sample weight of
        its rows.  ``labels`` are the class labels, of shape (n,) or (n, n_outputs)."""
        cw = self.class_weight
        if cw is None or (cw == "balanced_subsample" and self.bootstrap):
            return None
        if isinstance(cw, str):
            y2 = labels.reshape(labels.shape[0], -1)
            cw = []
            for k in range(y2.shape[1]):
                classes_k = np.unique(y2[:, k])
                weights = compute_class_weight(
                    "balanced", classes=classes_k, y=y2[:, k], sample_weight=sample_weight
                )
                cw.append(dict(zip(classes_k.tolist(), weights)))
            cw = cw[0] if labels.ndim == 1 else cw
        return compute_sample_weight(cw, labels)

    def _validate_y_class_weight(self, y, sample_weight=None):
        """scikit-learn's private step of its forests' fit, under its name (its tests call
        it): ``(y, expanded_class_weight)`` for ``y`` of shape (n, n_outputs); sets
        ``classes_``."""
        y = np.asarray(y)
        labels = y[:, 0] if y.ndim == 2 and y.shape[1] == 1 else y
        self.classes_ = (
            np.unique(labels)
            if labels.ndim == 1
            else [np.unique(labels[:, k]) for k in range(labels.shape[1])]
        )
        return y, self._class_weights(labels, sample_weight)

    def _stats(self, y, weights):
        if y.ndim == 2:
            onehot = np.zeros((y.shape[0], self._n_values))
            offsets = np.r_[0, np.cumsum(self.n_classes_)[:-1]]
            rows = np.arange(y.shape[0])
            for k in range(y.shape[1]):
                onehot[rows, offsets[k] + y[:, k]] = 1.0
            return SampleStatistics.regression_outputs(onehot, weights)
        return SampleStatistics.classes(y, weights, self.n_classes_)

    def predict_proba(self, X: MatrixLike) -> Float64Array | list[Float64Array]:
        """Mean of the trees' class probabilities (a list of one array per output for a
        multi-output ``y``)."""
        Xe = self._encoded(X)
        proba = self._sum_members(Xe, self._n_values) / len(self.estimators_)
        if not self._multi_output():
            return proba
        return np.split(proba, np.cumsum(self.n_classes_)[:-1], axis=1)

    def predict_log_proba(self, X: MatrixLike) -> Float64Array | list[Float64Array]:
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return [np.log(p) for p in proba] if isinstance(proba, list) else np.log(proba)

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        proba = self.predict_proba(X)
        if isinstance(proba, list):
            return np.column_stack([c[np.argmax(p, axis=1)] for c, p in zip(self.classes_, proba)])
        return self.classes_[np.argmax(proba, axis=1)]


class _ForestRegressorMixin(_ForestBase):
    """What a forest of regression trees adds to :class:`BaseForest`."""

    _parameter_constraints = {
        **BaseForest._parameter_constraints,
        "criterion": [StrOptions(set(REGRESSION_CRITERIA))],
    }

    def _stats(self, y, weights):
        if y.ndim == 2:
            return SampleStatistics.regression_outputs(y, weights)
        return SampleStatistics.regression(y, weights)

    @property
    def n_outputs_(self) -> int:
        """Outputs of ``y`` (columns of ``predict``'s result when above 1)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "estimators_")
        return self.estimators_[0].tree_.n_outputs

    def predict(self, X: MatrixLike) -> Float64Array:
        """Mean of the trees' predictions, shape (n_samples,) or (n_samples, n_outputs)
        for a multi-output ``y``."""
        Xe = self._encoded(X)
        k = self.n_outputs_
        out = self._sum_members(Xe, k) / len(self.estimators_)
        return out[:, 0] if k == 1 else out


_DOC = """
    Parameters
    ----------
    n_estimators : int, default=100
    criterion : str
        As the CART estimators: ``"gini"``, ``"entropy"`` (``"log_loss"``),
        ``"gain_ratio"`` for classification (see :class:`~treeboost.DecisionTreeClassifier`);
        ``"squared_error"``, ``"friedman_mse"``, ``"poisson"``, ``"absolute_error"`` for
        regression, each with its formula in :class:`~treeboost.DecisionTreeRegressor`.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
    max_leaf_nodes, min_impurity_decrease, categorical_features, ccp_alpha,
    monotonic_cst, min_samples_per_category, cat_smooth
        As in :class:`~treeboost.DecisionTreeClassifier`, for every tree (each tree is
        pruned with ``ccp_alpha`` on its own bootstrap sample; the mean of trees that
        each respect ``monotonic_cst`` respects it).
    max_bins : int, None or "auto", default="auto"
        The bins of X, learned once and shared by every tree, as in
        :class:`~treeboost.DecisionTreeClassifier`: ``"auto"`` gives a feature of at most
        16,384 distinct values one bin per value (the thresholds of scikit-learn's exact
        trees; Extra-Trees' cuts drawn between the node's training values) and a feature
        of more 255 quantile bins.  Its cost: with a feature of more than 255 and at
        most 16,384 distinct values the codes take two bytes, about 2.5x the fit time of
        ``max_bins=255`` on 10,000 rows of 40 continuous features; none where every
        feature has at most 255 or more than 16,384 distinct values.  ``max_bins=255``
        is the fastest (the default before ``"auto"``).
    max_features : int, float, {"sqrt", "log2"} or None
        Features drawn at each node.
    bootstrap : bool
        Draw each tree's rows with replacement (as integer weights).
    oob_score : bool or callable, default=False
        Score the out-of-bag predictions in ``oob_score_``: accuracy or R², or
        ``oob_score(y, pred)`` of a callable (``pred`` the class codes
        ``argmax(oob_decision_function_)`` of a classifier, ``oob_prediction_`` of a
        regressor; ``y`` the training targets, class codes for a classifier), as in
        scikit-learn.
    n_jobs : int, default=None
        Trees fitted in parallel on threads (``-1``: all cores); see
        :mod:`treeboost.ensembles._parallel`.  Prediction runs on numba's threads
        (every core unless ``NUMBA_NUM_THREADS`` or :func:`numba.set_num_threads` says
        otherwise), blocks of rows through every tree.
    random_state : int, RandomState instance or None
        Draws one seed per tree up front: the same model whatever ``n_jobs``.
    verbose : int, default=0
        joblib's progress messages.
    warm_start : bool, default=False
        Add trees to the fitted ones.
    max_samples : int, float or None
        Rows drawn per bootstrap sample (all by default).

    Attributes
    ----------
    estimators_ : list of fitted trees (each can predict on raw X alone)
    feature_importances_ : ndarray
    oob_score_, oob_decision_function_ / oob_prediction_ : with ``oob_score=True``
    bin_mapper_ : BinMapper shared by every tree
"""


class RandomForestClassifier(_ForestClassifierMixin, ClassifierMixin, BaseForest):
    __doc__ = (
        """A random forest of CART classification trees on shared bins.

    class_weight : dict, "balanced", "balanced_subsample" or None
        "balanced_subsample" reweights the classes within each bootstrap sample.
    """
        + _DOC
    )

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: ClassificationCriterion = "gini",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = "sqrt",
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = True,
        oob_score: OobScore = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        verbose: int = 0,
        warm_start: bool = False,
        class_weight: ForestClassWeight = None,
        max_samples: int | float | None = None,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())


class RandomForestRegressor(_ForestRegressorMixin, RegressorMixin, BaseForest):
    __doc__ = "A random forest of CART regression trees on shared bins.\n" + _DOC

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: RegressionCriterion = "squared_error",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = 1.0,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = True,
        oob_score: OobScore = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        verbose: int = 0,
        warm_start: bool = False,
        max_samples: int | float | None = None,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())
        self.criterion = deprecated_criterion(criterion)


class ExtraTreesClassifier(_ForestClassifierMixin, ClassifierMixin, BaseForest):
    __doc__ = (
        """Extremely randomized trees: a random cut per sampled feature, all rows by
    default (``bootstrap=False``).

    A sibling of :class:`RandomForestClassifier`, not a kind of it (as in scikit-learn):
    the two differ only in their splitter and their default ``bootstrap``."""
        + _DOC
    )
    _splitter = "random"

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: ClassificationCriterion = "gini",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = "sqrt",
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = False,
        oob_score: OobScore = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        verbose: int = 0,
        warm_start: bool = False,
        class_weight: ForestClassWeight = None,
        max_samples: int | float | None = None,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())


class ExtraTreesRegressor(_ForestRegressorMixin, RegressorMixin, BaseForest):
    __doc__ = (
        """Extremely randomized regression trees (``bootstrap=False`` by default).

    A sibling of :class:`RandomForestRegressor`, not a kind of it (as in scikit-learn)."""
        + _DOC
    )
    _splitter = "random"

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: RegressionCriterion = "squared_error",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = 1.0,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = False,
        oob_score: OobScore = False,
        n_jobs: int | None = None,
        random_state: RandomStateLike = None,
        verbose: int = 0,
        warm_start: bool = False,
        max_samples: int | float | None = None,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())
        self.criterion = deprecated_criterion(criterion)


register(RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor)
