"""Helpers several test modules share: a CLI mistake's one error line, a frame of
rare categories and dates, LightGBM set to grow on treeboost's bins, and the parameters
of a split-search test."""

import numpy as np


def cli_error(argv, capsys):
    """Run the CLI on ``argv``; assert it ends with status 2 and one ``treeboost: error:``
    line on stderr, and return that line."""
    from treeboost.cli import main

    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("treeboost: error:"), err
    return err[0]


def cities_and_days():
    """A category column with 300 rare categories (one row each: they share one code)
    and a date column; the target (0/1) depends on both."""
    import pandas as pd

    rng = np.random.RandomState(0)
    city = [f"c{i}" for i in range(10)] * 50 + [f"r{i}" for i in range(300)]
    day = pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.randint(0, 60, len(city)), unit="D")
    X = pd.DataFrame({"city": pd.Series(city, dtype="category"), "day": day})
    y = (X["city"].isin(["c1", "c3", "c5"]) | X["city"].str.startswith("r")).to_numpy() ^ (
        X["day"] > "2024-02-01"
    ).to_numpy()
    return X, y.astype(int)


def lightgbm_on_our_bins(estimator="LGBMRegressor", **params):
    """A LightGBM estimator set to grow what treeboost's boosters grow on the same data:
    255 bins of one row or more, a minimum hessian sum of 1e-3, one deterministic thread,
    row-wise histograms; ``params`` give the trees and the loss.  Skips the test without
    LightGBM."""
    import pytest

    lgb = pytest.importorskip("lightgbm")
    matched = dict(
        min_child_weight=1e-3,
        max_bin=255,
        min_data_in_bin=1,
        n_jobs=1,
        deterministic=True,
        force_row_wise=True,
        verbose=-1,
    )
    return getattr(lgb, estimator)(**{**matched, **params})


def search_params(criterion, n_features=1, **fields):
    """The GrowthParams of a split-search test on ``n_features`` features: two statistics
    columns, no depth, leaf-count or size limits, no constraints; ``fields`` set any other
    field (through the grower's own factory, growth_params)."""
    from treeboost.engine.records import growth_params

    base = dict(
        criterion=criterion,
        n_stats=2,
        l2=0.0,
        max_depth=-1,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_leaf=0.0,
        min_decrease=0.0,
        max_features=n_features,
        max_leaf_nodes=-1,
        dense_min_samples=32,
        random_split=False,
        monotonic=False,
        monotonic_cst=np.zeros(n_features, np.int8),
        interaction=np.zeros((n_features, 0), np.uint64),
    )
    return growth_params(**{**base, **fields})
