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
from ..metrics.ranking import query_metric
from ._boosting import _DaskHistGradientBoosting
from ._channel import one_step_at_a_time
from ._collections import is_dask_collection
from ._shard import BoostingShard, _rows


class RankingShard(BoostingShard):
    """A worker's rows of a ranking fit: :class:`~._shard.BoostingShard` with the
    query ids of its partitions (``qid``: each tuple's fourth entry) and the queries of
    its training and validation rows, bound to its loss.  With ``scoring`` a metric
    (NDCG, MAP), the scores it returns are the metric's, not the loss's."""

    def __init__(self, train, validation):
        parts = {"train": list(train), "val": list(validation)}
        super().__init__(parts["train"], parts["val"])
        self.sizes = {w: [_rows(p[0]) for p in ps] for w, ps in parts.items()}
        self.qid = {
            w: [np.asarray(p[3]) for p in ps] if ps and len(ps[0]) > 3 else None
            for w, ps in parts.items()
        }
        self.n_queries = {"train": 0, "val": 0}
        self.offsets = {}

    def _block(self, which):
        return self.train if which == "train" else self.val

    @one_step_at_a_time
    def partition_queries(self, which):
        """Per partition of ``which`` ("train" or "val") held, in order: its rows and,
        with ``qid``, the query id of each run of equal ids (one per query when the
        rows of each are contiguous)."""
        if self.qid[which] is None:
            return [(n, None) for n in self.sizes[which]]
        name = "qid" if which == "train" else "qid_val"
        out = []
        for n, ids in zip(self.sizes[which], self.qid[which]):
            if ids.ndim != 1 or ids.shape[0] != n:
                raise ValueError(
                    f"a partition of {name} has shape {ids.shape} for {n} rows; the rows "
                    f"and {name} must be partitioned alike."
                )
            starts = np.flatnonzero(ids[1:] != ids[:-1]) + 1 if n else np.zeros(0, np.intp)
            out.append((n, ids[np.concatenate([[0], starts])] if n else ids[:0]))
        return out

    @one_step_at_a_time
    def bind_queries(self, which, offsets):
        """Bind the queries of the rows of ``which`` to the loss: ``offsets`` (this
        shard's rows, :func:`~treeboost.metrics._groups.query_offsets`), or None to
        take them from the partitions' ``qid`` (checked by the trainer)."""
        if offsets is None:
            parts, at = [np.zeros(1, np.int64)], 0
            for n, ids in zip(self.sizes[which], self.qid[which]):
                if n:
                    parts.append(query_offsets(n, qid=ids)[1:] + at)
                at += n
            offsets = np.concatenate(parts)
        offsets = np.asarray(offsets, np.int64)
        self.n_queries[which] = offsets.shape[0] - 1
        self.offsets[which] = offsets
        block = self._block(which)
        if block is not None and block.n:
            self.loss.bind(block.y, offsets)

    def _value_weight(self, block):
        # a ranking loss's value, and a metric, is a mean over the queries
        return float(self.n_queries["train" if block is self.train else "val"])

    def _losses(self):
        train, w, val, w_val = super()._losses()  # the next gradients, and the loss
        scoring = self.model.scoring
        if scoring == "loss":
            return train, w, val, w_val
        gain = check_label_gain(self.model.label_gain)

        def minus_metric(which):
            # the trainer records -value / weight: the metric's mean over the queries
            block = self._block(which)
            if block is None or not block.n:
                return 0.0
            value = query_metric(scoring, block.y, block.raw[:, 0], self.offsets[which], gain)
            return -value * self._value_weight(block)

        return minus_metric("train"), w, minus_metric("val"), w_val


def _partition_numbers(numbers, answers):
    """Each shard's partitions' indices in X (``numbers``; None: each shard's after
    the previous one's)."""
    if numbers is not None:
        return [np.asarray(p, np.int64) for p in numbers]
    ends = np.cumsum([len(a) for a in answers])
    return [np.arange(e - len(a), e) for e, a in zip(ends, answers)]


