"""Random forests grown where a Dask cluster holds the data.

The trees of a forest are independent of each other, so no histogram needs to travel:
each worker grows its share of the trees on the rows it already holds, with the
one-machine forest's fit (:class:`~treeboost.RandomForestClassifier` /
:class:`~treeboost.RandomForestRegressor`, the same parameters), and sends back only the
fitted trees. The client assembles them into one ordinary forest.

What is shared, so that the trees of every worker make one model:

* the input encoder (categories, feature names) and the bins, fitted on the client from
  a sample of every worker's rows in proportion to its rows (``subsample`` rows of
  :class:`~treeboost.engine.binning.mapper.BinMapper` in all), as the boosting trainer does;
  each worker encodes and bins its own partitions with them;
* the classes: the union of every worker's labels; a worker encodes its labels into
  them, so that the trees of a worker that lacks a class have a column for it (of
  probability 0) and every tree's columns are ``classes_``;
* the trees' seeds: the one-machine forest's (``n_estimators`` seeds drawn from
  ``random_state``), dealt out in the order of the workers' addresses;
* ``class_weight="balanced"``: computed from every worker's class weights.

Each worker's trees see only its rows: a tree's bootstrap sample is drawn from them (on
W workers of equal rows, a tree sees about what ``max_samples=1/W`` gives it on one
machine, from a fixed part of the rows). When every worker's rows are a fair sample of
the data (shuffled partitions) the forest is about as accurate as the one-machine
forest; when the labels or targets are sorted across workers it is not, and a worker
that lacks some classes says so in a warning.
"""

import time
import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.class_weight import compute_class_weight

from .._docstrings import insert_docs
from ._docs import FIT_ROWS, REGRESSION_DATA_EXAMPLE
from ..engine import BinMapper
from ..ensembles.forest import RandomForestClassifier, RandomForestRegressor
from ._boosting import _DaskHistGradientBoosting, _Shards
from ._quantiles import bin_sample
from ._collections import WorkerLostError, is_dask_collection, partition_futures, place_shards
from ._shard import BoostingShard, _concat


class _Binned:
    """A worker's rows already encoded and binned: ``codes`` of shape (n_features,
    n_samples), as the grower reads them."""

    def __init__(self, codes):
        self.codes = codes


class _GrownOnClientBins:
    """The one-machine forest's ``fit``, on one worker's rows, with what the client
    fitted for every worker: the encoder and bins (``_encoder``, ``bin_mapper_``), the
    classes (``_all_classes``) and the trees' seeds (``_tree_seeds``)."""

    def _encode_X(self, X, reset, y=None, sample_weight=None):
        if isinstance(X, _Binned):
            # only its shape is read before _bin
            return X.codes.T
        return super()._encode_X(X, reset=False)

    def _bin(self, Xe, sample_weight):
        return Xe.T

    def _seeds(self, n):
        return self._tree_seeds

    def _fit_target(self, y, n_samples, base):
        codes = super()._fit_target(y, n_samples, base)
        if is_classifier(self):
            # the codes of every worker's classes: a class absent here keeps its column
            codes = np.searchsorted(self._all_classes, self.classes_)[codes]
            self.classes_ = self._all_classes
            self.n_classes_ = self._all_classes.shape[0]
        return codes


class _WorkerForestClassifier(_GrownOnClientBins, RandomForestClassifier):
    pass


class _WorkerForestRegressor(_GrownOnClientBins, RandomForestRegressor):
    pass


class ForestShard(BoostingShard):
    """The rows of one worker (a Dask actor placed by
    :func:`~._collections.place_shards`): their summary and sample for the client, then
    the worker's share of the trees."""

    def forest_summary(self, classification):
        """The worker's address, rows, rows of positive weight and, for a classifier,
        its classes (of every row, as the one-machine forest's ``classes_``) and the
        weight of each."""
        from distributed import get_worker

        t = self.train
        classes = weights = None
        if classification and t.n:
            encoder = RandomForestClassifier()
            codes = encoder._encode_target(t.y, t.n, multi_output=False)
            classes = encoder.classes_
            weights = np.bincount(codes, weights=t.w, minlength=classes.shape[0])
        return get_worker().address, t.n, int(np.count_nonzero(t.w > 0)), classes, weights

    def grow(self, forest, weighted):
        """Fit ``forest`` (a ``_WorkerForest*`` with the client's encoder, bins, classes
        and seeds) on this worker's rows, each partition encoded and binned on its own;
        returns its trees.  ``n_jobs=None`` grows them on the worker's Dask threads."""
        t = self.train
        if forest.n_jobs is None:
            forest.n_jobs = self.n_threads
        codes = t.bin(forest)
        forest.fit(_Binned(codes), t.y, t.w if weighted else None)
        return forest.estimators_


