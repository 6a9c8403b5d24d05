"""The class a leaf of a classic tree predicts when two classes have equal weight.

A leaf predicts its class of largest weight; between classes whose weights are within
``1e-12`` of the largest (``class_tie_break``):

* ``"sorted"`` (the default): the first of ``classes_`` (sorted labels);
* ``"first_seen"``: the class that appears first in the training labels ``y`` -- the rule
  of Quinlan's programs, which rank the classes in the order the data file declares them,
  and the rule that gives the figures of Zhou's *Machine Learning* (4.3): its watermelon
  table lists 是 (good) first, and the book labels its tied 5 : 5 root, and the tied 2 : 2
  branch 脐部 = 稍凹 below it, 好瓜 (good);
* a list of labels: those first, in the given order, then the others as ``"sorted"``.

The rule decides ``predict``, the class of a leaf in the validation-set pruning functions
and in the rules of :class:`~treeboost.RuleListClassifier`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import ArrayLike, NDArray

__all__ = ["CLASS_TIE_BREAKS", "check_class_rank", "class_rank", "top_class"]

#: the named rules of ``class_tie_break``
CLASS_TIE_BREAKS = ("sorted", "first_seen")
#: class weights (fractions) this close to the largest are a tie
CLASS_TIE_TOL = 1e-12


def class_rank(
    class_tie_break: str | Sequence[object], classes: NDArray[np.object_], y_enc: NDArray[np.int64]
) -> NDArray[np.int64]:
    """The priority of each class index (0 first) under ``class_tie_break``.

    Raises
    ------
    ValueError
        On an unknown rule or a label that is not one of ``classes``.
    """
    K = classes.shape[0]
    if isinstance(class_tie_break, str):
        if class_tie_break == "sorted":
            return np.arange(K, dtype=np.int64)
        if class_tie_break == "first_seen":
            _, first_index = np.unique(y_enc, return_index=True)
            order = np.argsort(first_index, kind="stable")
            rank = np.empty(K, np.int64)
            rank[order] = np.arange(K)
            return rank
        raise ValueError(
            f"class_tie_break must be one of {CLASS_TIE_BREAKS} or a list of class "
            f"labels, got {class_tie_break!r}."
        )
    labels = classes.tolist()
    first: list[int] = []
    for label in class_tie_break:
        if label not in labels:
            raise ValueError(f"class_tie_break names {label!r}, which is not a class of y.")
        if labels.index(label) not in first:
            first.append(labels.index(label))
    listed = first + [k for k in range(K) if k not in first]
    rank = np.empty(K, np.int64)
    rank[np.asarray(listed, dtype=np.int64)] = np.arange(K)
    return rank


def top_class(proba: ArrayLike, rank: NDArray[np.int64] | None) -> NDArray[np.intp]:
    """Index of the predicted class of each row of ``proba`` (or of one distribution):
    the largest, ties (within ``1e-12``) to the class of smallest ``rank``.  ``rank``
    None or the identity is ``numpy.argmax`` (the first largest)."""
    p = np.asarray(proba, dtype=np.float64)
    if rank is None or np.array_equal(rank, np.arange(p.shape[-1])):
        return np.argmax(p, axis=-1)
    tied = p >= p.max(axis=-1, keepdims=True) - CLASS_TIE_TOL
    return np.argmin(np.where(tied, rank, rank.shape[0]), axis=-1)


def check_class_rank(rank: object, n_classes: int, where: str) -> None:
    """A loaded ``class_rank_`` must be a permutation of the class indices."""
    if (
        not isinstance(rank, np.ndarray)
        or rank.dtype != np.int64
        or rank.shape != (n_classes,)
        or not np.array_equal(np.sort(rank), np.arange(n_classes))
    ):
        raise ValueError(f"{where}.class_rank_: must be a permutation of the {n_classes} classes.")
