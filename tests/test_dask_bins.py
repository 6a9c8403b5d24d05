"""Above BinMapper's subsample (200,000 rows) a Dask fit bins as the one-machine fit:
the client draws the same rows, by their number among the partitions' rows, and the
model is the one-machine model (the README's promise), with the client holding the
sample alone."""

import tracemalloc

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from treeboost import HistGradientBoostingRegressor, RandomForestRegressor  # noqa: E402
from treeboost.dask import DaskHistGradientBoostingRegressor, DaskRandomForestRegressor  # noqa: E402

from .test_dask_grower import assert_same_model  # noqa: E402

N_CHUNKS, CHUNK, N_FEATURES = 5, 50_000, 3  # 250,000 rows


def _chunk(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(CHUNK, N_FEATURES))
    X[::7, 1] = np.nan
    w = np.where(np.arange(CHUNK) % 11 == 0, 0.0, 1.0)  # rows of no weight take no part
    return X, X[:, 0] + np.nan_to_num(X[:, 1]) ** 2 + 0.1 * rng.normal(size=CHUNK), w


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def data(client):
    import dask

    parts = [dask.delayed(_chunk)(i) for i in range(N_CHUNKS)]
    X, y, w = (
        da.concatenate([da.from_delayed(p[k], shape, np.float64) for p in parts])
        for k, shape in ((0, (CHUNK, N_FEATURES)), (1, (CHUNK,)), (2, (CHUNK,)))
    )
    X, y, w = client.persist([X, y, w])
    distributed.wait([X, y, w])
    # the partitions lie on both workers, in turn (not one worker's rows then the other's)
    who = client.who_has(list(distributed.futures_of(X)))
    assert len({h for hs in who.values() for h in hs}) == 2
    return X, y, w


def test_boosting_bins_and_predictions_are_the_one_machine_fits(client, data):
    X, y, w = data
    kw = dict(max_iter=3, max_leaf_nodes=7, early_stopping=False, random_state=0)
    DaskHistGradientBoostingRegressor(**{**kw, "max_iter": 1}).fit(X, y, w)  # compiled
    tracemalloc.start()
    dist = DaskHistGradientBoostingRegressor(**kw).fit(X, y, w)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    Xn, yn, wn = (a.compute() for a in (X, y, w))
    local = HistGradientBoostingRegressor(**kw).fit(Xn, yn, sample_weight=wn)
    for a, b in zip(dist.bin_mapper_.bin_thresholds_, local.bin_mapper_.bin_thresholds_):
        np.testing.assert_array_equal(a, b)
    # the same splits, leaf values equal within the order of the sums
    assert_same_model(local, dist, Xn)
    np.testing.assert_allclose(dist.predict(Xn), local.predict(Xn), rtol=1e-12)
    # the client holds the 200,000 drawn rows (X, y and weights: 7.6 MiB here) and the
    # BinMapper's sorted copy of their columns, whatever the rows of the data
    # (docs/user_guide/parallel.md)
    sample_bytes = 200_000 * (N_FEATURES + 2) * 8
    assert peak < 3 * sample_bytes, peak / 2**20


def test_forest_bins_are_the_one_machine_forests(client, data):
    X, y, w = data
    kw = dict(n_estimators=2, max_depth=2, random_state=0)
    dist = DaskRandomForestRegressor(**kw).fit(X, y, w)
    Xn, yn, wn = (a.compute() for a in (X, y, w))
    local = RandomForestRegressor(**kw).fit(Xn, yn, sample_weight=wn)
    for a, b in zip(dist.bin_mapper_.bin_thresholds_, local.bin_mapper_.bin_thresholds_):
        np.testing.assert_array_equal(a, b)
