"""The Dask booster with a user's own loss, and the Dask ranker: with their shards in
this process (and one fit on a LocalCluster), each is the one-machine model (leaf
values equal within the order of the sums)."""

import pickle

import numpy as np
import pytest
from scipy.special import expit
from sklearn.datasets import make_classification, make_regression

from treeboost import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRanker,
    HistGradientBoostingRegressor,
)
from treeboost.dask._boosting import (
    DaskHistGradientBoostingClassifier,
    DaskHistGradientBoostingRegressor,
    _Shards,
)
from treeboost.dask._ranking import DaskHistGradientBoostingRanker, RankingShard
from treeboost.losses import SquaredError

from .test_dask_grower import assert_same_model, fit_partitioned

KW = dict(max_iter=6, early_stopping=False)


# -- module-level losses: they pickle by reference, as the workers need ---------------------
def squared_error(y, raw):
    return raw - y, np.ones_like(raw)


def logistic(y, raw):
    p = expit(raw)
    return p - y, p * (1.0 - p)


def softmax_loss(y, raw):
    """The multinomial log loss's gradient and diagonal hessian (y: class indices)."""
    p = np.exp(raw - raw.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    onehot = np.eye(raw.shape[1])[y]
    return p - onehot, p * (1.0 - p)


def nan_gradient(y, raw):
    g = raw - y
    g[3] = np.nan
    return g, np.ones_like(raw)


def short_hessian(y, raw):
    return raw - y, np.ones(raw.shape[0] - 1)


class MySquaredError(SquaredError):
    """A user's subclass (its module makes it a custom loss)."""


def _regression(n=1500):
    return make_regression(n, 5, noise=3.0, random_state=0)


@pytest.mark.parametrize("loss", [squared_error, MySquaredError()])
def test_custom_squared_error_is_the_built_in_model(loss):
    X, y = _regression()
    one = HistGradientBoostingRegressor(**KW).fit(X, y)
    dist = fit_partitioned(
        DaskHistGradientBoostingRegressor(loss=loss, **KW), X, y, [0, 400, 900, 1500]
    )
    assert_same_model(one, dist, X, rtol=1e-10)
    np.testing.assert_allclose(dist.predict(X), one.predict(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(dist._init_raw, one._init_raw, rtol=1e-12)


def test_custom_logistic_is_log_loss():
    X, y = make_classification(1200, 6, n_informative=4, random_state=1)
    w = np.random.default_rng(0).uniform(0.5, 2.0, y.size)
    one = HistGradientBoostingClassifier(**KW).fit(X, y, sample_weight=w)
    dist = fit_partitioned(
        DaskHistGradientBoostingClassifier(loss=logistic, **KW),
        X,
        y,
        [0, 300, 700, 1200],
        sample_weight=w,
    )
    assert_same_model(one, dist, X, rtol=1e-10)
    np.testing.assert_allclose(dist.predict_proba(X), one.predict_proba(X), rtol=0, atol=1e-10)
    # the callable has no value: no score is recorded, no divergence is seen in NaN
    assert dist.n_iter_ == KW["max_iter"]


def test_custom_loss_of_three_classes_is_the_one_machine_model():
    """K outputs: the initial score by Newton on each output summed over the shards,
    as the one-machine callable's."""
    X, y = make_classification(1200, 6, n_informative=4, n_classes=3, random_state=2)
    kw = dict(KW, loss=softmax_loss)
    one = HistGradientBoostingClassifier(**kw).fit(X, y)
    dist = fit_partitioned(DaskHistGradientBoostingClassifier(**kw), X, y, [0, 500, 1200])
    np.testing.assert_allclose(dist._init_raw, one._init_raw, rtol=1e-12)
    assert_same_model(one, dist, X, rtol=1e-10)


@pytest.mark.parametrize(
    "loss, match",
    [(nan_gradient, "gradient is not finite"), (short_hessian, "hessian has shape")],
)
def test_bad_gradients_are_refused_by_name(loss, match):
    X, y = _regression(600)
    est = DaskHistGradientBoostingRegressor(loss=loss, **KW)
    with pytest.raises(ValueError, match=f"loss={loss.__name__}: the {match}"):
        fit_partitioned(est, X, y, [0, 300, 600])


def test_a_loss_that_cannot_travel_is_refused_before_the_fit():
    def local(y, raw):  # a nested function: pickle cannot name it
        return raw - y, np.ones_like(raw)

    for loss in (local, lambda y, raw: (raw - y, np.ones_like(raw))):
        est = DaskHistGradientBoostingRegressor(loss=loss, **KW)
        with pytest.raises(TypeError, match="cannot be sent to the Dask workers"):
            est._check_supported()


def test_early_stopping_needs_a_loss_with_a_value():
    X, y = _regression(600)
    est = DaskHistGradientBoostingRegressor(loss=squared_error, max_iter=4, early_stopping=True)
    with pytest.raises(ValueError, match="loss=squared_error gives its gradients only"):
        fit_partitioned(est, X, y, [0, 300, 600])
    # a Loss subclass has a value: early stopping on the training loss works
    sub = DaskHistGradientBoostingRegressor(loss=MySquaredError(), max_iter=4, early_stopping=True)
    fit_partitioned(sub, X, y, [0, 300, 600])
    assert len(sub.train_score_) == sub.n_iter_ + 1


def test_a_worker_takes_the_loss_from_the_prepare_step_only():
    """The loss reaches a shard as the bytes of ``prepare``; a worker that cannot
    import it says so as a TypeError (the user's error, not a lost worker)."""
    from treeboost.dask._losses import unpack_loss

    bad = pickle.dumps(squared_error).replace(b"squared_error", b"squared_errox")
    with pytest.raises(TypeError, match="could not load the fit's loss"):
        unpack_loss(bad)


# -- the ranker ---------------------------------------------------------------------------
def _queries(seed=0, n_queries=60):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 25, n_queries)
    X = rng.normal(size=(sizes.sum(), 4))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + 1), 0, 4).astype(int)
    return X, y, sizes


