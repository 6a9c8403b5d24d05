"""Loaders of the CSV files shipped in ``treeboost/datasets/data`` (never the network).

The files are read with :mod:`importlib.resources`, so they work from a wheel, an editable
install or a zip.  The source of each file is cited in its loader's ``DESCR``.
"""

from __future__ import annotations

import csv
import io
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from sklearn.utils import Bunch

from .._docstrings import insert_docs

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["load_titanic", "load_watermelon"]

WATERMELON_TRAIN_IDS = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17]
WATERMELON_VALIDATION_IDS = [4, 5, 8, 9, 11, 12, 13]

_TITANIC_FEATURES = [
    "Pclass",
    "Name",
    "Sex",
    "Age",
    "SibSp",
    "Parch",
    "Ticket",
    "Fare",
    "Cabin",
    "Embarked",
]
_TITANIC_INT = ("Pclass", "SibSp", "Parch")
_TITANIC_FLOAT = ("Age", "Fare")

_TITANIC_DESCR = """\
Titanic passengers (training set)
---------------------------------
891 passengers, 10 features (Pclass, Name, Sex, Age, SibSp, Parch, Ticket, Fare, Cabin,
Embarked; PassengerId dropped), binary target Survived (0 = died, 1 = survived).
549 died, 342 survived.  Missing values: Age 177, Cabin 687, Embarked 2.

Source: the passenger training set of the well-known Titanic survival task; public data,
originally compiled from Encyclopedia Titanica.
"""

_WATERMELON_DESCR = """\
Watermelon data set 2.0 (西瓜数据集 2.0)
----------------------------------------
17 melons, six categorical attributes: 色泽 colour, 根蒂 root, 敲声 knock sound,
纹理 texture, 脐部 navel, 触感 touch; target 好瓜 (good melon: 是 yes / 否 no), 8 good.
book_train_ids / book_validation_ids are the hold-out split of the book's table 4.2 used
for its pruning examples.

Source: Zhou Zhihua, *Machine Learning* (机器学习), Tsinghua University Press, 2016,
table 4.1.
"""


def _read_rows(name: str) -> tuple[list[str], list[list[str]]]:
    """Header and body rows of a bundled CSV file (UTF-8)."""
    text = resources.files("treeboost.datasets").joinpath("data").joinpath(name).read_text("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return rows[0], rows[1:]


#: the docstring paragraphs every loader shares (:func:`~treeboost._docstrings.insert_docs`)
_LOADER_DOCS = {
    "return_X_y": """
        return_X_y : bool, default=False
            If True, return ``(data, target)`` instead of a Bunch.
    """,
    "bunch": """
        data : sklearn.utils.Bunch
            Dictionary-like object with attributes
    """,
    "descr_and_tuple": """
            DESCR : str
                Description of the data and its source.
        (data, target) : tuple
            If ``return_X_y`` is True.
    """,
}


def _loaded(data: Any, target: Any, frame: Any, return_X_y: bool, **attributes: Any) -> Any:
    """What a loader returns: ``(data, target)``, or a Bunch of them, ``frame`` and
    ``attributes``."""
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, frame=frame, **attributes)


def _import_pandas() -> ModuleType:
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            "pandas is required for as_frame=True: pip install pandas, or pass as_frame=False"
        ) from None
    return pd


@overload
def load_titanic(*, as_frame: bool = ..., return_X_y: Literal[False] = ...) -> Bunch: ...
@overload
def load_titanic(*, as_frame: bool = ..., return_X_y: Literal[True]) -> tuple[Any, Any]: ...
@overload
def load_titanic(*, as_frame: bool = ..., return_X_y: bool = ...) -> Bunch | tuple[Any, Any]: ...
@insert_docs(**_LOADER_DOCS)
def load_titanic(*, as_frame: bool = True, return_X_y: bool = False) -> Bunch | tuple[Any, Any]:
    """Load the Titanic passenger data set (891 rows, binary target ``Survived``).

    Parameters
    ----------
    as_frame : bool, default=True
        If True (needs pandas), ``data`` is a DataFrame with ``Sex`` and ``Embarked`` as
        ``category``, ``Age`` and ``Fare`` as float (NaN for missing), ``Pclass``, ``SibSp``
        and ``Parch`` as int and ``Name``, ``Ticket``, ``Cabin`` as object (NaN for
        missing); ``target`` is an int Series and ``frame`` the whole table.  If False,
        only numpy is used: ``data`` is a 2-D object array with the same columns (ints,
        floats with NaN, strings with NaN for missing) and ``target`` an int array.
    {return_X_y}

    Returns
    -------
    {bunch}

        data : pandas.DataFrame of shape (891, 10) or ndarray of object
            The features, in the CSV's order, without ``PassengerId``.
        target : pandas.Series or ndarray of int, shape (891,)
            ``Survived``: 1 if the passenger survived, else 0.
        frame : pandas.DataFrame of shape (891, 11) or None
            ``data`` and ``target`` together; None when ``as_frame=False``.
        feature_names : list of str
        target_names : ndarray
            The class labels, ``[0, 1]``.
    {descr_and_tuple}

    Notes
    -----
    342 passengers survived; ``Age`` is missing for 177 of them, ``Cabin`` for 687 and
    ``Embarked`` for 2.

    Examples
    --------
    >>> from treeboost.datasets import load_titanic
    >>> X, y = load_titanic(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((891, 10), 342)
    """
    features = list(_TITANIC_FEATURES)
    header, body = _read_rows("titanic.csv")
    col = {name: [r[i] for r in body] for i, name in enumerate(header)}
    target = np.array(col["Survived"], dtype=np.int64)
    frame = None
    if as_frame:
        pd = _import_pandas()
        columns = {}
        for name in features:
            values = col[name]
            if name in _TITANIC_INT:
                columns[name] = pd.Series(np.array(values, dtype=np.int64))
            elif name in _TITANIC_FLOAT:
                columns[name] = pd.Series(np.array([float(v) if v else np.nan for v in values]))
            elif name in ("Sex", "Embarked"):
                columns[name] = pd.Series(pd.Categorical([v if v else np.nan for v in values]))
            else:
                columns[name] = pd.Series(
                    np.array([v if v else np.nan for v in values], dtype=object), dtype=object
                )
        data = pd.DataFrame(columns)
        target = pd.Series(target, name="Survived")
        frame = data.assign(Survived=target)
    else:
        data = np.empty((len(body), len(features)), dtype=object)
        for j, name in enumerate(features):
            values = col[name]
            if name in _TITANIC_INT:
                data[:, j] = [int(v) for v in values]
            elif name in _TITANIC_FLOAT:
                data[:, j] = [float(v) if v else np.nan for v in values]
            else:
                data[:, j] = [v if v else np.nan for v in values]
    return _loaded(
        data,
        target,
        frame,
        return_X_y,
        feature_names=features,
        target_names=np.array([0, 1]),
        DESCR=_TITANIC_DESCR,
    )


