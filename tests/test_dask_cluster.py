"""treeboost.dask on a LocalCluster of worker processes: the data stays where it is,
the model is the one-machine model's, a dead worker ends the fit with an error."""

import os
import signal
import threading
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

from treeboost import HistGradientBoostingClassifier, HistGradientBoostingRegressor, load  # noqa: E402
from treeboost.dask import (
    DaskHistGradientBoostingClassifier,  # noqa: E402
    DaskHistGradientBoostingRegressor,
    WorkerLostError,
)

from .test_dask_grower import assert_same_model  # noqa: E402


def _cluster():
    return distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    )


@pytest.fixture(scope="module")
def client():
    with _cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def _chunk(seed, n, n_features):
    X, y = make_classification(n, n_features, n_informative=4, random_state=seed)
    X[::9, 0] = np.nan
    return X, y


def _data_on_workers(client, n_chunks=6, n=4000, n_features=6):
    """X and y made on the workers, chunk by chunk (nothing from the client)."""
    import dask

    parts = [dask.delayed(_chunk)(i, n, n_features) for i in range(n_chunks)]
    X = da.concatenate([da.from_delayed(p[0], (n, n_features), np.float64) for p in parts])
    y = da.concatenate([da.from_delayed(p[1], (n,), np.int64) for p in parts])
    return client.persist([X, y])


def test_array_fit_is_the_one_machine_model(client):
    X, y = _data_on_workers(client)
    kw = dict(max_iter=10, early_stopping=False)
    dist = DaskHistGradientBoostingClassifier(**kw).fit(X, y)
    Xn, yn = X.compute(), y.compute()
    one = HistGradientBoostingClassifier(**kw).fit(Xn, yn)
    assert_same_model(one, dist, Xn)
    # predict on a dask collection is a dask collection, partition by partition
    proba = dist.predict_proba(X)
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), one.predict_proba(Xn), atol=1e-9)
    np.testing.assert_array_equal(dist.predict(X).compute(), one.predict(Xn))
    # both workers held rows and took part
    assert len(client.who_has(distributed.futures_of(X)).values()) > 0


def test_dataframe_with_categories_and_missing_values(client):
    rng = np.random.default_rng(0)
    n = 6000
    df = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(["x", "y", "z", "w"], n)),
        }
    )
    df.loc[::7, "a"] = np.nan
    y = pd.Series(((df["c"] == "x") ^ (df["b"] > 0)).astype(int), name="y")
    ddf = dd.from_pandas(df, npartitions=5)
    dy = dd.from_pandas(y, npartitions=5)
    kw = dict(max_iter=6, early_stopping=False)
    dist = DaskHistGradientBoostingClassifier(**kw).fit(ddf, dy)
    one = HistGradientBoostingClassifier(**kw).fit(df, y)
    assert dist.feature_names_in_.tolist() == ["a", "b", "c"]
    assert_same_model(one, dist, df)
    assert dist.predict(ddf).compute().shape == (n,)


def test_regressor_with_weights_and_validation_collection(client):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(8000, 5))
    y = X[:, 0] * 2 - X[:, 1] + rng.normal(scale=0.1, size=8000)
    w = rng.uniform(0.5, 2.0, 8000)
    Xd, yd, wd = (da.from_array(a, chunks=2000) for a in (X, y, w))
    kw = dict(max_iter=300, learning_rate=0.5, n_iter_no_change=2)
    dist = DaskHistGradientBoostingRegressor(**kw).fit(
        Xd[:6000], yd[:6000], wd[:6000], X_val=Xd[6000:], y_val=yd[6000:]
    )
    assert 2 < dist.n_estimators_ < 300
    assert dist.validation_score_.shape == (dist.n_estimators_ + 1,)
    assert dist.score(X[6000:], y[6000:]) > 0.95