def _parts(X, y, bounds, qid=None):
    """The row partitions ``X[bounds[i]:bounds[i + 1]]`` as a shard takes them."""
    parts = [np.arange(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    return [(X[p], y[p], None) if qid is None else (X[p], y[p], None, qid[p]) for p in parts]


def fit_ranker(est, X, y, bounds, group=None, qid=None, val=None):
    """``est`` fitted on ranking shards in this process, two partitions a shard (and
    ``val``: ``(X_val, y_val, bounds, group_val, qid_val)``, two a shard)."""
    train = _parts(X, y, bounds, qid)
    est._groups = {"train": None if group is None else np.asarray(group)}
    held = []
    if val is not None:
        Xv, yv, bv, gv, qv = val
        held = _parts(Xv, yv, bv, qv)
        est._groups["val"] = None if gv is None else np.asarray(gv)
    n = max(len(train), len(held))
    shards = [RankingShard(train[i : i + 2], held[i : i + 2]) for i in range(0, n, 2)]
    est._check_supported()
    try:
        est._fit_shards(_Shards.in_process(shards, 10), val is not None)
    finally:
        del est._groups
    return est


@pytest.mark.parametrize("loss", ["lambdarank", "pairwise"])
@pytest.mark.parametrize("by", ["group", "qid"])
def test_ranker_is_the_one_machine_ranker(loss, by):
    X, y, sizes = _queries()
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    bounds = [0, offsets[10], offsets[25], offsets[26], offsets[60]]  # at query boundaries
    qid = np.repeat(np.arange(sizes.size) * 7 + 3, sizes)
    kw = dict(loss=loss, max_iter=8, early_stopping=False, min_samples_leaf=5)
    one = HistGradientBoostingRanker(**kw).fit(X, y, group=sizes)
    dist = DaskHistGradientBoostingRanker(**kw)
    if by == "group":
        fit_ranker(dist, X, y, bounds, group=sizes)
    else:
        fit_ranker(dist, X, y, bounds, qid=qid)
    assert_same_model(one, dist, X, rtol=1e-10)
    np.testing.assert_allclose(dist.predict(X), one.predict(X), rtol=0, atol=1e-10)
    assert type(dist.to_local()) is HistGradientBoostingRanker


def test_ranker_early_stopping_on_the_mean_query_loss():
    X, y, sizes = _queries(1)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    kw = dict(max_iter=5, early_stopping=True, scoring="loss", min_samples_leaf=5)
    dist = fit_ranker(
        DaskHistGradientBoostingRanker(**kw), X, y, [0, offsets[30], offsets[60]], group=sizes
    )
    one = HistGradientBoostingRanker(**kw, validation_fraction=None).fit(X, y, group=sizes)
    np.testing.assert_allclose(dist.train_score_, one.train_score_, rtol=1e-10)


def test_a_query_across_partitions_is_refused_by_name():
    X, y, sizes = _queries(2)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    cut = offsets[12] + 2  # inside query 12
    bounds = [0, offsets[5], cut, offsets[60]]
    est = DaskHistGradientBoostingRanker(max_iter=2, early_stopping=False)
    with pytest.raises(ValueError, match=r"query 12 of group .* partitions 1 and 2 of X"):
        fit_ranker(est, X, y, bounds, group=sizes)
    qid = np.repeat(100 + np.arange(sizes.size), sizes)
    with pytest.raises(ValueError, match=r"query id 112 of qid lies in partitions 1 and 2"):
        fit_ranker(est, X, y, bounds, qid=qid)
    # the same query id again further on, within one partition
    qid[offsets[20] : offsets[21]] = 100
    with pytest.raises(ValueError, match="must be contiguous in qid"):
        fit_ranker(est, X, y, [0, offsets[30], offsets[60]], qid=qid)


@pytest.mark.parametrize("scoring", ["ndcg@5", "map", "loss"])
def test_ranker_early_stopping_on_validation_queries(scoring):
    X, y, sizes = _queries(4)
    Xv, yv, sv = _queries(5, 30)
    off, off_v = np.cumsum(sizes), np.cumsum(sv)
    kw = dict(
        max_iter=20, early_stopping=True, scoring=scoring, n_iter_no_change=2, min_samples_leaf=5
    )
    one = HistGradientBoostingRanker(**kw).fit(X, y, group=sizes, X_val=Xv, y_val=yv, group_val=sv)
    qid_v = np.repeat(np.arange(sv.size), sv)
    dist = fit_ranker(
        DaskHistGradientBoostingRanker(**kw),
        X,
        y,
        [0, off[20], off[59]],
        group=sizes,
        val=(Xv, yv, [0, off_v[9], off_v[17], off_v[29]], None, qid_v),
    )
    assert dist.n_iter_ == one.n_iter_ < 20
    np.testing.assert_allclose(dist.validation_score_, one.validation_score_, rtol=1e-10)
    np.testing.assert_allclose(dist.train_score_, one.train_score_, rtol=1e-10)
    np.testing.assert_allclose(dist.predict(X), one.predict(X), rtol=0, atol=1e-10)


def test_ranker_refuses_what_it_does_not_support():
    with pytest.raises(ValueError, match="without X_val"):
        DaskHistGradientBoostingRanker().fit(None, None, group=[1], group_val=[1])
    with pytest.raises(ValueError, match="pass group="):
        DaskHistGradientBoostingRanker().fit(None, None)
    with pytest.raises(TypeError, match="qid must be a dask array"):
        DaskHistGradientBoostingRanker().fit(None, None, qid=np.zeros(3))


# -- on a cluster ---------------------------------------------------------------------------
def test_custom_loss_and_ranker_on_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    X, y, sizes = _queries(3)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    chunks = tuple(np.diff([0, offsets[20], offsets[41], offsets[60]]).tolist())
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            protocol="tcp",  # the shards' direct channels carry the steps, the loss too
            dashboard_address=None,
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster),
    ):
        Xd, yd = da.from_array(X, chunks=(chunks, 4)), da.from_array(y, chunks=(chunks,))
        kw = dict(max_iter=4, early_stopping=False, min_samples_leaf=5)
        one = HistGradientBoostingRanker(**kw).fit(X, y, group=sizes)
        dist = DaskHistGradientBoostingRanker(**kw).fit(Xd, yd, group=sizes)
        np.testing.assert_allclose(dist.predict(X), one.predict(X), rtol=0, atol=1e-10)
        qid = da.from_array(np.repeat(np.arange(sizes.size), sizes), chunks=(chunks,))
        by_qid = DaskHistGradientBoostingRanker(**kw).fit(Xd, yd, qid=qid)
        np.testing.assert_allclose(by_qid.predict(X), one.predict(X), rtol=0, atol=1e-10)
        # validation queries in partitions of their own, qid_val on the workers
        Xv, yv, sv = _queries(5, 30)
        cv = tuple(np.diff([0, np.cumsum(sv)[14], sv.sum()]).tolist())
        es = dict(kw, max_iter=20, early_stopping=True, n_iter_no_change=2)
        one_es = HistGradientBoostingRanker(**es).fit(
            X, y, group=sizes, X_val=Xv, y_val=yv, group_val=sv
        )
        dist_es = DaskHistGradientBoostingRanker(**es).fit(
            Xd,
            yd,
            group=sizes,
            X_val=da.from_array(Xv, chunks=(cv, 4)),
            y_val=da.from_array(yv, chunks=(cv,)),
            qid_val=da.from_array(np.repeat(np.arange(sv.size), sv), chunks=(cv,)),
        )
        assert dist_es.n_iter_ == one_es.n_iter_ < 20
        np.testing.assert_allclose(dist_es.validation_score_, one_es.validation_score_, rtol=1e-10)
        yr = X @ np.arange(1.0, 5.0)
        reg = DaskHistGradientBoostingRegressor(loss=squared_error, **kw)
        reg.fit(Xd, da.from_array(yr, chunks=(chunks,)))
        ref = HistGradientBoostingRegressor(**kw).fit(X, yr)
        np.testing.assert_allclose(reg.predict(X), ref.predict(X), rtol=0, atol=1e-10)