def bind_queries(shards, group, which="train"):
    """Check that no query crosses a partition boundary and bind each shard's queries
    of ``which`` ("train": X; "val": X_val) -- ``group``: the sizes of the queries in
    row order; None: the shards' ``qid``."""
    answers = shards.call("partition_queries", which)
    numbers = _partition_numbers(
        shards.partitions if which == "train" else shards.val_partitions, answers
    )
    suffix, data = ("", "X") if which == "train" else ("_val", "X_val")
    n_parts = sum(len(a) for a in answers)
    rows = np.zeros(n_parts, np.int64)
    for idx, answer in zip(numbers, answers):
        rows[idx] = [n for n, _ in answer]
    if group is None:
        _check_qid(numbers, answers, suffix, data)
        shards.call("bind_queries", which, None)
        return
    offsets = query_offsets(int(rows.sum()), group=group, suffix=suffix)
    bounds = np.concatenate([[0], np.cumsum(rows)])
    inner = bounds[1:-1]
    crossing = ~np.isin(inner, offsets)
    if crossing.any():
        b = int(inner[np.flatnonzero(crossing)[0]])
        q = int(np.searchsorted(offsets, b, side="right") - 1)
        before = int(np.flatnonzero((bounds[1:] == b) & (rows > 0))[0])
        after = int(np.flatnonzero((bounds[:-1] == b) & (rows > 0))[0])
        raise ValueError(
            f"query {q} of group{suffix} (rows {int(offsets[q])} to "
            f"{int(offsets[q + 1]) - 1}) crosses the boundary between partitions "
            f"{before} and {after} of {data}: the Dask ranker needs the rows of each "
            f"query in one partition (repartition {data} and y{suffix} at query "
            f"boundaries)."
        )
    futures = []
    for actor, idx in zip(shards.actors, numbers):
        parts, at = [np.zeros(1, np.int64)], 0
        for p in idx:
            s, e = bounds[p], bounds[p + 1]
            inside = offsets[(offsets > s) & (offsets <= e)]
            parts.append(inside - s + at)
            at += e - s
        futures.append(shards.send(actor, "bind_queries", which, np.concatenate(parts)))
    for f in futures:
        shards.answer(f, "bind_queries")


def _check_qid(numbers, answers, suffix, data):
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
            f"The rows of each query must be contiguous in qid{suffix} (the query id "
            f"{query!r} reappears after another one in partition {a}); sort the rows by "
            f"qid{suffix} first."
        )
    raise ValueError(
        f"query id {query!r} of qid{suffix} lies in partitions {a} and {b} of {data}: the "
        f"Dask ranker needs the rows of each query in one partition (repartition {data}, "
        f"y{suffix} and qid{suffix} at query boundaries)."
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

    Early stopping (``early_stopping`` "auto" or True) runs on validation queries
    ``X_val`` / ``y_val`` with ``group_val`` or ``qid_val`` (each query within one
    partition), or with ``early_stopping=True`` alone on the training queries, and
    watches ``scoring`` as the one-machine ranker does: NDCG or MAP (each worker sums
    its queries' values) or the loss (the mean over the queries).  The
    ``validation_fraction`` split is not made on a cluster: "auto" without ``X_val``
    does not stop early.  Not yet supported (a ValueError names them): ``init_score``,
    and what the Dask regressor does not support.

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

    def fit(
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
        X_val, y_val, group_val / qid_val, sample_weight_val : optional
            Validation queries (dask collections; ``group_val`` on the client) for
            early stopping (``early_stopping`` "auto" or True), each query within one
            partition of ``X_val``.
        init_score, init_score_val : None
            Per-row offsets are not supported by the distributed fit yet.

        Returns
        -------
        self
        """
        self._refuse_offsets(init_score, init_score_val)
        self._groups = {"train": _check_queries(group, qid, "")}
        extra, extra_val = (() if qid is None else (("qid", qid),)), ()
        if X_val is not None:
            self._groups["val"] = _check_queries(group_val, qid_val, "_val")
            extra_val = () if qid_val is None else (("qid_val", qid_val),)
        elif group_val is not None or qid_val is not None:
            raise ValueError("group_val / qid_val are given without X_val.")
        try:
            return self._fit_collections(
                X, y, sample_weight, X_val, y_val, sample_weight_val, extra, extra_val
            )
        finally:
            del self._groups

    def _check_supported(self):
        super()._check_supported()
        _check_scoring(self.scoring)
        check_label_gain(self.label_gain)

    def _scoring_supported(self):
        # the loss, NDCG or MAP: the shards sum each over their queries
        return True

    def _prepare_shards(self, shards):
        groups = self._groups
        bind_queries(shards, groups["train"], "train")
        if "val" in groups:
            bind_queries(shards, groups["val"], "val")


def _check_queries(group, qid, suffix):
    """``group`` as an array (None with ``qid``), once one of them is given and
    ``qid`` is a dask collection."""
    gname, qname = f"group{suffix}", f"qid{suffix}"
    if group is not None and qid is not None:
        raise ValueError(f"Give {gname} or {qname}, not both.")
    if group is None and qid is None:
        raise ValueError(
            f"Ranking needs the query of every row: pass {gname}= (the size of each "
            f"query) or {qname}= (a dask collection of one query id per row)."
        )
    if qid is not None and not is_dask_collection(qid):
        raise TypeError(
            f"{qname} must be a dask array or Series partitioned as the rows, got "
            f"{type(qid).__name__}; or pass {gname}= (the sizes of the queries)."
        )
    return None if group is None else np.asarray(group)
