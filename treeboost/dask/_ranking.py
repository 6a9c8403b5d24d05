"""Learning to rank on a Dask cluster: the query groups of partitioned rows.

A ranking loss's gradients of a document depend on the other documents of its query
only (:mod:`treeboost.losses.ranking`), so when every query lies within one partition
each worker computes its rows' gradients with the one-machine kernel on its own
queries, and the rest of the fit is the booster's.  The queries come as LightGBM's
``group`` (sizes, on the client) or XGBoost's ``qid`` (a dask collection partitioned as
X); a query whose rows lie in two partitions is refused, naming it and the partitions.
"""

import numpy as np

from ..ensembles.ranking import HistGradientBoostingRanker, _check_scoring
from ..metrics._groups import check_label_gain, query_offsets
from ._boosting import _DaskHistGradientBoosting
from ._channel import one_step_at_a_time
from ._collections import is_dask_collection
from ._shard import BoostingShard, _rows


class RankingShard(BoostingShard):
    """A worker's rows of a ranking fit: :class:`~._shard.BoostingShard` with the
    query ids of its partitions (``qid``: each tuple's fourth entry) and the queries of
    its rows, bound to its loss."""

    def __init__(self, train, validation):
        train = list(train)
        super().__init__(train, validation)
        self.sizes = [_rows(p[0]) for p in train]
        self.qid = [np.asarray(p[3]) for p in train] if train and len(train[0]) > 3 else None
        self.n_queries = 0

    @one_step_at_a_time
    def partition_queries(self):
        """Per partition held (in order): its rows, and with ``qid`` the query id of
        each run of equal ids (one per query when the rows of each are contiguous)."""
        if self.qid is None:
            return [(n, None) for n in self.sizes]
        out = []
        for n, ids in zip(self.sizes, self.qid):
            if ids.ndim != 1 or ids.shape[0] != n:
                raise ValueError(
                    f"a partition of qid has shape {ids.shape} for {n} rows of X; X and "
                    f"qid must be partitioned alike."
                )
            starts = np.flatnonzero(ids[1:] != ids[:-1]) + 1 if n else np.zeros(0, np.intp)
            out.append((n, ids[np.concatenate([[0], starts])] if n else ids[:0]))
        return out

    @one_step_at_a_time
    def bind_queries(self, offsets):
        """Bind the queries of the training rows to the loss: ``offsets`` (this
        shard's rows, :func:`~treeboost.metrics._groups.query_offsets`), or None to
        take them from the partitions' ``qid`` (checked by the trainer)."""
        if offsets is None:
            parts, at = [np.zeros(1, np.int64)], 0
            for n, ids in zip(self.sizes, self.qid):
                if n:
                    parts.append(query_offsets(n, qid=ids)[1:] + at)
                at += n
            offsets = np.concatenate(parts)
        offsets = np.asarray(offsets, np.int64)
        self.n_queries = offsets.shape[0] - 1
        if self.train.n:
            self.loss.bind(self.train.y, offsets)

    def _value_weight(self, block):
        # a ranking loss's value is a mean over the queries
        return float(self.n_queries) if block is self.train else 0.0


def _partition_numbers(shards, answers):
    """Each shard's partitions' indices in X (the order X has them)."""
    if shards.partitions is not None:
        return [np.asarray(p, np.int64) for p in shards.partitions]
    ends = np.cumsum([len(a) for a in answers])
    return [np.arange(e - len(a), e) for e, a in zip(ends, answers)]


def bind_queries(shards, group):
    """Check that no query crosses a partition boundary and bind each shard's queries
    (``group``: the sizes of the queries in row order; None: the shards' ``qid``)."""
    answers = shards.call("partition_queries")
    numbers = _partition_numbers(shards, answers)
    n_parts = sum(len(a) for a in answers)
    rows = np.zeros(n_parts, np.int64)
    for idx, answer in zip(numbers, answers):
        rows[idx] = [n for n, _ in answer]
    if group is None:
        _check_qid(numbers, answers)
        shards.call("bind_queries", None)
        return
    offsets = query_offsets(int(rows.sum()), group=group)
    bounds = np.concatenate([[0], np.cumsum(rows)])
    inner = bounds[1:-1]
    crossing = ~np.isin(inner, offsets)
    if crossing.any():
        b = int(inner[np.flatnonzero(crossing)[0]])
        q = int(np.searchsorted(offsets, b, side="right") - 1)
        before = int(np.flatnonzero((bounds[1:] == b) & (rows > 0))[0])
        after = int(np.flatnonzero((bounds[:-1] == b) & (rows > 0))[0])
        raise ValueError(
            f"query {q} of group (rows {int(offsets[q])} to {int(offsets[q + 1]) - 1}) "
            f"crosses the boundary between partitions {before} and {after} of X: the "
            f"Dask ranker needs the rows of each query in one partition (repartition X "
            f"and y at query boundaries)."
        )
    futures = []
    for actor, idx in zip(shards.actors, numbers):
        parts, at = [np.zeros(1, np.int64)], 0
        for p in idx:
            s, e = bounds[p], bounds[p + 1]
            inside = offsets[(offsets > s) & (offsets <= e)]
            parts.append(inside - s + at)
            at += e - s
        futures.append(shards.send(actor, "bind_queries", np.concatenate(parts)))
    for f in futures:
        shards.answer(f, "bind_queries")


