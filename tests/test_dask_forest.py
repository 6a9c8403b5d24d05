"""Random forests grown on a LocalCluster of worker processes: each worker grows its
share of the trees on the rows it holds, the client assembles one ordinary forest."""

import os
import signal

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

from treeboost import RandomForestClassifier, RandomForestRegressor, load  # noqa: E402
from treeboost.dask import (  # noqa: E402
    DaskRandomForestClassifier,
    DaskRandomForestRegressor,
)
from treeboost.dask._forest import tree_shares  # noqa: E402
from treeboost.inspection import shap_values  # noqa: E402

from .test_dask_cluster import _cluster, _data_on_workers, kill_during_fit  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with _cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def _workers(client):
    return sorted(client.scheduler_info()["workers"])


def _on_worker(client, address, *collections):
    """``collections`` persisted on the worker at ``address`` alone."""
    out = client.persist(list(collections), workers=[address])
    distributed.wait(out)
    return out


def _frame(n, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(["x", "y", "z", "w"], n)),
        }
    )
    df.loc[::7, "a"] = np.nan
    y = pd.Series(((df["c"] == "x") ^ (df["b"] > 0)).astype(int), name="y")
    return df, y


def _same_forest(one, dist, X):
    """The same trees in the same order, so the same predictions."""
    assert len(one.estimators_) == len(dist.estimators_)
    for a, b in zip(one.estimators_, dist.estimators_):
        assert a.random_state == b.random_state
        np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
        np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
    method = "predict_proba" if hasattr(one, "classes_") else "predict"
    np.testing.assert_array_equal(getattr(one, method)(X), getattr(dist, method)(X))


# -- the fit on one worker is the one-machine fit: encoder, bins, classes and seeds --------


def test_dataframe_on_one_worker_grows_the_one_machine_forest(client):
    """Every partition on one worker: the client's sample is all the rows, the bins and
    the categories are the one-machine forest's, and the worker grows the trees of the
    same seeds on the same rows (a DataFrame with a categorical column and NaN)."""
    df, y = _frame(3000, 0)
    w = np.random.default_rng(1).uniform(0.5, 2.0, df.shape[0])
    ddf, dy, dw = _on_worker(
        client,
        _workers(client)[0],
        dd.from_pandas(df, npartitions=4),
        dd.from_pandas(y, npartitions=4),
        dd.from_pandas(pd.Series(w), npartitions=4),
    )
    kw = dict(n_estimators=8, random_state=3, class_weight="balanced", min_samples_leaf=2)
    dist = DaskRandomForestClassifier(**kw).fit(ddf, dy, dw)
    one = RandomForestClassifier(**kw).fit(df, y, sample_weight=w)
    assert dist.feature_names_in_.tolist() == ["a", "b", "c"]
    assert dist._encoder.is_categorical_.tolist() == [False, False, True]
    _same_forest(one, dist, df)
    # predict on a dask DataFrame: a dask array, partition by partition
    proba = dist.predict_proba(ddf)
    assert isinstance(proba, da.Array)
    np.testing.assert_array_equal(proba.compute(), one.predict_proba(df))
    np.testing.assert_array_equal(dist.predict(ddf).compute(), one.predict(df))


def test_regressor_on_one_worker_grows_the_one_machine_forest(client):
    X, y = make_regression(2000, 5, noise=5.0, random_state=0)
    Xd, yd = _on_worker(
        client, _workers(client)[1], da.from_array(X, chunks=500), da.from_array(y, chunks=500)
    )
    kw = dict(n_estimators=6, random_state=0, max_features=0.6, max_samples=0.5)
    dist = DaskRandomForestRegressor(**kw).fit(Xd, yd)
    one = RandomForestRegressor(**kw).fit(X, y)
    _same_forest(one, dist, X)
    pred = dist.predict(Xd)
    assert isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), one.predict(X))


# -- two workers ------------------------------------------------------------------------------