def test_a_worker_with_validation_rows_only(client):
    """A worker may hold partitions of the validation set and none of the training set
    (the scheduler places them): its shard has no training row to sample for the bins,
    and the fit is the one of the training rows."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5000, 4))
    y = X[:, 0] - X[:, 1] + rng.normal(scale=0.1, size=5000)
    a, b = sorted(client.scheduler_info()["workers"])
    Xt, yt = (client.persist(da.from_array(v[:4000], chunks=2000), workers=[a]) for v in (X, y))
    Xv, yv = (client.persist(da.from_array(v[4000:], chunks=1000), workers=[b]) for v in (X, y))
    kw = dict(max_iter=20, learning_rate=0.5, n_iter_no_change=2)
    dist = DaskHistGradientBoostingRegressor(**kw).fit(Xt, yt, X_val=Xv, y_val=yv)
    assert dist.validation_score_.shape == (dist.n_estimators_ + 1,)
    assert dist.score(X[4000:], y[4000:]) > 0.9


def test_quantile_loss_with_constraints_and_class_weight_on_the_cluster(client):
    """The selection rounds and the constrained growth through the workers' direct
    connections: the one-machine models."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(8000, 5))
    y = X[:, 0] * 2 - X[:, 1] + rng.standard_t(2, size=8000)
    Xd, yd = (da.from_array(a, chunks=1500) for a in (X, y))
    kw = dict(
        loss="quantile",
        quantile=0.7,
        max_iter=5,
        early_stopping=False,
        monotonic_cst=[1, 0, 0, 0, 0],
    )
    dist = DaskHistGradientBoostingRegressor(**kw).fit(Xd, yd)
    assert_same_model(HistGradientBoostingRegressor(**kw).fit(X, y), dist, X)
    Xc, yc = _data_on_workers(client, n_chunks=4, n=2000)
    kw = dict(max_iter=5, early_stopping=False, class_weight="balanced", interaction_cst="pairwise")
    dist = DaskHistGradientBoostingClassifier(**kw).fit(Xc, yc)
    Xn, yn = Xc.compute(), yc.compute()
    assert_same_model(HistGradientBoostingClassifier(**kw).fit(Xn, yn), dist, Xn)


def test_the_model_saves_and_loads_as_the_one_machine_estimator(client, tmp_path):
    X, y = _data_on_workers(client, n_chunks=4, n=2000)
    dist = DaskHistGradientBoostingClassifier(max_iter=5, early_stopping=False).fit(X, y)
    dist.save(tmp_path / "m.tb")
    loaded = load(tmp_path / "m.tb")
    assert type(loaded) is HistGradientBoostingClassifier
    Xn = X.compute()
    np.testing.assert_array_equal(loaded.predict_proba(Xn), dist.predict_proba(Xn))


def test_one_partition_leaves_a_worker_without_rows(client):
    X, y = _data_on_workers(client, n_chunks=1, n=3000)
    dist = DaskHistGradientBoostingClassifier(max_iter=4, early_stopping=False).fit(X, y)
    one = HistGradientBoostingClassifier(max_iter=4, early_stopping=False).fit(
        X.compute(), y.compute()
    )
    assert_same_model(one, dist, X.compute())


def test_fits_submitted_at_once(client):
    X, y = _data_on_workers(client, n_chunks=4, n=2000)
    models = [
        DaskHistGradientBoostingClassifier(max_iter=5, early_stopping=False, learning_rate=lr)
        for lr in (0.1, 0.3)
    ]
    threads = [threading.Thread(target=m.fit, args=(X, y)) for m in models]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    Xn, yn = X.compute(), y.compute()
    for m in models:
        one = HistGradientBoostingClassifier(
            max_iter=5, early_stopping=False, learning_rate=m.learning_rate
        ).fit(Xn, yn)
        assert_same_model(one, m, Xn)


def test_client_memory_does_not_grow_with_the_data(client):
    """The data is made on the workers; the client holds the bins' sample (at most
    BinMapper.subsample rows whatever the data's size) and histograms: its peak during
    the fit is the same for 4 x the rows."""
    peaks = []
    for n_chunks in (3, 12):
        X, y = _data_on_workers(client, n_chunks, 100_000, 10)
        tracemalloc.start()
        DaskHistGradientBoostingClassifier(max_iter=2, early_stopping=False).fit(X, y)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        del X, y
    extra_data = 9 * 100_000 * 10 * 8
    assert peaks[1] - peaks[0] < 0.1 * extra_data, (peaks, extra_data)


def kill_during_fit(client, fit, victim_pid, settle, sig=signal.SIGKILL, within=60):
    """Run ``fit()`` in a thread and send ``sig`` to the worker process ``victim_pid``
    while it runs: once every worker holds its shard (an actor) and ``settle`` seconds
    more have passed.  Assert that the fit ends within ``within`` seconds of the signal,
    and return the WorkerLostError it raised (None if it raised none)."""
    errors = []

    def run():
        try:
            fit()
        except WorkerLostError as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not all(
        client.run(lambda dask_worker: len(dask_worker.state.actors)).values()
    ):
        time.sleep(0.1)
    time.sleep(settle)
    os.kill(victim_pid, sig)
    t0 = time.monotonic()
    thread.join(within)
    assert not thread.is_alive(), f"the fit did not end within {within} s"
    assert time.monotonic() - t0 < within
    return errors[0] if errors else None


def test_a_killed_worker_ends_the_fit_with_an_error():
    with _cluster() as cluster, distributed.Client(cluster) as c:
        X, y = _data_on_workers(c, n_chunks=4, n=20_000)
        pids = c.run(os.getpid)
        model = DaskHistGradientBoostingClassifier(max_iter=10_000, early_stopping=False)
        error = kill_during_fit(c, lambda: model.fit(X, y), pids[sorted(pids)[0]], 1.0)
        assert error is not None and "lost" in str(error), error