@overload
def load_watermelon(*, as_frame: bool = ..., return_X_y: Literal[False] = ...) -> Bunch: ...
@overload
def load_watermelon(*, as_frame: bool = ..., return_X_y: Literal[True]) -> tuple[Any, Any]: ...
@overload
def load_watermelon(*, as_frame: bool = ..., return_X_y: bool = ...) -> Bunch | tuple[Any, Any]: ...
@insert_docs(**_LOADER_DOCS)
def load_watermelon(*, as_frame: bool = True, return_X_y: bool = False) -> Bunch | tuple[Any, Any]:
    """Load watermelon data set 2.0 (Zhou Zhihua, *Machine Learning*, table 4.1).

    17 melons described by six categorical attributes, in the book's (and the CSV's)
    column order: 色泽 (colour), 根蒂 (root), 敲声 (knock sound), 纹理 (texture),
    脐部 (navel), 触感 (touch); the target 好瓜 (good melon) is 是 (yes) or 否 (no).

    Parameters
    ----------
    as_frame : bool, default=True
        If True (needs pandas), ``data`` is a DataFrame of ``category`` columns whose
        categories are listed in order of first appearance in the file (e.g. 色泽:
        青绿, 乌黑, 浅白), and ``target`` a Series of the strings "是"/"否".  If False, only
        numpy is used: ``data`` is a (17, 6) object array of strings and ``target`` a
        (17,) object array of "是"/"否".
    {return_X_y}

    Returns
    -------
    {bunch}

        data : pandas.DataFrame of shape (17, 6) or ndarray of object
            The six attributes.
        target : pandas.Series or ndarray of object, shape (17,)
            The 好瓜 column, "是" or "否".
        frame : pandas.DataFrame of shape (17, 7) or None
            ``data`` and ``target`` together; None when ``as_frame=False``.
        feature_names : list of str
            ``["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]``.
        target_names : ndarray of object
            The class labels, sorted: ``["否", "是"]``.
        ids : ndarray of int, shape (17,)
            The 编号 (id) column, 1 to 17.
        book_train_ids, book_validation_ids : list of int
            The book's hold-out split (table 4.2): training ids 1, 2, 3, 6, 7, 10, 14,
            15, 16, 17 and validation ids 4, 5, 8, 9, 11, 12, 13.
    {descr_and_tuple}

    Examples
    --------
    >>> from treeboost.datasets import load_watermelon
    >>> melons = load_watermelon()
    >>> melons.data.shape, int((melons.target == "是").sum())
    ((17, 6), 8)
    """
    header, body = _read_rows("watermelon2.csv")
    features = header[1:-1]
    ids = np.array([int(r[0]) for r in body], dtype=np.int64)
    values = np.array([r[1:-1] for r in body], dtype=object)
    target = np.array([r[-1] for r in body], dtype=object)
    frame = None
    if as_frame:
        pd = _import_pandas()
        data = pd.DataFrame(
            {
                name: pd.Categorical(values[:, j], categories=list(dict.fromkeys(values[:, j])))
                for j, name in enumerate(features)
            }
        )
        target = pd.Series(target, name=header[-1])
        frame = data.assign(**{header[-1]: target})
    else:
        data = values
    return _loaded(
        data,
        target,
        frame,
        return_X_y,
        feature_names=list(features),
        target_names=np.array(["否", "是"], dtype=object),
        ids=ids,
        book_train_ids=list(WATERMELON_TRAIN_IDS),
        book_validation_ids=list(WATERMELON_VALIDATION_IDS),
        DESCR=_WATERMELON_DESCR,
    )