def test_labels_sorted_across_workers_line_up_with_classes(client):
    """Worker A holds the labels "a" and "b", worker B "b" and "c": every tree has a
    column per class of classes_ (0 for a class its worker lacks), and a warning names
    the classes each worker's trees never predict."""
    X, y = make_classification(
        3000, 6, n_informative=4, n_classes=3, n_clusters_per_class=1, random_state=0
    )
    labels = np.array(["a", "b", "c"], dtype=object)[y]
    order = np.argsort(labels, kind="stable")  # sorted across partitions
    X, labels = X[order], labels[order]
    cut = int(np.searchsorted(labels, "b")) + 500  # "b" on both workers
    A, B = _workers(client)
    parts = [
        _on_worker(client, addr, da.from_array(X[s], chunks=750), da.from_array(labels[s], 750))
        for addr, s in ((A, slice(0, cut)), (B, slice(cut, None)))
    ]
    Xd = da.concatenate([p[0] for p in parts])
    yd = da.concatenate([p[1] for p in parts])
    with pytest.warns(UserWarning, match="never predict") as record:
        model = DaskRandomForestClassifier(n_estimators=10, random_state=0).fit(Xd, yd)
    assert sorted(str(r.message).split()[5] for r in record) == [A, B]
    assert model.classes_.tolist() == ["a", "b", "c"]
    n_a = tree_shares(10, [cut, 3000 - cut])[0]
    assert model.trees_per_worker_ == {A: n_a, B: 10 - n_a}
    for i, tree in enumerate(model.estimators_):
        p = tree.predict_proba(X)
        assert p.shape == (3000, 3)
        # the first worker's trees never saw "c", the second's never "a"
        assert np.all(p[:, 2 if i < n_a else 0] == 0)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(model.predict(X)) == {"a", "b", "c"}
    pred = model.predict(Xd)
    assert pred.dtype == object
    np.testing.assert_array_equal(pred.compute(), model.predict(X))


def _split(n_train, n_test, seed):
    X, y = make_classification(
        n_train + n_test, 10, n_informative=5, n_redundant=2, flip_y=0.03, random_state=seed
    )
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def test_accuracy_is_near_the_one_machine_forest(client):
    """Each tree sees one worker's rows (about half of them here): on shuffled
    partitions the test accuracy is within 0.02 of the one-machine forest's."""
    X, y, Xt, yt = _split(12_000, 4_000, 0)
    Xd, yd = client.persist([da.from_array(X, chunks=2000), da.from_array(y, chunks=2000)])
    kw = dict(n_estimators=40, random_state=0)
    dist = DaskRandomForestClassifier(**kw).fit(Xd, yd)
    assert len(dist.trees_per_worker_) == 2 and sum(dist.trees_per_worker_.values()) == 40
    one = RandomForestClassifier(**kw).fit(X, y)
    acc_dist, acc_one = dist.score(Xt, yt), one.score(Xt, yt)
    assert acc_one > 0.85
    assert abs(acc_dist - acc_one) <= 0.02, (acc_dist, acc_one)


def test_regressor_accuracy_is_near_the_one_machine_forest(client):
    X, y = make_regression(8000, 8, n_informative=5, noise=10.0, random_state=1)
    Xd, yd = client.persist([da.from_array(X[:6000], 1500), da.from_array(y[:6000], 1500)])
    kw = dict(n_estimators=30, random_state=0, max_features=0.5)
    dist = DaskRandomForestRegressor(**kw).fit(Xd, yd)
    one = RandomForestRegressor(**kw).fit(X[:6000], y[:6000])
    r2_dist, r2_one = dist.score(X[6000:], y[6000:]), one.score(X[6000:], y[6000:])
    assert r2_one > 0.8
    assert abs(r2_dist - r2_one) <= 0.03, (r2_dist, r2_one)


def test_a_fixed_random_state_and_partitioning_give_the_same_model(client):
    X, y = _data_on_workers(client, n_chunks=4, n=2000)
    kw = dict(n_estimators=12, random_state=7, max_depth=8)
    first = DaskRandomForestClassifier(**kw).fit(X, y)
    second = DaskRandomForestClassifier(**kw).fit(X, y)
    assert first.trees_per_worker_ == second.trees_per_worker_
    _same_forest(first, second, X.compute())
    other = DaskRandomForestClassifier(**{**kw, "random_state": 8}).fit(X, y)
    assert not np.array_equal(other.predict_proba(X).compute(), first.predict_proba(X).compute())


def test_dataframe_with_categories_and_missing_values_on_two_workers(client):
    df, y = _frame(6000, 2)
    ddf, dy = client.persist([dd.from_pandas(df, npartitions=6), dd.from_pandas(y, npartitions=6)])
    model = DaskRandomForestClassifier(n_estimators=20, random_state=0).fit(ddf, dy)
    assert len(model.trees_per_worker_) == 2
    test, yt = _frame(2000, 3)
    assert model.score(test, yt) > 0.95
    assert model.predict(dd.from_pandas(test, npartitions=2)).compute().shape == (2000,)