def _check_qid(numbers, answers):
    """Refuse a query id that starts in two places: in two partitions (a query across
    a boundary) or twice in one (its rows not contiguous)."""
    ids, where = [], []
    for idx, answer in zip(numbers, answers):
        for p, (_, part_ids) in zip(idx, answer):
            ids.append(part_ids)
            where.append(np.full(len(part_ids), p, np.int64))
    if not ids:
        return
    ids, where = np.concatenate(ids), np.concatenate(where)
    order = np.argsort(ids, kind="stable")
    ids, where = ids[order], where[order]
    twice = np.flatnonzero(ids[1:] == ids[:-1])
    if not twice.size:
        return
    k = int(twice[0])
    query = ids[k].item() if hasattr(ids[k], "item") else ids[k]
    a, b = sorted((int(where[k]), int(where[k + 1])))
    if a == b:
        raise ValueError(
            f"The rows of each query must be contiguous in qid (the query id {query!r} "
            f"reappears after another one in partition {a}); sort the rows by qid first."
        )
    raise ValueError(
        f"query id {query!r} of qid lies in partitions {a} and {b} of X: the Dask ranker "
        f"needs the rows of each query in one partition (repartition X, y and qid at "
        f"query boundaries)."
    )


class DaskHistGradientBoostingRanker(_DaskHistGradientBoosting, HistGradientBoostingRanker):
    __doc__ = """Histogram gradient boosting for learning to rank, trained where a Dask
    cluster holds the data.

    The parameters and the model are :class:`~treeboost.HistGradientBoostingRanker`'s
    (LambdaMART with NDCG, or the pairwise loss); the fit is distributed as
    :class:`~treeboost.dask.DaskHistGradientBoostingRegressor`'s. The queries come as
    ``group=`` (the sizes of the queries in row order, a NumPy array on the client) or
    ``qid=`` (a dask collection of one query id per row, partitioned as X); the rows of
    each query must lie in one partition, and a query that crosses a partition boundary
    is refused (a ValueError names it and the two partitions). Each worker computes its
    documents' gradients with the one-machine kernel on its own queries, so on the same
    bins the model is the one-machine ranker's (leaf values equal within the order of
    the sums). ``qid`` sends the client each partition's query ids (one per query), to
    check that none lies in two partitions; ``group`` the partitions' row counts.

    Early stopping: not with the default ``early_stopping="auto"`` (the
    ``validation_fraction`` split is not made on a cluster), and with
    ``early_stopping=True`` on the training loss (``scoring="loss"``: the mean over the
    queries).  Not yet supported: ``X_val`` (validation queries: not a parameter of
    this ``fit``), ``scoring`` NDCG or MAP for early stopping and ``init_score`` (a
    ValueError names them), and what the Dask regressor does not support.

    Examples
    --------
    >>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
    >>> import dask.array as da  # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2))  # doctest: +SKIP
    >>> # 2 partitions of 500 rows, 50 queries of 10 documents each
    >>> X = da.random.random((1000, 5), chunks=500)  # doctest: +SKIP
    >>> y = (X[:, 0] * 4).astype(int)  # doctest: +SKIP
    >>> model = DaskHistGradientBoostingRanker().fit(X, y, group=[10] * 100)  # doctest: +SKIP
    """
    _local_class = HistGradientBoostingRanker
    _shard_class = RankingShard

    def fit(self, X, y, sample_weight=None, *, group=None, qid=None, init_score=None):
        """Fit on dask collections that stay on their workers.

        Parameters
        ----------
        X : dask array or dask DataFrame of shape (n_samples, n_features)
        y : dask array or dask Series of int of shape (n_samples,)
            Relevance labels, partitioned as X.
        sample_weight : dask array or dask Series, default=None
        group : array-like of int, optional
            The sizes of the queries in row order (summing to ``n_samples``), each
            query within one partition.
        qid : dask array or dask Series, optional
            The query of each row, partitioned as X; the rows of a query contiguous
            and within one partition.  ``group`` or ``qid``.
        init_score : None
            Per-row offsets are not supported by the distributed fit yet.

        Returns
        -------
        self
        """
        if init_score is not None:
            raise ValueError(
                f"{type(self).__name__} does not support init_score (per-row offsets) "
                f"yet; the one-machine HistGradientBoostingRanker does."
            )
        if group is not None and qid is not None:
            raise ValueError("Give group or qid, not both.")
        if group is None and qid is None:
            raise ValueError(
                "Ranking needs the query of every row: pass group= (the size of each "
                "query) or qid= (a dask collection of one query id per row)."
            )
        if qid is not None and not is_dask_collection(qid):
            raise TypeError(
                f"qid must be a dask array or Series partitioned as X, got "
                f"{type(qid).__name__}; or pass group= (the sizes of the queries)."
            )
        self._group = None if group is None else np.asarray(group)
        extra = () if qid is None else (("qid", qid),)
        try:
            return self._fit_collections(X, y, sample_weight, None, None, None, extra)
        finally:
            del self._group

    def _check_supported(self):
        super()._check_supported()
        _check_scoring(self.scoring)
        check_label_gain(self.label_gain)

    def _scoring_supported(self):
        # the scoring is read by early stopping only: on, it watches the loss
        return self.early_stopping is not True or self.scoring == "loss"

    def _prepare_shards(self, shards):
        bind_queries(shards, getattr(self, "_group", None))
