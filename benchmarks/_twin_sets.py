"""Data sets that installed packages ship (no download), for ``bench_twins.py``.

Each loader returns ``(X, y, classifier)``; ``X`` is a pandas frame whose string columns
stay strings (with their missing values), so that the bench can give treeboost the raw
frame and both libraries the ordinal matrix (:func:`ordinal`).  A loader whose package is
not installed raises ImportError (the bench leaves the set out).

======================  =======  ==========================================================
set                     rows     what it has
======================  =======  ==========================================================
titanic                 891      treeboost.datasets; strings (Sex, Embarked, Ticket with 681
                                 levels, Cabin with 147), missing values (Age, Cabin)
penguins_raw            344      palmerpenguins with every column: strings (island, sex),
                                 missing values
grunfeld                220      statsmodels; ``firm`` a string of 11 levels (regression)
randhie                 20,190   statsmodels (regression of ``mdvis``): over 10,000 rows
fair                    6,366    statsmodels; affairs > 0, occupations as strings
anes96                  944      statsmodels; vote
modechoice              840      statsmodels; the mode as a string, chosen or not
star98                  303      statsmodels; share above the median (regression)
spector                 32       statsmodels; GRADE (classification on 32 rows)
scotland                32       statsmodels; YES (regression on 32 rows)
stackloss               21       statsmodels; STACKLOSS (regression on 21 rows)
ccard                   72       statsmodels; AVGEXP (regression)
mpg                     234      plotnine's copy of ggplot2's mpg; ``hwy`` (regression),
                                 ``model`` a string of 38 levels, six string columns
msleep                  83       plotnine's msleep; ``sleep_total`` (regression), ``genus``
                                 of 77 levels, missing values in strings and numbers
default                 10,000   ISLP's copy of ISLR's Default: ``default`` (classification),
                                 ``balance`` and ``income`` of ~10,000 distinct values
wage                    3,000    ISLP's Wage: ``wage`` (regression), seven string columns
======================  =======  ==========================================================

plotnine's and ISLP's data sets are read from their package folders as CSV files (neither
package is imported; ISLP installs without its dependencies: ``pip install --no-deps
ISLP``).
"""

import importlib.util
from pathlib import Path

import numpy as np


def _sm(name):
    import statsmodels.api as sm

    return getattr(sm.datasets, name).load_pandas().data.copy()


def titanic():
    import treeboost.datasets as tbd

    X, y = tbd.load_titanic(return_X_y=True)
    X = X.drop(columns=["Name"])  # one level a row: an id, not a feature
    for c in ("Sex", "Embarked"):
        X[c] = X[c].astype(object)
    return X, np.asarray(y), True


def penguins_raw():
    from palmerpenguins import load_penguins

    d = load_penguins()
    y = d.pop("species").astype("category").cat.codes.to_numpy()
    for c in ("island", "sex"):
        d[c] = d[c].astype(object)
    return d, y, True


def grunfeld():
    d = _sm("grunfeld")
    y = d.pop("invest").to_numpy(float)
    d["firm"] = d["firm"].astype(object)
    return d, y, False


def randhie():
    d = _sm("randhie")
    y = d.pop("mdvis").to_numpy(float)
    return d, y, False


def fair():
    d = _sm("fair")
    y = (d.pop("affairs").to_numpy(float) > 0).astype(int)
    for c in ("occupation", "occupation_husb"):
        d[c] = ("job" + d[c].astype(int).astype(str)).astype(object)
    return d, y, True


def anes96():
    d = _sm("anes96")
    y = d.pop("vote").to_numpy(int)
    return d, y, True


def modechoice():
    d = _sm("modechoice").drop(columns=["individual"])
    y = d.pop("choice").to_numpy(int)
    names = {1: "air", 2: "train", 3: "bus", 4: "car"}
    d["mode"] = d["mode"].astype(int).map(names).astype(object)
    return d, y, True


