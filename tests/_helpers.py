"""Helpers several test modules share: a CLI mistake's one error line, and a frame of
rare categories and dates."""

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
