"""The Loss interface every gradient-boosting loss implements, and the samples of a grown
tree from which a loss sets the tree's leaf values."""

import numpy as np

from ..engine import LeafRanges
from ..engine import newton_leaf_values
from ..engine import grouped_weighted_quantile as _grouped_quantile
from ..engine import weighted_quantile as _quantile
from ..persistence._spec import check_state
from ..persistence._checks import check_attributes


def weighted_quantile(values, weights, alpha):
    """Smallest ``v`` of ``values`` whose cumulative weight reaches ``alpha`` of the total
    (the inverted empirical CDF, as scikit-learn's weighted percentile), by selection in
    a numba kernel (:func:`treeboost.engine.statistics.quantile.weighted_quantile`)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if values.ndim != 1 or values.size == 0 or weights.shape != values.shape:
        raise ValueError(
            f"weighted_quantile needs one weight per value and at least one "
            f"value, got shapes {values.shape} and {weights.shape}."
        )
    return _quantile(values, weights, float(alpha))


def grouped_weighted_quantile(groups, values, weights, alpha, n_groups):
    """:func:`weighted_quantile` of ``values`` within each group ``0..n_groups-1`` at once
    (0 for a group with no member), in one numba kernel
    (:func:`treeboost.engine.statistics.quantile.grouped_weighted_quantile`)."""
    groups = np.ascontiguousarray(groups, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=np.float64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if groups.ndim != 1 or values.shape != groups.shape or weights.shape != groups.shape:
        raise ValueError(
            f"groups, values and weights must be 1-dimensional of one length, "
            f"got shapes {groups.shape}, {values.shape}, {weights.shape}."
        )
    if groups.size and (groups.min() < 0 or groups.max() >= n_groups):
        raise ValueError(f"groups must lie in [0, {n_groups}).")
    return _grouped_quantile(groups, values, weights, float(alpha), int(n_groups))


class LeafSamples:
    """The training samples of one freshly grown tree, from which a loss sets the value of
    every node (:meth:`Loss.leaf_values`).

    The per-sample arrays cover every training row; the tree was grown on ``rows`` only
    (the rows of positive weight, or the iteration's subsample), and the accessors index
    them on demand, so that a loss pays only for what it reads.

    Parameters
    ----------
    node : ndarray of int of shape (n_rows,) or None
        The leaf (node id) of each row of ``rows``; None to take it from
        ``leaf_of_sample`` when a loss first reads it (the Newton step of a tree grown on
        the second-order gain never does).
    n_nodes : int
        Number of nodes of the tree.
    rows : ndarray of int of shape (n_rows,)
    y : ndarray of shape (n_samples,)
        The (encoded) target.
    raw : ndarray of shape (n_samples,)
        The raw scores of the output the tree fits, before the tree is added.
    sample_weight, gradient, hessian : ndarray of shape (n_samples,)
        ``gradient`` and ``hessian`` of the output the tree fits.
    l2_regularization : float
        The ``lambda`` of the Newton step.
    node_newton : ndarray of shape (n_nodes,) or None, default=None
        The grower's node values when they already are the Newton step (trees grown on the
        second-order gain); computed from the samples when None.
    leaf_of_sample : ndarray of int of shape (n_samples,) or LeafRanges, optional
        The leaf of every training row (indexed by ``rows``), read when ``node`` is
        None; the grower's :class:`~treeboost.engine.grow.leaf_ranges.LeafRanges` makes the
        array only then.
    output : int, default=0
        The output (lane) the tree fits, for a loss of several outputs whose leaf values
        differ by output (:class:`~treeboost.losses.quantile.MultiQuantileLoss`).
    l1_regularization : float, default=0.0
        The ``alpha`` of the Newton step: the L1 threshold of the gradient sums
        (:func:`~treeboost.engine.split.criteria.l1_threshold`).
    """

    __slots__ = (
        "output",
        "_node",
        "_leaf_of_sample",
        "n_nodes",
        "rows",
        "y",
        "raw",
        "sample_weight",
        "gradient",
        "hessian",
        "l2_regularization",
        "l1_regularization",
        "_newton",
    )

    def __init__(
        self,
        node,
        n_nodes,
        rows,
        y,
        raw,
        sample_weight,
        gradient,
        hessian,
        l2_regularization,
        node_newton=None,
        leaf_of_sample=None,
        output=0,
        l1_regularization=0.0,
    ):
        if node is None and leaf_of_sample is None:
            raise ValueError("LeafSamples needs node or leaf_of_sample.")
        self._node = node
        self._leaf_of_sample = leaf_of_sample
        self.n_nodes = n_nodes
        self.rows = rows
        self.y = y
        self.raw = raw
        self.sample_weight = sample_weight
        self.gradient = gradient
        self.hessian = hessian
        self.l2_regularization = l2_regularization
        self.l1_regularization = l1_regularization
        self._newton = node_newton
        self.output = output

    @property
    def node(self):
        """The leaf (node id) of each row of ``rows``."""
        if self._node is None:
            self._node = self._leaf_of_sample[self.rows]
        return self._node

    def newton_step(self):
        """``-T(G) / (H + lambda)`` of every node, ``G = sum w g`` and ``H = sum w h``
        over its samples, ``T(G) = sign(G) max(|G| - alpha, 0)`` (the grower's
        :func:`~treeboost.engine.split.criteria.newton_leaf_value`; 0 where ``H + lambda`` is
        0: internal nodes hold no sample of ``node`` and their value is never used)."""
        if self._newton is None:
            w = self.sample_weight[self.rows]
            G = np.bincount(self.node, weights=w * self.gradient[self.rows], minlength=self.n_nodes)
            H = np.bincount(self.node, weights=w * self.hessian[self.rows], minlength=self.n_nodes)
            self._newton = newton_leaf_values(
                G, H, float(self.l1_regularization), float(self.l2_regularization)
            )
        return self._newton

    def residual_quantiles(self, alpha):
        """The weighted ``alpha``-quantile of the residuals ``y - raw`` of each node's
        rows (0 for a node without any): from the grown tree's leaf ranges when it has
        them (the leaves shared among threads, no per-row leaf array), else grouped by
        :attr:`node`; both give the same values."""
        ranges = self._leaf_of_sample
        if isinstance(ranges, LeafRanges):
            return ranges.residual_quantiles(
                self.y, self.raw, self.sample_weight, alpha, self.n_nodes
            )
        return grouped_weighted_quantile(
            self.node, self.residual(), self.weight(), alpha, self.n_nodes
        )

    def residual(self):
        """``y - raw`` of the rows."""
        return self.y[self.rows] - self.raw[self.rows]

    def weight(self):
        """``sample_weight`` of the rows."""
        return self.sample_weight[self.rows]


class Loss:
    """A differentiable loss ``L(y, F)`` of a raw score ``F``.

    Gradient boosting fits each tree to the negative gradient ``-dL/dF`` (or, with the
    second-order gain, to ``(g, h) = (dL/dF, d2L/dF2)``), then sets each leaf to the
    value that minimises the loss of its samples, as the table of the module lists.
    Everything the booster does differently for one loss is a method or an attribute
    here, so that the booster never asks which loss it holds.

    ``raw`` is of shape (n_samples,) for a loss of one output, (n_samples, n_outputs)
    otherwise.

    This is the public base class of a user's own loss: pass an instance as ``loss=``
    to any booster.  A subclass defines :meth:`pointwise` (``L(y_i, F_i)``),
    :meth:`gradient_hessian` (``dL/dF`` and ``d2L/dF2`` per row) and :meth:`init_raw`
    (the best constant ``F0``), and, when it differs from the defaults, ``name``,
    ``metric_name``, :meth:`link` / :meth:`predict` (a regressor's inverse link),
    ``proba`` (a classifier's, with ``is_classification = True`` and ``n_outputs``),
    :meth:`start_iteration`, ``leaf_scale`` or :meth:`leaf_values` (the Newton step
    ``-sum_leaf w g / (sum_leaf w h + lambda)`` by default).  The gradients and hessians
    of a loss that is not treeboost's own are checked every iteration (shape, finite,
    hessian >= 0: :func:`treeboost.losses.custom.check_gradient_hessian`).  A model
    trained with one pickles when the class is importable; treeboost's safe model
    format (:func:`treeboost.save`) loads it once the class is registered with
    :func:`treeboost.persistence.register` (it then needs ``_validate_state``, which it
    inherits).

    Attributes
    ----------
    name : str
        The estimators' ``loss`` parameter that selects this loss.
    metric_name : str
        The name of the loss in the verbose trace (LightGBM's metric names).
    is_classification : bool
    n_outputs : int
        Raw scores per sample, hence trees per boosting iteration.
    leaf_scale : float
        Factor of the Newton step in :meth:`leaf_values` (1).
    score_scale : float
        Factor by which scikit-learn's ``GradientBoosting*`` report this loss in
        ``train_score_`` (1; 2 where scikit-learn reports twice the loss: the squared
        error rather than half of it, the binomial deviance rather than the log-loss).
    init_quantile : float or None
        ``alpha`` when the initial score is the weighted ``alpha``-quantile of y and
        the leaf values are quantiles of the leaves' residuals (the data-parallel
        trainer then selects them across its workers); None otherwise.
    """

    name = None
    metric_name = None
    is_classification = False
    n_outputs = 1
    leaf_scale = 1.0
    score_scale = 1.0
    init_quantile = None
    #: whether :meth:`__call__` gives the loss's value (a callable objective gives only
    #: its derivatives: its training scores are NaN)
    has_value = True
    #: whether :meth:`gradient_hessian` checks its own output (a callable objective's
    #: does); the booster checks the others' (a no-op for treeboost's own losses)
    checks_own_gradients = False

    @property
    def display_name(self):
        """The loss as errors name it: ``name``, or the class's name."""
        return self.name or type(self).__name__

    #: a numba kernel ``(y, raw, w, g, h) -> sum_i w_i L(y_i, F_i) / sum_i w_i`` that
    #: writes the gradient and hessian into ``g`` and ``h`` in the same pass (``y`` the
    #: class codes as given), or None: :meth:`loss_gradient_hessian` then makes two
    #: passes.  Set only by losses whose :meth:`gradient_hessian` reads ``y`` and ``raw``
    #: alone (no parameter that :meth:`start_iteration` re-estimates).
    loss_gradient_kernel = None
    #: the loss's parameters the kernel takes after ``h`` (the quantile's ``alpha``)
    kernel_parameters = ()

    @property
    def gradient_carries(self):
        """Whether :meth:`loss_gradient_hessian` makes one pass
        (:attr:`loss_gradient_kernel`): the booster then takes an iteration's gradients
        from the pass that gave the training loss of the iteration before."""
        return self.loss_gradient_kernel is not None

    def __call__(self, y, raw, sample_weight=None):
        """Weighted mean loss ``sum_i w_i L(y_i, F_i) / sum_i w_i`` (unit weights when
        ``sample_weight`` is None)."""
        return float(np.average(self.pointwise(y, raw), weights=sample_weight))

    def pointwise(self, y, raw):
        """``L(y_i, F_i)`` of every sample."""
        raise NotImplementedError

    def gradient_hessian(self, y, raw):
        """``(g, h)``: first and second derivative of the loss in ``raw``, per sample
        (``raw``'s shape)."""
        raise NotImplementedError

    def loss_gradient_hessian(self, y, raw, sample_weight, out=None):
        """``(loss, g, h)``: the weighted mean loss of ``raw`` (as :meth:`__call__`) and
        its gradient and hessian (as :meth:`gradient_hessian`).  Losses that set
        :attr:`gradient_carries` compute them in one pass, into ``out`` (arrays
        ``(g, h)`` of ``raw``'s shape) when given; this default makes two passes and new
        arrays."""
        if self.loss_gradient_kernel is None:
            g, h = self.gradient_hessian(y, raw)
            return self(y, raw, sample_weight), g, h
        raw = np.ascontiguousarray(raw, dtype=np.float64)
        # out: a booster's arrays, reused every iteration (no fresh pages to clear); y as
        # given (the class codes): no float copy of it every iteration
        g, h = (np.empty_like(raw), np.empty_like(raw)) if out is None else out
        value = self.loss_gradient_kernel(
            np.ascontiguousarray(y),
            raw,
            np.ascontiguousarray(sample_weight, dtype=np.float64),
            g,
            h,
            *self.kernel_parameters,
        )
        return float(value), g, h

    def init_raw(self, y, sample_weight):
        """The constant raw score (one per output) that minimises the weighted loss."""
        raise NotImplementedError

    def link(self, predictions):
        """Raw scores from an initial estimator's predictions: its ``predict`` as they
        are for a regression loss; a classification loss maps ``predict_proba`` through
        its link (the inverse of :meth:`proba`)."""
        return np.asarray(predictions, dtype=np.float64)

    @staticmethod
    def predict(raw):
        """A regressor's prediction from its raw scores: the raw scores themselves (the
        identity link) unless a loss has another link (``exp`` for Poisson and Gamma)."""
        return raw

    @staticmethod
    def check_target(y):
        """A regression target as the loss requires it (any finite y by default);
        raises ValueError otherwise."""
        return y

    def start_iteration(self, y, raw, sample_weight):
        """Called at the start of every boosting iteration, before :meth:`gradient_hessian`,
        with the current raw scores: a loss whose parameters follow the fit re-estimates
        them here.  Does nothing by default."""

    def leaf_values(self, samples):
        """Value of every node of a grown tree from the samples of its leaves.

        The default is the scaled Newton step ``leaf_scale * -G / (H + lambda)``; losses
        whose optimum in a leaf is not the Newton step (absolute error, Huber, quantile)
        override this.

        Parameters
        ----------
        samples : LeafSamples

        Returns
        -------
        ndarray of shape (samples.n_nodes,)
            Values of the leaves (the values of internal nodes are never used), before
            the learning rate.
        """
        if self.leaf_scale == 1.0:
            return samples.newton_step().copy()
        return self.leaf_scale * samples.newton_step()

    # -- the state read from a model file ---------------------------------------------------

    #: the attributes an instance saves: its parameters (the class holds the rest)
    _persist_attributes = ()
    #: the rules of the parameters (:func:`~treeboost.persistence._spec.check_state`)
    _state_spec = {}

    def _validate_state(self, where="loss", n_outputs=None):
        """Raise ValueError unless the loss has exactly its parameters, valid ones
        (``_state_spec``), and ``n_outputs`` outputs."""
        check_attributes(
            self, where, required=self._persist_attributes, allowed=self._persist_attributes
        )
        check_state(self, where, self._state_spec)
        if n_outputs is not None and self.n_outputs != n_outputs:
            raise ValueError(
                f"{where}: {type(self).__name__} has {self.n_outputs!r:.20} "
                f"output(s), the model {n_outputs}."
            )


class LogLinkLoss(Loss):
    """A loss of a positive mean on the log link (Poisson, gamma, Tweedie): the raw score
    is ``F = log(mu)``, the prediction ``exp(F)``, and the initial score the log of the
    weighted mean of ``y``."""

    def init_raw(self, y, sample_weight):
        return float(np.log(np.average(y, weights=sample_weight)))

    def link(self, predictions):
        """``log(mu)`` of an initial estimator's predictions, clipped away from 0."""
        return np.log(np.maximum(np.asarray(predictions, dtype=np.float64), 1e-300))

    @staticmethod
    def predict(raw):
        return np.exp(raw)


class CompiledLoss(Loss):
    """A loss whose per-row values and gradients are compiled kernels:
    ``pointwise_kernel(y, raw, out)`` writes ``L(y_i, F_i)`` into ``out`` of shape
    (n_samples,), ``gradient_kernel(y, raw, g, h)`` the gradient and hessian into arrays
    of ``raw``'s shape; ``y`` is passed contiguous as ``target_dtype``, ``raw`` as
    float64."""

    pointwise_kernel = None
    gradient_kernel = None
    target_dtype = np.float64

    def pointwise(self, y, raw):
        raw = np.ascontiguousarray(raw, dtype=np.float64)
        out = np.empty(raw.shape[0])
        self.pointwise_kernel(np.ascontiguousarray(y, dtype=self.target_dtype), raw, out)
        return out

    def gradient_hessian(self, y, raw):
        raw = np.ascontiguousarray(raw, dtype=np.float64)
        g = np.empty_like(raw)
        h = np.empty_like(raw)
        self.gradient_kernel(np.ascontiguousarray(y, dtype=self.target_dtype), raw, g, h)
        return g, h
