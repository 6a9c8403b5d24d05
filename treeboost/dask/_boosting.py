"""Histogram gradient boosting trained on data partitioned across a Dask cluster."""

import copy
import warnings

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight

from .._docstrings import insert_docs
from ._docs import FIT_ROWS, REGRESSION_DATA_EXAMPLE
from ..engine import BinMapper, StoppingRules, monotone_leaf_values
from ..ensembles.hist_gradient_boosting import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from ..losses.custom import is_builtin
from ._channel import ChannelRefused, ChannelShard, new_key
from ._collections import WorkerLostError, is_dask_collection, partition_futures, place_shards
from ._losses import check_loss_travels, distributed_init_raw, pack_loss
from ._grower import StepGrower
from ._quantiles import SelectedLeafSamples, bin_sample, select_quantiles
from ._shard import BoostingShard, _concat


class _Answer:
    """A step's result (or the exception it raised) at hand, read as a Dask actor's
    future is (``result()``)."""

    def __init__(self, value, error=None):
        self.value = value
        self.error = error

    def result(self, timeout=None):
        if self.error is not None:
            raise self.error
        return self.value


class _InProcess:
    """A shard in this process, called as a Dask actor is: each method returns an
    :class:`_Answer`."""

    def __init__(self, shard):
        self.shard = shard

    def __getattr__(self, name):
        method = getattr(self.shard, name)

        def call(*args):
            try:
                return _Answer(method(*args))
            except Exception as exc:  # raised where an actor's future raises it
                return _Answer(None, exc)

        return call