def star98():
    d = _sm("star98")
    above = d.pop("NABOVE").to_numpy(float)
    below = d.pop("NBELOW").to_numpy(float)
    return d, above / (above + below), False


def _package_csv(package, name, hint=""):
    """A CSV file of a package's ``data`` folder as a frame, its text columns as strings
    (the package itself is not imported); ImportError when it is not installed."""
    import pandas as pd

    spec = importlib.util.find_spec(package)
    if spec is None:
        raise ImportError(f"{package} is not installed{hint}")
    d = pd.read_csv(Path(spec.submodule_search_locations[0]) / "data" / f"{name}.csv")
    for c in string_columns(d):
        d[c] = d[c].astype(object)
    return d


def _plotnine(name):
    """One of plotnine's data sets."""
    return _package_csv("plotnine", name)


def mpg():
    d = _plotnine("mpg")
    y = d.pop("hwy").to_numpy(float)
    return d, y, False


def msleep():
    # ``name`` is an id; ``awake`` is 24 minus the target
    d = _plotnine("msleep").drop(columns=["name", "awake"])
    y = d.pop("sleep_total").to_numpy(float)
    return d, y, False


def _islp(name):
    """One of ISLP's data sets (the R package ISLR's, as the book's Python edition ships
    them).  ISLP's own dependencies (torch, lifelines) are not needed for its data:
    ``pip install --no-deps ISLP``."""
    return _package_csv("ISLP", name, " (pip install --no-deps ISLP)")


def default():
    # 10,000 rows; balance and income have about 10,000 distinct values each
    d = _islp("Default")
    y = (d.pop("default") == "Yes").to_numpy(int)
    return d, y, True


def wage():
    # ``logwage`` is the target's log
    d = _islp("Wage").drop(columns=["logwage"])
    y = d.pop("wage").to_numpy(float)
    return d, y, False


def _target(name, target, classifier):
    def load():
        d = _sm(name)
        y = d.pop(target).to_numpy(float)
        return d, (y.astype(int) if classifier else y), classifier

    load.__name__ = name
    return load


SETS = {
    "titanic": titanic,
    "penguins_raw": penguins_raw,
    "grunfeld": grunfeld,
    "randhie": randhie,
    "fair": fair,
    "anes96": anes96,
    "modechoice": modechoice,
    "star98": star98,
    "spector": _target("spector", "GRADE", True),
    "scotland": _target("scotland", "YES", False),
    "stackloss": _target("stackloss", "STACKLOSS", False),
    "ccard": _target("ccard", "AVGEXP", False),
    "mpg": mpg,
    "msleep": msleep,
    "default": default,
    "wage": wage,
}


def string_columns(X):
    """The frame's columns of strings (object or string dtype)."""
    return [c for c in X.columns if X[c].dtype == object or str(X[c].dtype) in ("str", "string")]


def ordinal(X):
    """The frame as a float matrix: each string column's levels numbered 0, 1, ... in
    sorted order (scikit-learn's ``OrdinalEncoder``), missing values kept as NaN."""
    import pandas as pd

    out = X.copy()
    for c in string_columns(X):
        codes = pd.Categorical(X[c]).codes.astype(float)
        codes[codes < 0] = np.nan
        out[c] = codes
    return out.to_numpy(float)


def nadeau_bengio(a, b, n_train, n_test):
    """The corrected repeated-CV t-test (Nadeau & Bengio 2003) of the paired fold scores
    ``a`` and ``b``: ``t = mean(d) / sqrt((1/k + n_test/n_train) var(d))`` over the ``k``
    differences ``d = a - b``, ``k - 1`` degrees of freedom.  Returns the two-sided
    p-value (1 when the scores never differ)."""
    from scipy import stats

    d = np.asarray(a, float) - np.asarray(b, float)
    k = d.size
    var = d.var(ddof=1)
    if var == 0.0:
        return 1.0 if d.mean() == 0.0 else 0.0
    t = d.mean() / np.sqrt((1.0 / k + n_test / n_train) * var)
    return float(2 * stats.t.sf(abs(t), k - 1))
