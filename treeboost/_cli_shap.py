"""``treeboost explain MODEL DATA.csv --shap``: each row's largest SHAP values, as text.

The values come from :func:`treeboost.inspection.shap_values`; this module only decides
which output of the model a row is explained on and what that output means, and lays the
numbers out.  A row's output is ``expected_value + sum(values[row])`` (TreeSHAP's
additivity), which is the model's own output: it is printed once per row, the expected
value once for all rows.
"""

import textwrap
from typing import Any, NamedTuple

import numpy as np

#: Tolerance (relative and absolute) of the match between ``expected_value + sum(values)``
#: and a model method's output, when naming what the SHAP values add up to.
_MATCH_TOL = 1e-6


class ShapOutput(NamedTuple):
    """What the SHAP values of one model add up to."""

    values: Any  #: (n_rows, n_features): each row's values on its explained output
    expected: Any  #: (n_rows,): the expected value of each row's explained output
    output: Any  #: (n_rows,): expected + the sum of the row's values
    label: Any  #: (n_rows,) of str: what ``output`` is, e.g. "log-odds(y = 1)"
    meaning: str  #: one sentence saying what the outputs are


def _as_rows(array, n):
    """A model method's output as (n, n_outputs)."""
    array = np.asarray(array, dtype=np.float64)
    return array.reshape(n, -1)


def explained_output(model, X, values, expected_value, target="y"):
    """Pick, for each row, the output its SHAP values are shown for, and name it.

    One output (regression, binary gradient boosting): that one.  Two (a classifier's
    two probabilities, which sum to 1, so that the second's values are the first's
    negated): the second class's.  More: the class of largest output, the predicted class.

    Parameters
    ----------
    model : fitted treeboost estimator
    X : DataFrame
        The rows, as the model reads them.
    values : ndarray of shape (n, n_features) or (n, n_features, n_outputs)
    expected_value : float or ndarray of shape (n_outputs,)
    target : str
        The target's name, for the labels.

    Returns
    -------
    ShapOutput
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    if values.ndim == 2:
        values = values[:, :, None]
    if values.ndim != 3 or values.shape[0] != len(X):
        raise ValueError(f"shap_values returned values of shape {values.shape} for {len(X)} rows")
    n_out = values.shape[2]
    expected = np.broadcast_to(np.asarray(expected_value, dtype=np.float64).reshape(-1), (n_out,))
    outputs = expected[None, :] + values.sum(axis=1)  # (n, n_outputs)
    k = np.full(n, n_out - 1 if n_out <= 2 else 0)
    if n_out > 2:
        k = np.argmax(outputs, axis=1)
    rows = np.arange(n)
    kind, meaning = _name_outputs(model, X, outputs)
    classes = getattr(model, "classes_", None)
    if kind in ("probability", "raw score", "decision function") and classes is not None:
        # one output per class, or one for two classes: that of the second
        names = np.asarray([str(c) for c in classes], dtype=object)
        cls = names[k] if n_out == len(names) else np.full(n, names[-1], dtype=object)
        what = "log-odds" if kind == "raw score" and n_out == 1 else kind
        label = np.asarray([f"{what}({target} = {c})" for c in cls], dtype=object)
    else:
        label = np.full(n, f"predicted {target}" if kind == "prediction" else kind, dtype=object)
    return ShapOutput(values[rows, :, k], expected[k], outputs[rows, k], label, meaning)


def _name_outputs(model, X, outputs):
    """Which method of ``model`` the SHAP outputs reproduce, and a sentence on it."""
    n = outputs.shape[0]
    candidates = []
    if hasattr(model, "decision_function"):
        is_boosting = hasattr(model, "trees_")
        candidates.append(
            ("raw score" if is_boosting else "decision function", model.decision_function)
        )
    if hasattr(model, "predict_proba"):
        candidates.append(("probability", model.predict_proba))
    if not hasattr(model, "classes_"):
        candidates.append(("prediction", model.predict))
    for kind, method in candidates:
        got = _as_rows(method(X), n)
        if got.shape == outputs.shape and np.allclose(
            got, outputs, rtol=_MATCH_TOL, atol=_MATCH_TOL
        ):
            return kind, _MEANINGS[kind]
    return "model output", _MEANINGS["model output"]


_MEANINGS = {
    "raw score": "outputs are raw scores (log-odds for two classes, per-class scores "
    "turned into probabilities by softmax for more), not probabilities",
    "decision function": "outputs are the decision function (the learners' weighted "
    "vote), not probabilities",
    "probability": "outputs are predicted probabilities",
    "prediction": "outputs are predictions, in the target's units",
    "model output": "outputs are the model's raw outputs",
}


def _cell(value):
    """A feature's value as the row holds it (missing shown as such)."""
    try:
        if value is None or (not isinstance(value, str) and np.isnan(value)):
            return "missing"
    except TypeError:
        pass
    if isinstance(value, (float, np.floating)):
        return f"{value:.6g}"
    return str(value)


def shap_lines(
    model, X, values, expected_value, top=5, row_names=None, target="y", source="the data"
):
    """The report as lines of text.

    Parameters
    ----------
    model, X, values, expected_value, target
        As :func:`explained_output`.
    top : int
        How many features per row, those of largest ``|SHAP value|``.
    row_names : sequence of str or None
        One name per row (``PassengerId 892``); ``row 1``, ``row 2`` ... otherwise.
    source : str
        Where the rows come from, for the heading.

    Yields
    ------
    str
    """
    shap = explained_output(model, X, values, expected_value, target)
    n, n_features = shap.values.shape
    names = [str(c) for c in X.columns]
    top = min(top, n_features)
    proba = model.predict_proba(X) if hasattr(model, "predict_proba") else None
    heading = (
        f"SHAP values (exact TreeSHAP) of {type(model).__name__} on {n} rows of "
        f"{source}.  The {shap.meaning}; each row's output is the expected value "
        f"plus the sum of its features' SHAP values.  Shown: the {top} feature(s) "
        f"of largest |SHAP value| per row."
    )
    # a long file name is moved whole to the next line, never cut
    yield from textwrap.wrap(heading, width=88, break_long_words=False, break_on_hyphens=False)
    if np.unique(shap.expected).size == 1:
        yield f"expected value: {shap.expected[0]:.6f}"
    # the largest |value| first; a stable sort keeps column order among ties
    order = np.argsort(-np.abs(shap.values), axis=1, kind="stable")[:, :top]
    width = max(len(f"{names[j]} = {_cell(X.iloc[0, j])}") for j in range(n_features))
    width = min(max(width, 20), 40)
    for i in range(n):
        name = row_names[i] if row_names is not None else f"row {i + 1}"
        extra = ""
        if proba is not None:
            pred = model.classes_[int(np.argmax(proba[i]))]
            extra = f"; predicted {target} = {pred} (probability {proba[i].max():.3f})"
        head = f"\n{name}: {shap.label[i]} = {shap.output[i]:.6f}"
        if np.unique(shap.expected).size > 1:
            head += f" (expected value {shap.expected[i]:.6f})"
        yield head + extra
        for j in order[i]:
            text = f"{names[j]} = {_cell(X.iloc[i, j])}"
            yield f"  {text:<{width}} {shap.values[i, j]:+.6f}"