class _Shards:
    """The shards of one fit: each step is sent to all of them at once and their
    answers are read in the workers' order (the fixed order of every sum)."""

    def __init__(self, actors, timeout, partitions=None, val_partitions=None):
        self.actors = actors
        self.timeout = timeout
        #: the indices of each shard's training partitions in X (None: each shard's
        #: after the previous one's, as the in-process shards)
        self.partitions = partitions
        #: the same of the validation partitions in X_val
        self.val_partitions = val_partitions

    @classmethod
    def in_process(cls, shards, timeout=60.0):
        """The shards ``shards`` (:class:`~._shard.BoostingShard` objects of this
        process, no cluster) stepped as the actors of a fit are: the tests' and
        ``benchmarks/bench_step_loop.py``'s way to run the distributed fit."""
        return cls([_InProcess(s) for s in shards], timeout)

    @classmethod
    def direct(cls, actors, timeout, partitions=None, val_partitions=None):
        """The shards of ``actors``, each reached through a direct connection
        (:mod:`._channel`) where its worker offers one, else through its actor.  Each
        shard gets a key of its own: no shard's proof opens another's channel."""
        keys = [new_key() for _ in actors]
        shards = cls(actors, timeout)
        offers = [shards.send(a, "open_channel", k, timeout) for a, k in zip(actors, keys)]
        addresses = [shards.answer(f, "open_channel") for f in offers]
        reached = []
        try:
            for actor, key, address in zip(actors, keys, addresses):
                if address is None:
                    reached.append(actor)
                    continue
                try:
                    reached.append(ChannelShard(address, key, timeout))
                except ChannelRefused as exc:
                    # something at that port that does not hold the shard's key: the
                    # actor, over Dask's own comm, is still the shard
                    warnings.warn(
                        f"the direct channel to a shard was refused ({exc}); its steps "
                        "go through its Dask actor.",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                    reached.append(actor)
                except OSError:
                    # not reachable from here (a firewall, another network): the actor
                    # still is
                    reached.append(actor)
        except BaseException:
            cls(reached, timeout).close()
            raise
        return cls(reached, timeout, partitions, val_partitions)

    def close(self):
        """Close the direct connections (their shards' threads end)."""
        for a in self.actors:
            if isinstance(a, ChannelShard):
                a.close()

    def call(self, method, *args):
        futures = [self.send(a, method, *args) for a in self.actors]
        return [self.answer(f, method) for f in futures]

    @staticmethod
    def send(actor, method, *args):
        """Start ``method`` on one shard; a shard whose worker is known lost ends the
        fit (the actor refuses the call itself)."""
        try:
            return getattr(actor, method)(*args)
        except Exception as exc:
            raise WorkerLostError(
                f"a worker was lost before the step {method!r} of the fit "
                f"({type(exc).__name__}: {exc}); the fit is abandoned."
            ) from exc

    def answer(self, future, method):
        """The result of one shard's step; a lost worker ends the fit."""
        try:
            return future.result(timeout=self.timeout)
        except (ValueError, TypeError):
            raise  # the shard refused its rows: the user's error
        except TimeoutError as exc:
            raise WorkerLostError(
                f"a worker did not answer the step {method!r} of the fit within "
                f"{self.timeout} s (step_timeout); the fit is abandoned."
            ) from exc
        except Exception as exc:
            raise WorkerLostError(
                f"a worker was lost during the step {method!r} of the fit "
                f"({type(exc).__name__}: {exc}); the fit is abandoned."
            ) from exc

    def sum(self, arrays):
        """The sum of the shards' ``arrays`` in the shards' order."""
        total = np.add(arrays[0], arrays[1]) if len(arrays) > 1 else np.array(arrays[0])
        for a in arrays[2:]:
            total += a
        return np.asarray(total, dtype=np.float64)


class _DaskHistGradientBoosting:
    """The distributed fit shared by the classifier and the regressor.

    Fitted on dask collections, the model is the one-machine model's (its ``trees_``,
    ``bin_mapper_`` and the rest): ``predict`` and the other methods take NumPy and
    pandas input as the one-machine class does, and a dask collection partition by
    partition.
    """

    #: seconds a worker has to answer one step of the fit before it is given up
    step_timeout = 120.0
    #: what the distributed fit records of itself, per tree: the round trips to the
    #: workers, the nodes they split (reached by the growth or not) and the bytes of
    #: histograms they sent
    _diagnostics = ("n_rounds_", "n_expanded_", "n_hist_bytes_")

    @insert_docs(fit_rows=FIT_ROWS)
    def fit(
        self,
        X,
        y,
        sample_weight=None,
        *,
        X_val=None,
        y_val=None,
        sample_weight_val=None,
        init_score=None,
        init_score_val=None,
    ):
        """Fit on dask collections that stay on their workers.

        Parameters
        ----------
        {fit_rows}
        X_val, y_val, sample_weight_val : dask collections, default=None
            Validation data for early stopping (``early_stopping`` "auto" or True);
            without it, early stopping (True) scores the training loss.
        init_score, init_score_val : None
            Per-row offsets are not supported by the distributed fit yet (a ValueError
            names them); the one-machine estimator (:meth:`to_local`'s class) takes them.

        Returns
        -------
        self
        """
        self._refuse_offsets(init_score, init_score_val)
        return self._fit_collections(X, y, sample_weight, X_val, y_val, sample_weight_val)

    def _refuse_offsets(self, init_score, init_score_val):
        """Refuse per-row offsets, which the distributed fit does not take yet."""
        for name, value in (("init_score", init_score), ("init_score_val", init_score_val)):
            if value is not None:
                raise ValueError(
                    f"{type(self).__name__} does not support {name} (per-row offsets) yet; "
                    f"the one-machine {self._local_class.__name__} does."
                )

    #: the class of the workers' shards
    _shard_class = BoostingShard

    def _fit_collections(
        self, X, y, sample_weight, X_val, y_val, sample_weight_val, extra=(), extra_val=()
    ):
        """Fit on the collections: shards placed where their partitions are, the tree
        loop, the channels closed.  ``extra`` (``extra_val``): more collections
        partitioned as X (X_val) whose partitions each shard gets after the weights'
        (a ranker's query ids)."""
        from distributed import get_client

        self._check_supported()
        if (X_val is None) != (y_val is None):
            raise ValueError("X_val and y_val go together: give both or neither.")
        if X_val is not None and self.early_stopping is False:
            raise ValueError("X_val and y_val are given with early_stopping=False.")
        client = get_client()
        train = partition_futures(client, X, y, sample_weight, extra=extra)
        val = (
            []
            if X_val is None
            else partition_futures(
                client, X_val, y_val, sample_weight_val, "X_val", extra=extra_val
            )
        )
        actors, partitions, val_partitions = place_shards(
            client, train, val, self._shard_class, self.step_timeout
        )
        shards = _Shards.direct(actors, self.step_timeout, partitions, val_partitions)
        try:
            self._fit_shards(shards, X_val is not None)
        finally:
            shards.close()
        return self

    def _check_supported(self):
        self._validate_params()
        refused = [
            ("max_features", float(self.max_features) == 1.0),
            ("colsample_bytree", float(self.colsample_bytree) == 1.0),
            ("scoring", self._scoring_supported()),
            ("split_gain", self.split_gain == "hessian"),
            # one quantile (a number) per model: its initial score and leaf values are
            # selected across the workers for one output
            ("quantile", np.ndim(getattr(self, "quantile", None)) == 0),
        ]
        for name, ok in refused:
            if not ok:
                raise ValueError(
                    f"{type(self).__name__} does not support "
                    f"{name}={getattr(self, name)!r} yet; the one-machine "
                    f"{type(self).__name__[4:]} does."
                )
        if not isinstance(self.loss, str):
            # applied on the workers: it must travel there (by reference)
            check_loss_travels(self.loss, type(self).__name__)

    def _fit_bins(self, shards, summaries, n_positive, classification, rng):
        """The input encoder, the target's classes and the BinMapper, fitted on the
        client from the rows the one-machine fit draws for its bins
        (:func:`~._quantiles.bin_sample`): its edges are the one-machine fit's."""
        # the one-machine fit's first draw (without a validation split): its BinMapper's
        seed = rng.randint(2**31 - 1)
        samples = bin_sample(shards, BinMapper().subsample, seed)
        X_s = _concat([s[0] for s in samples])
        y_s = _concat([s[1] for s in samples])
        w_s = np.concatenate([s[2] for s in samples])
        del samples  # the parts, now copied into X_s: the client's peak is one sample
        Xe = self._encode_X(X_s, reset=True, y=y_s, sample_weight=w_s)
        if classification:
            labels = np.unique(np.concatenate([s[2] for s in summaries if s[2] is not None]))
            self._validate_target(labels, labels.shape[0], True)
        else:
            self._validate_target(y_s, Xe.shape[0], True)
        # the drawn rows and no more: the mapper draws nothing again
        is_cat = self._encoder.is_categorical_
        self.bin_mapper_ = BinMapper(self.max_bins, is_cat, random_state=seed)
        self.bin_mapper_.fit(Xe)
        del X_s, y_s, Xe

    def _fit_shards(self, shards, has_val):
        """The distributed fit, step by step: the rows' summaries and the bins
        (:meth:`_bin_shards`), the loss, the shards prepared (:meth:`_prepare_fit`),
        the initial raw score (:meth:`_initial_raw_of`), the scores before the first
        iteration, the grower (:meth:`_step_grower`) and the iterations
        (:meth:`_boost_shards`)."""
        classification = hasattr(self, "predict_proba")
        warm, n_positive = self._bin_shards(shards, classification)
        loss = self._make_loss()  # a custom loss checked by the one-machine rules
        early = self.early_stopping is True or (self.early_stopping == "auto" and has_val)
        if early and not loss.has_value:
            raise ValueError(
                f"early stopping watches the loss's value, and loss="
                f"{loss.display_name} gives its gradients only: pass early_stopping=False, "
                f"or a treeboost.losses.Loss subclass (its pointwise gives the value)."
            )
        sums = self._prepare_fit(shards, loss, classification)
        init = self._initial_raw_of(shards, loss, sums, warm, classification)
        self._init_raw = np.atleast_1d(np.asarray(init, dtype=np.float64))
        self.init_ = None
        self._loss = loss
        # a warm start's rows start from the trees fitted so far
        losses = shards.sum(shards.call("start", self._init_raw, self.trees_ if warm else None))
        if not warm:
            self.train_score_, self.validation_score_ = [], []
        self.train_score_ = list(self.train_score_)
        self.validation_score_ = list(self.validation_score_)
        if early and not self.train_score_:
            self._record(losses, has_val)
        grower, monotonic = self._step_grower(loss.n_outputs)
        if not warm:
            self.trees_ = []
        for name in self._diagnostics:
            setattr(self, name, list(getattr(self, name, [])) if warm else [])
        # the root's histograms carry counts where it may be read from its rows
        root_counts = n_positive < 2 * grower.dense_min_samples
        self._boost_shards(shards, grower, loss, monotonic, root_counts, early, has_val)
        self.n_estimators_ = len(self.trees_)
        self.train_score_ = np.asarray(self.train_score_, dtype=np.float64)
        self.validation_score_ = np.asarray(self.validation_score_, dtype=np.float64)
        self._packed = None
        self._packer()

    def _bin_shards(self, shards, classification):
        """The shards' summaries checked and, unless a warm start continues, the bins
        fitted from them; whether the fit is a warm start, and the rows of positive
        weight."""
        rng = check_random_state(self.random_state)
        summaries = shards.call("summary", classification)
        n_positive = sum(s[1] for s in summaries)
        if n_positive == 0:
            raise ValueError("X has no row of positive weight.")
        warm = self.warm_start and hasattr(self, "trees_")
        if warm and self.max_iter < len(self.trees_):
            raise ValueError(
                f"max_iter={self.max_iter} must be at least the {len(self.trees_)} "
                f"iterations already fitted with warm_start=True."
            )
        if not warm:
            self._fit_bins(shards, summaries, n_positive, classification, rng)
        return warm, n_positive

    def _prepare_fit(self, shards, loss, classification):
        """The shards given the estimator and its loss (once); the summed weights of the
        rows (per class for a classifier, times ``class_weight``)."""
        self.max_features_ = self.n_features_in_
        shell = copy.copy(self)
        if not isinstance(self.loss, str):
            shell.loss = None  # the loss travels once, in its own bytes
        prepared = shards.call("prepare", shell, pack_loss(loss), loss.n_outputs)
        self._prepare_shards(shards)
        sums = shards.sum([p[0] for p in prepared])
        if classification and self.class_weight is not None:
            weights = [self._class_weights(shards.sum([p[1][v] for p in prepared])) for v in (0, 1)]
            sums = shards.sum(shards.call("weigh", *weights))
            if np.count_nonzero(sums) < 2:
                raise ValueError(
                    f"y contains {np.count_nonzero(sums)} class after class_weight "
                    f"trimmed classes with zero weights, while a minimum of 2 "
                    f"classes are required."
                )
        return sums

    def _initial_raw_of(self, shards, loss, sums, warm, classification):
        """The constant raw score every row starts at: a warm start's first one, else
        the loss's from the summed statistics ``sums``."""
        if warm:
            return self._init_raw  # the first fit's
        if not is_builtin(loss):
            # a user's loss: Newton's method on the constant, G and H summed over the
            # shards (its own init_raw would need every row of y in one place)
            return distributed_init_raw(shards, loss.n_outputs)
        if classification:
            return loss.init_raw(np.arange(self.n_classes_), sums)
        if loss.init_quantile is not None:
            # (the quantile of y over every shard's rows, as the only value of a y)
            q, _ = select_quantiles(shards, loss.init_quantile, 0, None)
            return loss.init_raw(q, np.ones(1))
        return loss.init_raw(np.array([sums[1] / sums[0]]), np.ones(1))

    def _step_grower(self, n_outputs):
        """The client's :class:`StepGrower` and the monotonic constraints (None
        without)."""
        msl = int(self.min_samples_leaf)
        stopping = StoppingRules(
            max_depth=self.max_depth,
            min_samples_split=max(2 * msl, 2),
            min_samples_leaf=msl,
            min_weight_leaf=self.min_child_weight,
            min_impurity_decrease=0.0,
            max_leaf_nodes=self.max_leaf_nodes,
        )
        constraints = self._constraints(n_outputs)
        monotonic = None if constraints is None else constraints.monotonic_cst
        grower = StepGrower(
            self.bin_mapper_,
            stopping,
            self.l2_regularization,
            constraints,
            l1_regularization=float(self.reg_alpha),
        )
        return grower, monotonic

    def _boost_shards(self, shards, grower, loss, monotonic, root_counts, early, has_val):
        """The iterations up to ``max_iter``: one tree per output each
        (:meth:`_grow_shard_tree`); stop at a diverged iteration (dropped) or when
        early stopping says so."""
        K = loss.n_outputs
        roots = shards.call("root", 0, root_counts)
        with np.errstate(over="ignore", invalid="ignore"):
            for it in range(len(self.trees_), self.max_iter):
                trees = []
                for k in range(K):
                    last = it == self.max_iter - 1 and k == K - 1
                    following = None if last else ((k + 1) % K, root_counts)
                    tree, answers = self._grow_shard_tree(
                        shards, grower, loss, monotonic, k, roots, following
                    )
                    roots = [a[1] for a in answers]
                    trees.append(tree)
                self.trees_.append(trees)
                losses = shards.sum([a[0] for a in answers])
                if loss.has_value and not np.all(np.isfinite(losses)):
                    self._warn_diverged(it, "training")
                    self.trees_.pop()
                    break
                if early and self._record(losses, has_val):
                    break

    def _grow_shard_tree(self, shards, grower, loss, monotonic, k, roots, following):
        """The tree of output ``k`` from the shards' root histograms ``roots``, its leaf
        values (times ``learning_rate``), sent to the shards, which add them to their
        scores and build the root of ``following`` (``(output, counts)``; None after the
        last tree); the tree and the shards' answers (their losses and next roots)."""
        received = [sum(r[0].nbytes for r in roots)]  # histogram bytes of the tree

        def split_nodes(batch):
            answers = shards.call(
                "split",
                batch["nodes"],
                batch["features"],
                batch["bin_thresholds"],
                batch["missing_left"],
                batch["categories"],
                batch["build"],
            )
            received[0] += sum(a[0].nbytes for a in answers)
            return (shards.sum([a[0] for a in answers]), np.sum([a[1] for a in answers], axis=0))

        grown = grower.grow(
            shards.sum([r[0] for r in roots]), shards.sum([r[1] for r in roots]), split_nodes
        )
        tree = grown.tree
        # no row reaches the client: the leaves' Newton steps come from the summed
        # statistics, their quantiles from a selection across the shards
        samples = SelectedLeafSamples(
            shards, k, grown, self.l2_regularization, l1_regularization=float(self.reg_alpha)
        )
        tree.value = (self.learning_rate * loss.leaf_values(samples))[:, None]
        if monotonic is not None:
            tree.value[:, 0] = monotone_leaf_values(
                tree.children_left,
                tree.children_right,
                tree.feature,
                tree.value[:, 0],
                monotonic,
            )
        answers = shards.call("finish", k, tree, grown.leaves, grown.leaf_positions, following)
        self.n_rounds_.append(grown.n_rounds + samples.n_rounds + 1)
        self.n_expanded_.append(grown.n_expanded)
        self.n_hist_bytes_.append(received[0])
        return tree, answers

    def _scoring_supported(self):
        """Whether the fit can watch ``scoring`` (the loss alone: a scorer needs every
        validation row's prediction in one place)."""
        return self.scoring == "loss"

    def _prepare_shards(self, shards):
        """A step after the shards have binned their rows (a ranker's queries)."""

    def _class_weights(self, counts):
        """``class_weight`` per class index, for rows whose classes have the row
        ``counts`` (scikit-learn's weights of each class present, "balanced" from
        the counts; 1 for a class without rows)."""
        present = np.flatnonzero(counts)
        out = np.ones(self.n_classes_)
        if present.size:
            labels = self.classes_[present]
            out[present] = compute_class_weight(
                self.class_weight, classes=labels, y=labels, sample_weight=counts[present]
            )
        return out

    def _record(self, losses, has_val):
        """Append the iteration's scores (minus the weighted mean losses); whether early
        stopping stops here."""
        train, w, val, w_val = losses
        self.train_score_.append(-train / w)
        if has_val:
            self.validation_score_.append(-val / w_val if w_val > 0 else np.nan)
        return self._plan().stopping_rule.should_stop(self._watched_scores(has_val))

    # -- the model as an ordinary one ---------------------------------------------------
    def to_local(self):
        """The fitted model as the one-machine estimator (its class and state)."""
        local = self._local_class(**self.get_params())
        local.__dict__.update(
            {
                k: v
                for k, v in self.__dict__.items()
                if k not in local.__dict__ and k not in self._diagnostics
            }
        )
        return local

    def save(self, path):
        """Write the model as its one-machine estimator (:meth:`to_local`), which
        :func:`treeboost.load` reads back."""
        self.to_local().save(path)

    def _map(self, method, X, two_d):
        import dask.array as da

        fn = getattr(super(), method)
        if isinstance(X, da.Array):
            if len(X.chunks[1]) > 1:
                X = X.rechunk({1: -1})
            if two_d:
                n_out = (
                    self.n_classes_
                    if method != "decision_function" or self.n_classes_ > 2
                    else None
                )
                return X.map_blocks(fn, chunks=(X.chunks[0], (n_out,)), dtype=np.float64)
            return X.map_blocks(fn, drop_axis=1, dtype=self._output_dtype(method))
        return X.map_partitions(
            fn, meta=np.empty((0, self.n_classes_) if two_d else 0, self._output_dtype(method))
        )

    def _output_dtype(self, method):
        if method == "predict" and hasattr(self, "classes_"):
            return self.classes_.dtype
        return np.float64

    def predict(self, X, num_iteration=None):
        """Predictions; a dask collection maps over its partitions and gives a dask
        array."""
        if is_dask_collection(X):
            _every_iteration(num_iteration)
            return self._map("predict", X, False)
        return super().predict(X, num_iteration=num_iteration)


def _every_iteration(num_iteration):
    """A dask collection is predicted with every iteration: refuse another choice."""
    if num_iteration is not None:
        raise ValueError(
            f"num_iteration={num_iteration!r}: a dask collection is predicted with every "
            "iteration; compute it, or predict a numpy array or pandas frame."
        )


@insert_docs(regression_data=REGRESSION_DATA_EXAMPLE)
class DaskHistGradientBoostingRegressor(_DaskHistGradientBoosting, HistGradientBoostingRegressor):
    __doc__ = """Histogram gradient boosting for regression, trained where a Dask
    cluster holds the data.

    The parameters and the model are :class:`~treeboost.HistGradientBoostingRegressor`'s,
    with every loss of it. Each worker bins and keeps
    its own partitions; per round the workers build the histograms of their rows, the
    client sums them (in the workers' order), chooses the splits with the one-machine
    grower's rules and the workers partition their rows. The bin edges and the
    categories come from a sample of every partition (``subsample`` rows of
    :class:`~treeboost.engine.binning.mapper.BinMapper` in all).

    The steps of the tree loop reach each worker through a direct connection to a port
    the system picks on the worker's host (no port to configure): the shard's own random
    key, sent through Dask, opens it and tags every message (HMAC-SHA256, checked before
    anything is unpickled; the user guide's parallel page states what it guards
    against).  Where the cluster's comm is not plain TCP (TLS, for one) or that port
    cannot be reached, they go through Dask actor calls, which cost more per round.

    Early stopping runs on ``X_val``/``y_val`` when given (``early_stopping`` "auto" or
    True), on the training loss with True alone; ``validation_fraction`` is not used.
    Monotonic and interaction constraints carry each node's interval and open
    interaction sets by the one-machine rules. The absolute-error and quantile losses'
    initial score and leaf values are weighted quantiles of rows on every worker:
    they are selected digit by digit, eight rounds of 256 summed weights per leaf
    (:mod:`treeboost.engine.statistics.quantile`), and are the one-machine values.
    ``warm_start`` adds trees to those of the previous fit on the bins of the first one,
    as the one-machine class does.

    A custom loss (a :class:`~treeboost.losses.Loss` subclass instance, or a callable
    ``(y_true, raw[, sample_weight]) -> (gradient, hessian)``) is applied on the
    workers, each to its own rows, and checked there by the one-machine rule (shape,
    finite values, hessian >= 0).  It travels to them pickled, once, in the fit's
    first step over the authenticated channel: it must be importable on every worker
    (defined at the top level of a module they import; a lambda or a function defined
    inside another is refused before the fit).  Its initial score is Newton's method
    on the constant with the gradient and hessian sums of every worker (the rule of a
    callable on one machine; a subclass's own ``init_raw`` would need every row of y
    in one place).  Its ``leaf_values`` (the Newton step by default) gets the leaves
    without their rows, which stay on the workers: an override may read
    ``samples.newton_step()`` and ``samples.residual_quantiles(alpha)`` only.  Its
    ``start_iteration`` runs on each worker with that worker's rows.  A callable gives
    no loss value: early stopping needs a subclass.

    Not yet supported (a ValueError names them): ``max_features < 1``,
    ``colsample_bytree < 1``, a ``scoring`` other than "loss", ``split_gain="gradient"``,
    a list of quantiles, and ``init_score`` (per-row offsets).

    Examples
    --------
    {regression_data}
    >>> model = DaskHistGradientBoostingRegressor().fit(X, y)  # doctest: +SKIP
    """
    _local_class = HistGradientBoostingRegressor


class DaskHistGradientBoostingClassifier(_DaskHistGradientBoosting, HistGradientBoostingClassifier):
    __doc__ = """Histogram gradient boosting for classification, trained where a Dask
    cluster holds the data.

    The parameters and the model are :class:`~treeboost.HistGradientBoostingClassifier`'s
    (log loss, two or more classes); see :class:`DaskHistGradientBoostingRegressor` for
    how the fit is distributed and what it does not support yet. ``class_weight``
    multiplies each row's weight on its worker ("balanced" from the rows of each class
    on every worker).
    """
    _local_class = HistGradientBoostingClassifier

    def predict_proba(self, X, num_iteration=None):
        """Class probabilities; a dask collection maps over its partitions."""
        if is_dask_collection(X):
            _every_iteration(num_iteration)
            return self._map("predict_proba", X, True)
        return super().predict_proba(X, num_iteration=num_iteration)

    def decision_function(self, X, num_iteration=None):
        """Raw scores; a dask collection maps over its partitions."""
        if is_dask_collection(X):
            _every_iteration(num_iteration)
            return self._map("decision_function", X, self.n_classes_ > 2)
        return super().decision_function(X, num_iteration=num_iteration)
