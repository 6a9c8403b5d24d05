"""Loaders of the CSV files shipped in ``treeboost/datasets/data`` (no network)."""
import csv
import io
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

WATERMELON_TRAIN_IDS = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17]
WATERMELON_VALIDATION_IDS = [4, 5, 8, 9, 11, 12, 13]


def _read_text(name):
    return resources.files("treeboost.datasets").joinpath("data", name).read_text("utf-8")


def _pandas(as_frame):
    if not as_frame:
        return None
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - exercised only without pandas
        raise ImportError("pandas is required for as_frame=True; install treeboost[test] "
                          "(or pandas) or pass as_frame=False.") from None
    return pd


def load_titanic(*, as_frame=True, return_X_y=False):
    """The 891 passengers of the Titanic training set; target ``Survived`` (1 = yes).

    Parameters
    ----------
    as_frame : bool, default=True
        Return pandas objects (needs pandas): ``Sex`` and ``Embarked`` as ``category``,
        ``Age`` and ``Fare`` as floats with NaN for missing, the text columns as object.
        With False, ``data`` is a numpy object array (missing values as None... as NaN for
        numeric columns) and ``target`` an int array.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    Bunch with ``data``, ``target``, ``frame`` (None when not ``as_frame``),
    ``feature_names``, ``target_names`` and ``DESCR``; or ``(data, target)``.

    Notes
    -----
    549 died, 342 survived; ``Age`` is missing for 177 passengers, ``Cabin`` for 687 and
    ``Embarked`` for 2.  Public data, originally compiled from Encyclopedia Titanica.
    """
    text = _read_text("titanic.csv")
    features = ["Pclass", "Name", "Sex", "Age", "SibSp", "Parch", "Ticket", "Fare", "Cabin",
                "Embarked"]
    descr = ("Titanic passengers (training set, 891 rows). Target Survived (0/1). "
             "Public data, originally compiled from Encyclopedia Titanica.")
    pd = _pandas(as_frame)
    if pd is not None:
        frame = pd.read_csv(io.StringIO(text))
        for col in ("Sex", "Embarked"):
            frame[col] = frame[col].astype("category")
        for col in ("Age", "Fare"):
            frame[col] = frame[col].astype(float)
        for col in ("Name", "Ticket", "Cabin"):
            frame[col] = frame[col].astype(object)
        data = frame[features]
        target = frame["Survived"].astype(int)
    else:
        rows = list(csv.reader(io.StringIO(text)))
        header, body = rows[0], rows[1:]
        cols = {name: [r[i] for r in body] for i, name in enumerate(header)}

        def num(values):
            return np.array([float(v) if v != "" else np.nan for v in values])
        data = np.empty((len(body), len(features)), dtype=object)
        for j, name in enumerate(features):
            if name in ("Pclass", "Age", "SibSp", "Parch", "Fare"):
                data[:, j] = num(cols[name])
            else:
                data[:, j] = [v if v != "" else None for v in cols[name]]
        target = np.array(cols["Survived"], dtype=int)
        frame = None
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, frame=frame, feature_names=features,
                 target_names=np.array([0, 1]), DESCR=descr)


def load_watermelon(*, as_frame=True, return_X_y=False):
    """Watermelon data set 2.0 (Zhou Zhihua, *Machine Learning*, 2016, table 4.1).

    17 melons, six categorical attributes in the book's order: 色泽 (colour), 根蒂 (root),
    敲声 (knock sound), 纹理 (texture), 脐部 (navel), 触感 (touch); target 好瓜 (good melon:
    是 yes / 否 no).

    Parameters
    ----------
    as_frame : bool, default=True
        Return a DataFrame of ``category`` columns (categories in order of first
        appearance in the file) and a Series target (needs pandas); with False, numpy
        object arrays.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    Bunch with ``data``, ``target``, ``frame``, ``feature_names``, ``target_names``,
    ``ids`` (the 编号 column), ``book_train_ids`` and ``book_validation_ids`` (the hold-out
    split of the book's table 4.2) and ``DESCR``; or ``(data, target)``.
    """
    rows = list(csv.reader(io.StringIO(_read_text("watermelon2.csv"))))
    header, body = rows[0], rows[1:]
    features = header[1:-1]
    ids = np.array([int(r[0]) for r in body])
    values = np.array([r[1:-1] for r in body], dtype=object)
    target = np.array([r[-1] for r in body], dtype=object)
    pd = _pandas(as_frame)
    frame = None
    if pd is not None:
        data = pd.DataFrame({
            name: pd.Categorical(values[:, j],
                                 categories=list(dict.fromkeys(values[:, j])))
            for j, name in enumerate(features)})
        target = pd.Series(target, name=header[-1])
        frame = data.assign(**{header[-1]: target})
    else:
        data = values
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, frame=frame, feature_names=features,
                 target_names=np.array(["否", "是"], dtype=object), ids=ids,
                 book_train_ids=list(WATERMELON_TRAIN_IDS),
                 book_validation_ids=list(WATERMELON_VALIDATION_IDS),
                 DESCR="Watermelon data set 2.0, Zhou Zhihua, Machine Learning (2016), "
                       "table 4.1.")
