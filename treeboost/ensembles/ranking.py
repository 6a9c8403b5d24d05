"""``HistGradientBoostingRanker``: learning to rank by histogram gradient boosting over
query groups, with LambdaMART (NDCG) or the pairwise logistic loss
(:mod:`treeboost.losses.ranking`), on HistGradientBoosting's parameters and loop."""

from __future__ import annotations

import re
from numbers import Integral, Real

import numpy as np
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _num_samples

from ..losses.ranking import LambdaRankLoss, PairwiseRankLoss
from ..metrics._groups import check_label_gain, check_relevance, query_offsets
from ..metrics.ranking import query_metric
from ..persistence import register
from ._offsets import check_offset, take_rows
from .gradient_boosting import BoostedRegressor
from .hist_gradient_boosting import _HIST_DOC, _HistGradientBoosting

#: the early-stopping metrics a ranker knows: NDCG or MAP, at k or over every document
_METRIC = re.compile(r"^(ndcg|map)(@[1-9][0-9]*)?$")


def _check_scoring(scoring):
    if scoring != "loss" and not (isinstance(scoring, str) and _METRIC.match(scoring)):
        raise ValueError(
            f"scoring of HistGradientBoostingRanker must be 'loss', 'ndcg', 'ndcg@k', "
            f"'map' or 'map@k' (k a positive integer), got {scoring!r}."
        )


def _without(doc, names):
    """``doc`` less the entries of the parameters ``names`` (the ranker's differ)."""
    for name in names:
        doc = re.sub(rf"\n    {name} : [^\n]*(\n        [^\n]*)*", "", doc)
    return doc