def tree_shares(n_trees, rows):
    """Trees per worker in proportion to its ``rows`` (largest remainders, ties to the
    first worker): ``n_trees`` in all, none for a worker without rows."""
    rows = np.asarray(rows, dtype=np.float64)
    quota = n_trees * rows / rows.sum()
    shares = np.floor(quota).astype(np.int64)
    remainder = np.where(rows > 0, quota - shares, -1.0)
    order = np.argsort(-remainder, kind="stable")
    shares[order[: n_trees - int(shares.sum())]] += 1
    return shares


def _apply(X, model, method):
    return getattr(model, method)(X)


class _Heartbeats:
    """When each worker's last heartbeat reached the scheduler, as the client saw it change.

    The scheduler's ``last_seen`` of a worker is a time on the scheduler's clock; what is
    compared here is how long it has stayed the same on the client's monotonic clock, so
    that the two machines' clocks need not agree.
    """

    def __init__(self, timeout):
        self.timeout = timeout
        self._seen = {}  # address -> (scheduler's last_seen, client's time it changed)

    def check(self, workers):
        """Raise WorkerLostError naming a worker of ``workers`` (address -> the
        scheduler's record of it) whose ``last_seen`` has not changed for ``timeout``
        seconds."""
        now = time.monotonic()
        for address, info in workers.items():
            last_seen = info.get("last_seen")
            if last_seen is None:  # a scheduler that does not report it: no bound
                continue
            seen = self._seen.get(address)
            if seen is None or seen[0] != last_seen:
                self._seen[address] = (last_seen, now)
            elif now - seen[1] > self.timeout:
                raise WorkerLostError(
                    f"the worker {address} sent no heartbeat to the scheduler for "
                    f"{now - seen[1]:.0f} s while it grew its trees (heartbeat_timeout="
                    f"{self.timeout} s): its process is frozen or hung; the fit is "
                    f"abandoned."
                )