def test_the_model_is_an_ordinary_forest(client, tmp_path):
    """to_local, save / load and SHAP on NumPy input."""
    X, y = _data_on_workers(client, n_chunks=4, n=1000)
    model = DaskRandomForestClassifier(n_estimators=6, random_state=0, max_depth=6).fit(X, y)
    Xn = X.compute()
    local = model.to_local()
    assert type(local) is RandomForestClassifier
    assert not hasattr(local, "trees_per_worker_")
    np.testing.assert_array_equal(local.predict_proba(Xn), model.predict_proba(Xn))
    model.save(tmp_path / "m.tb")
    loaded = load(tmp_path / "m.tb")
    assert type(loaded) is RandomForestClassifier
    np.testing.assert_array_equal(loaded.predict_proba(Xn), model.predict_proba(Xn))
    values, expected = shap_values(model, Xn[:50])
    np.testing.assert_allclose(values.sum(axis=1) + expected, model.predict_proba(Xn[:50]))
    with pytest.raises(AttributeError, match="one worker"):
        model.estimators_samples_
    with pytest.raises(AttributeError, match="grown on a Dask cluster"):
        local.estimators_samples_


def test_one_partition_leaves_a_worker_without_trees(client):
    X, y = _data_on_workers(client, n_chunks=1, n=2000)
    model = DaskRandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert list(model.trees_per_worker_.values()) == [5]
    assert len(model.estimators_) == 5


def test_trees_are_shared_in_proportion_to_the_rows():
    assert tree_shares(10, [0, 500, 500]).tolist() == [0, 5, 5]
    assert tree_shares(3, [1, 1, 1, 1]).tolist() == [1, 1, 1, 0]
    assert tree_shares(100, [1, 2]).tolist() == [33, 67]
    assert tree_shares(1, [0, 0, 7]).tolist() == [0, 0, 1]
    shares = tree_shares(97, [13, 0, 400, 77, 5])
    assert shares.sum() == 97 and shares[1] == 0


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "param, value",
    [("oob_score", True), ("warm_start", True), ("max_samples", 100)],
)
def test_unsupported_parameters_are_refused_by_name(param, value):
    X = da.zeros((100, 3), chunks=50)
    y = da.zeros(100, chunks=50)
    with pytest.raises(ValueError, match=f"does not support {param}="):
        DaskRandomForestClassifier(**{param: value}).fit(X, y)


def test_in_memory_input_and_several_outputs_are_refused():
    X = np.zeros((100, 3))
    with pytest.raises(TypeError, match="treeboost.RandomForestRegressor"):
        DaskRandomForestRegressor().fit(X, np.zeros(100))
    with pytest.raises(ValueError, match="one-dimensional"):
        DaskRandomForestRegressor().fit(da.from_array(X, chunks=50), da.zeros((100, 2)))


def test_bad_labels_are_the_user_error(client):
    X, _ = _data_on_workers(client, n_chunks=2, n=500)
    y = da.from_array(np.r_[np.zeros(999), np.nan], chunks=500)
    with pytest.raises(ValueError, match="NaN"):
        DaskRandomForestClassifier(n_estimators=2).fit(X, y)


def _nearly_every_row_on_one_worker(c):
    """The victim worker's pid and address, and X, y with 20,000 of their 20,100 rows on
    it: nearly every tree of a forest grows there."""
    pids = c.run(os.getpid)
    victim, other = _workers(c)
    X, y = make_classification(20_100, 6, random_state=0)
    parts = [
        _on_worker(c, addr, da.from_array(X[s], 10_000), da.from_array(y[s], 10_000))
        for addr, s in ((victim, slice(0, 20_000)), (other, slice(20_000, None)))
    ]
    Xd = da.concatenate([p[0] for p in parts])
    yd = da.concatenate([p[1] for p in parts])
    return pids[victim], victim, Xd, yd


def test_a_killed_worker_ends_the_fit_with_an_error():
    """Nearly every row (so every tree but a few) on the worker killed mid-fit: the
    fit ends with WorkerLostError at once, and the other worker is idle by then."""
    with _cluster() as cluster, distributed.Client(cluster) as c:
        pid, victim, Xd, yd = _nearly_every_row_on_one_worker(c)
        model = DaskRandomForestClassifier(n_estimators=4000, max_features=None)
        error = kill_during_fit(c, lambda: model.fit(Xd, yd), pid, 1.5)
        assert error is not None and victim in str(error), error


def test_a_frozen_worker_ends_the_fit_within_its_heartbeat_timeout():
    """Regression: a worker stopped by SIGSTOP stays in the cluster (Dask waits for its
    worker-ttl, 5 minutes); the forest waited until then.  Its heartbeats stop, and the
    fit ends within heartbeat_timeout plus a poll or two."""
    with _cluster() as cluster, distributed.Client(cluster) as c:
        pid, victim, Xd, yd = _nearly_every_row_on_one_worker(c)
        model = DaskRandomForestClassifier(n_estimators=4000, max_features=None)
        model.heartbeat_timeout = 4.0
        try:
            error = kill_during_fit(
                c, lambda: model.fit(Xd, yd), pid, 1.5, signal.SIGSTOP, within=15
            )
        finally:
            os.kill(pid, signal.SIGCONT)
        assert error is not None and "heartbeat" in str(error) and victim in str(error), error
