"""The declarative load-time checks (treeboost.persistence._spec): each rule of an
AttrSpec fires with a ValueError naming the part and the attribute."""

import numpy as np
import pytest

from treeboost.losses import HuberLoss, MultinomialLogLoss, QuantileLoss
from treeboost.persistence._spec import array, check_state, integer, labels, list_of, real


class _Part:
    def __init__(self, **state):
        vars(self).update(state)


SPEC = {
    "n": integer(1, 10),
    "rows": array("int32", ndim=1),
    "value": array("float64", ("rows", "n"), finite=True, low=0),
    "scale": real(0, 1, high_open=True, none_ok=True),
    "names": labels(1, optional=True),
    "k": integer(0, "n", optional=True),
}


def _good(**changes):
    state = dict(n=2, rows=np.zeros(3, np.int32), value=np.ones((3, 2)), scale=0.5)
    state.update(changes)
    return _Part(**state)


def test_a_valid_state_passes_and_gives_the_checked_values():
    out = check_state(_good(names=np.array(["a"])), "m", SPEC)
    assert out["n"] == 2 and out["value"].shape == (3, 2) and out["k"] is None
    assert check_state(_good(scale=None), "m", SPEC)["scale"] is None


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(n=0), r"m\.n: must be in \[1, 10\], got 0"),
        (dict(n=2.0), r"m\.n: must be an integer"),
        (dict(rows=np.zeros(3, np.int64)), r"m\.rows: must be an array of dtype int32"),
        (dict(rows=np.zeros((3, 1), np.int32)), r"m\.rows: must have 1 dimension"),
        (dict(value=np.ones((4, 2))), r"m\.value: must have shape \(3, 2\), got \(4, 2\)"),
        (dict(value=np.ones((3, 3))), r"m\.value: must have shape \(3, 2\)"),
        (dict(value=np.full((3, 2), np.nan)), r"m\.value: must be finite"),
        (dict(value=-np.ones((3, 2))), r"m\.value: values must be >= 0"),
        (dict(scale=1.0), r"m\.scale: must be in \[0, 1\)"),
        (
            dict(names=np.array([], object)),
            r"m\.names: must be a 1-dimensional array of at "
            r"least 1 label",
        ),
        (dict(k=3), r"m\.k: must be in \[0, 2\]"),
    ],
)
def test_each_rule_names_the_attribute(changes, message):
    with pytest.raises(ValueError, match=message):
        check_state(_good(**changes), "m", SPEC)


def test_a_missing_attribute_is_named():
    part = _good()
    del part.rows
    with pytest.raises(ValueError, match=r"m: incomplete _Part \(no rows\)"):
        check_state(part, "m", SPEC)
    with pytest.raises(ValueError, match=r"m: incomplete part \(no rows\)"):
        check_state(part, "m", SPEC, missing="incomplete part")


def test_a_size_the_caller_passes_bounds_the_shape():
    with pytest.raises(ValueError, match=r"m\.rows: must have shape \(4\)"):
        check_state(_good(), "m", {"rows": array("int32", ("n_rows",))}, {"n_rows": 4})


@pytest.mark.parametrize(
    "loss, name, value, message",
    [
        (HuberLoss(alpha=0.9), "delta", -1.0, r"loss\.delta: must be in \[0, inf\]"),
        (HuberLoss(alpha=0.9), "alpha", 1.0, r"loss\.alpha: must be in \(0, 1\)"),
        (QuantileLoss(alpha=0.5), "alpha", 0.0, r"loss\.alpha: must be in \(0, 1\)"),
        (MultinomialLogLoss(3), "n_classes", 2, r"loss\.n_classes: must be in \[3, inf\]"),
    ],
)
def test_the_losses_check_their_specs(loss, name, value, message):
    loss._validate_state()
    setattr(loss, name, value)
    with pytest.raises(ValueError, match=message):
        loss._validate_state()


def test_a_list_of_checks_its_length_and_each_element():
    spec = {
        "rows": array("int32", ndim=1),
        "parts": list_of(
            array("float64", ndim=1, finite=True, none_ok=True),
            "rows",
            "must hold {length} arrays.",
        ),
    }
    good = dict(rows=np.zeros(2, np.int32), parts=[np.ones(1), None])
    assert check_state(_Part(**good), "m", spec)["parts"][1] is None
    for parts, message in [
        ((np.ones(1), np.ones(1)), r"m\.parts: must hold 2 arrays\."),
        ([np.ones(1)], r"m\.parts: must hold 2 arrays\."),
        (
            [np.ones(1), np.array([np.inf])],
            r"m\.parts\[1\]: must be "
            r"finite",
        ),
    ]:
        with pytest.raises(ValueError, match=message):
            check_state(_Part(**{**good, "parts": parts}), "m", spec)