class _DaskForest:
    """The distributed fit shared by the classifier and the regressor.

    Fitted on dask collections, the model is the one-machine forest's (its
    ``estimators_``, ``bin_mapper_`` and the rest): the methods take NumPy and pandas
    input as the one-machine class does, and ``predict`` / ``predict_proba`` a dask
    collection partition by partition.
    """

    #: seconds a worker has to answer the steps before the trees (summary, sample)
    step_timeout = 120.0
    #: seconds a worker may take to grow its share of the trees (None: no limit; a worker
    #: that leaves the cluster ends the fit within ``poll`` seconds whatever this is)
    grow_timeout = None
    #: seconds a worker growing trees may go without a heartbeat reaching the scheduler
    #: before the fit is abandoned: a frozen (stopped, swapped out) or hung process.  Its
    #: heartbeats come every 0.5 to 2 s while its threads grow trees, so this bounds a
    #: fit's wait on a frozen worker whatever the size of its share, where Dask itself
    #: waits for its ``worker-ttl`` (5 minutes by default)
    heartbeat_timeout = 60.0
    #: seconds between two checks that a worker growing trees is still in the cluster
    poll = 1.0
    #: what the distributed fit records of itself (not carried to the one-machine model)
    _diagnostics = ("trees_per_worker_",)

    to_local = _DaskHistGradientBoosting.to_local
    save = _DaskHistGradientBoosting.save

    @insert_docs(fit_rows=FIT_ROWS)
    def fit(self, X, y, sample_weight=None):
        """Grow the trees on the workers that hold the rows.

        Parameters
        ----------
        {fit_rows}

        Returns
        -------
        self
        """
        from distributed import get_client

        self._check_supported()
        for name, value in (("X", X), ("y", y), ("sample_weight", sample_weight)):
            if value is not None and not is_dask_collection(value):
                raise TypeError(
                    f"{name} must be a dask array or a dask DataFrame / Series; got "
                    f"{type(value).__name__}. Fit the one-machine estimator "
                    f"(treeboost.{self._local_class.__name__}) on in-memory data."
                )
        if getattr(y, "ndim", 1) != 1:
            raise ValueError(
                f"y must be one-dimensional (one output); got {y.ndim} dimensions. "
                f"The one-machine {self._local_class.__name__} fits several outputs."
            )
        client = get_client()
        train = partition_futures(client, X, y, sample_weight)
        actors, partitions, _ = place_shards(client, train, [], ForestShard, self.step_timeout)
        shards = _Shards(actors, self.step_timeout, partitions)
        self._fit_shards(client, shards, sample_weight is not None)
        return self

    def _check_supported(self):
        self._validate_params()
        self._check_fit_params()
        refused = [
            ("oob_score", not self.oob_score, "a tree's out-of-bag rows are on every worker"),
            ("warm_start", not self.warm_start, "each fit grows every tree"),
            (
                "max_samples",
                self.max_samples is None or isinstance(self.max_samples, float),
                "each worker draws from its own rows: give a fraction of them (a float)",
            ),
        ]
        for name, ok, why in refused:
            if not ok:
                raise ValueError(
                    f"{type(self).__name__} does not support {name}={getattr(self, name)!r} "
                    f"({why}); the one-machine {self._local_class.__name__} does."
                )

    def _fit_shards(self, client, shards, weighted):
        classification = is_classifier(self)
        summaries = shards.call("forest_summary", classification)
        addresses = [s[0] for s in summaries]
        n_positive = np.array([s[2] for s in summaries], dtype=np.int64)
        if n_positive.sum() == 0:
            raise ValueError("X has no row of positive weight.")
        # the one-machine forest's seeds, dealt out in the workers' order
        seeds = self._seeds(self.n_estimators)
        shares = tree_shares(self.n_estimators, n_positive)
        classes = None
        if classification:
            classes = np.unique(np.concatenate([s[3] for s in summaries if s[3] is not None]))
            self.classes_, self.n_classes_ = classes, classes.shape[0]
        self._fit_input(shards, n_positive, seeds, classification)
        shared = {
            k: v
            for k, v in self.__dict__.items()
            if k in ("_encoder", "n_features_in_", "feature_names_in_", "bin_mapper_")
        }
        params = self.get_params()
        if classification:
            params["class_weight"] = self._global_class_weight(summaries, classes)
            self._warn_missing_classes(summaries, shares, classes)
        local_class = _WorkerForestClassifier if classification else _WorkerForestRegressor
        futures, start = [], 0
        for actor, share in zip(shards.actors, shares):
            if share == 0:
                futures.append(None)
                continue
            local = local_class(**{**params, "n_estimators": int(share)})
            local.__dict__.update(shared)
            local._tree_seeds = seeds[start : start + share]
            local._all_classes = classes
            start += share
            futures.append(shards.send(actor, "grow", local, weighted))
        trees = self._gather_trees(client, futures, addresses)
        self._drop_oob()
        self.estimators_ = [self._attach(tree) for tree in trees]
        # a tree's sample is rows of one worker, which the model cannot name: no
        # out-of-bag rows and no estimators_samples_ (_bootstrap_draws)
        self._oob_bits = [np.zeros(0, np.uint8) for _ in trees]
        self.__dict__.pop("_bootstrap_draws", None)
        self.trees_per_worker_ = {a: int(s) for a, s in zip(addresses, shares)}

    def _fit_input(self, shards, n_positive, seeds, classification):
        """The encoder and the bins, fitted as the one-machine forest fits them, on the
        rows of positive weight its BinMapper draws (:func:`~._quantiles.bin_sample`,
        seeded by ``random_state`` as the one-machine forest's): the same bin edges
        for the same int ``random_state``.
        With ``max_bins=None`` (exact bins, from every row on one machine) the client
        still takes a sample of ``BinMapper.subsample`` rows, not all of them."""
        samples = bin_sample(shards, BinMapper().subsample, self.random_state)
        X_s = _concat([s[0] for s in samples])
        y_s = _concat([s[1] for s in samples])
        w_s = np.concatenate([s[2] for s in samples])
        del samples
        Xe = self._encode_X(X_s, reset=True, y=y_s, sample_weight=w_s)
        y_s = np.searchsorted(self.classes_, np.asarray(y_s)) if classification else y_s
        self._bin(Xe, self._fit_weights(y_s, w_s, w_s)[0])

    def _global_class_weight(self, summaries, classes):
        """``class_weight``, with "balanced" (and "balanced_subsample" without bootstrap,
        which the one-machine forest reads as "balanced") computed from the class
        weights of every worker: the class weights the one-machine forest gives."""
        cw = self.class_weight
        if not (cw == "balanced" or (cw == "balanced_subsample" and not self.bootstrap)):
            return cw
        weights = np.zeros(classes.shape[0])
        for s in summaries:
            if s[3] is not None:
                weights[np.searchsorted(classes, s[3])] += s[4]
        balanced = compute_class_weight(
            "balanced", classes=classes, y=classes, sample_weight=weights
        )
        return dict(zip(classes.tolist(), balanced.tolist()))

    def _warn_missing_classes(self, summaries, shares, classes):
        for s, share in zip(summaries, shares):
            if share and s[3].shape[0] < classes.shape[0]:
                missing = np.setdiff1d(classes, s[3])
                warnings.warn(
                    f"The rows of the worker {s[0]} hold {s[3].shape[0]} of the "
                    f"{classes.shape[0]} classes: its {share} trees never predict "
                    f"{missing.tolist()[:5]}{' ...' if missing.size > 5 else ''}. Each "
                    f"worker's trees see only its rows; shuffle the rows across the "
                    f"partitions (labels sorted across partitions make a weaker forest).",
                    UserWarning,
                    stacklevel=5,
                )

    def _gather_trees(self, client, futures, addresses):
        """The trees of every worker (``futures[i]`` None: worker ``i`` grows none), in
        the workers' order.  A worker that leaves the cluster ends the fit with
        WorkerLostError within ``poll`` seconds, whichever worker it is; so does one that
        exceeds ``grow_timeout``, or whose heartbeats stop for ``heartbeat_timeout``."""
        pending = {i: f for i, f in enumerate(futures) if f is not None}
        trees = {}
        start = time.monotonic()
        heartbeats = _Heartbeats(self.heartbeat_timeout)
        while pending:
            first = next(iter(pending))
            try:
                pending[first].result(timeout=self.poll)
            except Exception:  # not finished, or failed: read below, with its worker
                pass
            for i in [i for i, f in pending.items() if f.done()]:
                trees[i] = self._trees_of(client, pending.pop(i), addresses[i])
            if not pending:
                break
            workers = client.scheduler_info().get("workers", {})
            for i in pending:
                if addresses[i] not in workers:
                    raise WorkerLostError(
                        f"the worker {addresses[i]} left the cluster while it grew its "
                        f"trees; the fit is abandoned."
                    )
            heartbeats.check({addresses[i]: workers[addresses[i]] for i in pending})
            if self.grow_timeout is not None and time.monotonic() - start > self.grow_timeout:
                raise WorkerLostError(
                    f"the workers {[addresses[i] for i in pending]} did not grow their "
                    f"trees within {self.grow_timeout} s (grow_timeout); the fit is "
                    f"abandoned."
                )
        return [tree for i in sorted(trees) for tree in trees[i]]

    @staticmethod
    def _trees_of(client, future, address):
        """The trees of a finished ``future``: a worker lost on the way (the call could
        not reach it, or it has left the cluster) gives WorkerLostError; an error of the
        fit itself is raised as it is."""
        try:
            return future.result()
        except Exception as exc:
            lost = isinstance(exc, OSError) or address not in client.scheduler_info().get(
                "workers", {}
            )
            if isinstance(exc, (ValueError, TypeError)) or not lost:
                raise  # the worker's rows were refused, or the fit failed there
            raise WorkerLostError(
                f"the worker {address} was lost while it grew its trees "
                f"({type(exc).__name__}: {exc}); the fit is abandoned."
            ) from exc

    # -- the model on a dask collection --------------------------------------------------
    def _map(self, method, X, n_columns, dtype):
        """``method`` of the one-machine model on each partition of ``X``: a dask array
        of ``n_columns`` columns (None: one dimension).  The model travels once per
        call, as one key of the graph."""
        import uuid

        import dask
        import dask.array as da
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "estimators_")
        model = dask.delayed(self.to_local(), name=f"forest-{uuid.uuid4().hex}", traverse=False)
        meta = np.empty((0,) if n_columns is None else (0, n_columns), dtype)
        if isinstance(X, da.Array):
            if X.ndim == 2 and len(X.chunks[1]) > 1:
                X = X.rechunk({1: -1})
            if n_columns is None:
                return X.map_blocks(_apply, model, method, drop_axis=1, dtype=dtype, meta=meta)
            return X.map_blocks(
                _apply, model, method, chunks=(X.chunks[0], (n_columns,)), dtype=dtype, meta=meta
            )
        return X.map_partitions(_apply, model, method, meta=meta)

    @property
    def estimators_samples_(self):
        """Not known: each tree's sample was drawn from the rows of one worker."""
        raise AttributeError(
            "estimators_samples_ is unknown for a forest grown on a Dask cluster: each "
            "tree's sample was drawn from the rows of one worker, which the model does "
            "not number."
        )