class HistGradientBoostingRanker(_HistGradientBoosting, BoostedRegressor):
    __doc__ = """Histogram gradient boosting for learning to rank over query groups.

    ``fit(X, y, group=sizes)`` (LightGBM's ``group``) or ``fit(X, y, qid=ids)``
    (XGBoost's ``qid``, the rows of a query contiguous); ``y`` holds integer relevance
    labels; ``predict`` gives each document's score (higher ranks first).

    Parameters
    ----------
    loss : {"lambdarank", "pairwise"}, default="lambdarank"
        LambdaMART with NDCG weights (LightGBM's ``lambdarank``) or the pairwise logistic
        loss (XGBoost's ``rank:pairwise``): :mod:`treeboost.losses.ranking`.
    lambdarank_truncation_level : int, default=30
        The pairs ``lambdarank`` weighs: those whose better-ranked document is among the
        first this many.
    label_gain : array-like or None, default=None
        Gain of each relevance label in NDCG (None: ``2**l - 1`` for ``l < 31``); the
        labels must be below its length.
    lambdarank_norm : bool, default=True
        LightGBM's normalisation of the lambdas per query.
    sigma : float, default=1.0
        Slope of the pairs' logistic (LightGBM's ``sigmoid``).
    scoring : {"ndcg@10", "ndcg", "ndcg@k", "map", "map@k", "loss"}, default="ndcg@10"
        What early stopping watches (higher is better; "loss": minus the loss).
    validation_fraction : float, int or None, default=0.1
        The share (an int: the number) of *queries* held out for early stopping, drawn
        whole; None: the training queries.
    max_leaf_nodes : int or None, default=64
        Leaves per tree, grown best-first (LightGBM's ``num_leaves``).
    max_depth : int or None, default=6
        Maximum depth of each tree (None: limited by ``max_leaf_nodes`` only).  The
        defaults ``max_depth=6``, ``max_leaf_nodes=2**6`` allow the trees of XGBoost's
        ``XGBRanker`` (depth-wise to depth 6: every node splits while its gain is
        positive) rather than LightGBM's 31 leaves; the leaves keep the Newton step
        ``-learning_rate * G / (H + l2_regularization)`` with LightGBM's
        ``learning_rate=0.1``.  With the same 100 rounds the deeper trees rank better
        (the guide's "Defaults" gives the numbers)""" + _without(
        _HIST_DOC, ("scoring", "validation_fraction", "subsample", "max_leaf_nodes", "max_depth")
    )

    _parameter_constraints = {
        **_HistGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"lambdarank", "pairwise"})],
        "lambdarank_truncation_level": [Interval(Integral, 1, None, closed="left")],
        "label_gain": ["array-like", None],
        "lambdarank_norm": ["boolean"],
        "sigma": [Interval(Real, 0.0, None, closed="neither")],
        "scoring": [str],
    }

    def __init__(
        self,
        loss="lambdarank",
        *,
        lambdarank_truncation_level=30,
        label_gain=None,
        lambdarank_norm=True,
        sigma=1.0,
        learning_rate=0.1,
        max_iter=100,
        max_leaf_nodes=64,
        max_depth=6,
        min_samples_leaf=20,
        l2_regularization=0.0,
        reg_alpha=0.0,
        max_features=1.0,
        colsample_bytree=1.0,
        max_bins=255,
        categorical_features="from_dtype",
        monotonic_cst=None,
        interaction_cst=None,
        warm_start=False,
        early_stopping="auto",
        scoring="ndcg@10",
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-7,
        verbose=0,
        random_state=None,
        min_child_weight=1e-3,
        split_gain="hessian",
        min_split_gain=0.0,
        importance_type=None,
        n_jobs=None,
    ):
        self.loss = loss
        self.lambdarank_truncation_level = lambdarank_truncation_level
        self.label_gain = label_gain
        self.lambdarank_norm = lambdarank_norm
        self.sigma = sigma
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.reg_alpha = reg_alpha
        self.max_features = max_features
        self.colsample_bytree = colsample_bytree
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.warm_start = warm_start
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.min_child_weight = min_child_weight
        self.split_gain = split_gain
        self.min_split_gain = min_split_gain
        self.importance_type = importance_type
        self.n_jobs = n_jobs

    #: every row of every query feeds its gradients: no row subsampling (a subsample
    #: would cut queries)
    subsample = 1.0

    #: the queries of the fit in progress (bound to its loss), never saved
    _persist_transient = _HistGradientBoosting._persist_transient + ("_fit_queries",)

    # a ranker's fit takes the queries (group/qid) and no eval_set or callbacks
    def fit(  # type: ignore[override]
        self,
        X,
        y,
        sample_weight=None,
        *,
        group=None,
        qid=None,
        X_val=None,
        y_val=None,
        group_val=None,
        qid_val=None,
        sample_weight_val=None,
        init_score=None,
        init_score_val=None,
    ):
        """Fit the ranker.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of int of shape (n_samples,)
            Relevance labels 0, 1, 2, ... (below the length of ``label_gain``).
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each document's gradient and hessian (LightGBM weighs queries:
            give a query's documents one weight for the same).
        group : array-like of int, optional
            Sizes of the queries, in row order (they sum to ``n_samples``).
        qid : array-like of shape (n_samples,), optional
            The query of each row (rows of a query contiguous); ``group`` or ``qid``.
        X_val, y_val, group_val / qid_val, sample_weight_val : optional
            Validation queries for early stopping instead of ``validation_fraction``.
        init_score : array-like of shape (n_samples,), default=None
            Per-document offsets of the score (LightGBM's ``init_score``): the fit
            boosts ``init_score_i + sum_t f_t(x_i)``; ``predict`` gives ``sum_t f_t(x)``
            (add the offsets back to rank).  The held-out queries keep theirs.
        init_score_val : array-like of shape (n_val_samples,), default=None
            The offsets of ``X_val``.

        Returns
        -------
        self
        """
        self._validate_params()
        _check_scoring(self.scoring)
        gain = check_label_gain(self.label_gain)
        n = _num_samples(X)
        offsets = query_offsets(n, group, qid)
        labels = check_relevance(y, gain.size)
        validation = None
        if X_val is not None or y_val is not None:
            if X_val is None or y_val is None:
                raise ValueError("X_val and y_val must be given together.")
            if self.early_stopping is False:
                raise ValueError("X_val and y_val need early_stopping 'auto' or True.")
            val_labels = check_relevance(y_val, gain.size, "y_val")
            val_offsets = query_offsets(val_labels.shape[0], group_val, qid_val, suffix="_val")
            validation = (X_val, val_labels, sample_weight_val, val_offsets, init_score_val)
        elif init_score_val is not None:
            raise ValueError("init_score_val is given without X_val.")
        elif self._plan().early_stopping(n) and self.validation_fraction is not None:
            init_score = check_offset(init_score, n, 1)
            X, labels, sample_weight, offsets, validation, init_score = self._split_queries(
                X, labels, sample_weight, offsets, init_score
            )
        self._fit_queries = {"train": offsets, "val": None if validation is None else validation[3]}
        try:
            self._fit(
                X,
                labels,
                sample_weight,
                validation=None if validation is None else (*validation[:3], validation[4]),
                init_score=init_score,
            )
        finally:
            queries = self.__dict__.pop("_fit_queries")
            if "loss" in queries:
                queries["loss"].__dict__.pop("_bound", None)
        return self

    def _split_queries(self, X, labels, sample_weight, offsets, init_score=None):
        """Hold out ``validation_fraction`` of the queries, whole (and their rows'
        offsets ``init_score``)."""
        n_queries = offsets.shape[0] - 1
        frac = self.validation_fraction
        n_val = int(frac) if isinstance(frac, Integral) else int(np.ceil(frac * n_queries))
        if n_queries < 2 or not 1 <= n_val < n_queries:
            raise ValueError(
                f"Early stopping holds out whole queries: validation_fraction="
                f"{frac!r} leaves no training or no validation query of {n_queries}; "
                f"pass X_val/y_val with group_val, or early_stopping=False."
            )
        rng = check_random_state(self.random_state)
        held = np.zeros(n_queries, dtype=bool)
        held[rng.permutation(n_queries)[:n_val]] = True
        sizes = np.diff(offsets)
        row_held = np.repeat(held, sizes)
        train, val = np.flatnonzero(~row_held), np.flatnonzero(row_held)
        w = None if sample_weight is None else np.asarray(sample_weight)
        part = (
            _safe_indexing(X, val),
            labels[val],
            None if w is None else w[val],
            np.concatenate([[0], np.cumsum(sizes[held])]).astype(np.int64),
            take_rows(init_score, val),
        )
        train_offsets = np.concatenate([[0], np.cumsum(sizes[~held])]).astype(np.int64)
        return (
            _safe_indexing(X, train),
            labels[train],
            None if w is None else w[train],
            train_offsets,
            part,
            take_rows(init_score, train),
        )

    # -- the hooks of the boosting loop -----------------------------------------------------
    def _make_loss(self):
        loss: LambdaRankLoss | PairwiseRankLoss
        if self.loss == "lambdarank":
            loss = LambdaRankLoss(
                self.lambdarank_truncation_level,
                self.label_gain,
                self.sigma,
                self.lambdarank_norm,
            )
        else:
            loss = PairwiseRankLoss(self.sigma)
        queries = getattr(self, "_fit_queries", None)
        if queries is not None:
            loss.bind(queries["train_y"], queries["train"])
            queries["loss"] = loss
        return loss

    def _validate_target(self, y, n_samples, reset):
        y = check_relevance(y, check_label_gain(self.label_gain).size)
        if y.shape[0] != n_samples:
            raise ValueError(f"y has {y.shape[0]} labels for {n_samples} rows.")
        queries = getattr(self, "_fit_queries", None)
        if queries is not None:
            queries["train_y"] = y
        return y

    def _validate_validation_target(self, y, n_samples):
        y = check_relevance(y, check_label_gain(self.label_gain).size, "y_val")
        queries = getattr(self, "_fit_queries", None)
        if queries is not None:
            queries["loss"].bind(y, queries["val"])
        return y

    def _start_scores(self, data):
        """The scores before the first iteration (with early stopping only)."""
        if not data.early:
            self.train_score_, self.validation_score_ = [], []
            return
        if not len(self.train_score_):
            self.train_score_.append(self._score(data, False, None))
            if data.has_validation:
                self.validation_score_.append(self._score(data, True, None))

    def _needs_input_rows(self, plan):
        return False

    def _score(self, data, validation, loss_value):
        """The early-stopping metric (``scoring``) of the current scores."""
        rows = data.rows(validation)
        y, raw = rows.y, rows.raw
        _, offsets, labels, _ = data.loss._queries(y)
        if self.scoring == "loss":
            return -float(data.loss(y, raw[:, 0], None))
        return query_metric(
            self.scoring, labels, raw[:, 0], offsets, check_label_gain(self.label_gain)
        )

    def score(self, X, y, *, group=None, qid=None):
        """Mean NDCG@10 of the predicted scores (:func:`treeboost.metrics.ndcg_score`)."""
        from ..metrics import ndcg_score

        return ndcg_score(
            y, self.predict(X), group=group, qid=qid, k=10, label_gain=self.label_gain
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = None
        return tags


register(HistGradientBoostingRanker)