@insert_docs(regression_data=REGRESSION_DATA_EXAMPLE)
class DaskRandomForestRegressor(_DaskForest, RandomForestRegressor):
    __doc__ = """A random forest of regression trees, grown where a Dask cluster holds
    the data.

    The parameters and the model are :class:`~treeboost.RandomForestRegressor`'s. The
    ``n_estimators`` trees are dealt out to the workers that hold rows, in proportion
    to their rows of positive weight (none to a worker without rows), in the order of
    their addresses; each worker grows its trees with the one-machine forest's fit on
    its own rows (each tree a bootstrap sample of them), and only the trees travel to
    the client, which assembles them into one forest (:meth:`to_local` gives it as a
    :class:`~treeboost.RandomForestRegressor`). The input encoder and the bins come from
    a sample of every worker's rows, the trees' seeds from ``random_state`` as in the
    one-machine forest: a fixed ``random_state`` and placement of the partitions give
    the same model.

    Each tree sees one worker's rows: with the rows shuffled across the partitions the
    forest is about as accurate as the one-machine one; with them sorted by the target
    it is weaker. ``n_jobs`` is the threads each worker grows its trees on (None: its
    Dask threads); ``min_samples_*`` fractions and ``max_samples`` (a fraction) are of
    the worker's rows.

    Not supported: ``oob_score``, ``warm_start``, an integer ``max_samples``, a
    two-dimensional ``y``; ``estimators_samples_`` is unknown.

    Examples
    --------
    {regression_data}
    >>> model = DaskRandomForestRegressor(n_estimators=50).fit(X, y)  # doctest: +SKIP
    """
    _local_class = RandomForestRegressor

    def predict(self, X):
        """Predictions; a dask collection maps over its partitions and gives a dask
        array."""
        if is_dask_collection(X):
            return self._map("predict", X, None, np.float64)
        return super().predict(X)


class DaskRandomForestClassifier(_DaskForest, RandomForestClassifier):
    __doc__ = """A random forest of classification trees, grown where a Dask cluster
    holds the data.

    The parameters and the model are :class:`~treeboost.RandomForestClassifier`'s; see
    :class:`DaskRandomForestRegressor` for how the trees are grown and what is not
    supported. ``classes_`` are the labels of every worker: a worker that lacks some
    grows trees that give them probability 0 (with a warning: its rows are not a fair
    sample of the data), and every tree's ``predict_proba`` columns are ``classes_``.
    ``class_weight="balanced"`` weighs the classes by their weight on all the workers.
    """
    _local_class = RandomForestClassifier

    def predict_proba(self, X):
        """Class probabilities; a dask collection maps over its partitions and gives a
        dask array."""
        if is_dask_collection(X):
            return self._map("predict_proba", X, self.n_classes_, np.float64)
        return super().predict_proba(X)

    def predict(self, X):
        """Predicted classes; a dask collection maps over its partitions and gives a
        dask array."""
        if is_dask_collection(X):
            return self._map("predict", X, None, self.classes_.dtype)
        return super().predict(X)
