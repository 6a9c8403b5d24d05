"""The stopping rules are written once (engine/grow/acceptance.stopping_allows) and every
loop that grows a tree asks them there: the compiled grower, the subtree tasks and the
data-parallel trainer's stepped loop."""

import pathlib
import re
import types

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._helpers import search_params
from treeboost.dask import _grower as dask_grower
from treeboost.engine import stopping_allows
from treeboost.engine.split.criteria import NEWTON

ROOT = pathlib.Path(__file__).resolve().parents[2] / "treeboost"
#: the loops the rule serves: a comparison of a node's size with min_samples_leaf written
#: anywhere else in them is a second copy of the rule
LOOPS = ("engine", "dask")


def _by_hand(depth, n, w, max_depth, min_split, min_leaf, min_w):
    return (
        (max_depth < 0 or depth < max_depth)
        and n >= min_split
        and n >= 2 * min_leaf
        and w >= 2 * min_w
    )


def test_no_loop_writes_the_size_rule_again():
    pattern = re.compile(r"2 \* \w+\.min_(samples_leaf|weight_leaf)")
    found = sorted(
        f"{path.relative_to(ROOT)}:{i}"
        for folder in LOOPS
        for path in (ROOT / folder).rglob("*.py")
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    )
    assert all(place.startswith("engine/grow/acceptance.py:") for place in found), found
    assert found, "the scan reads the rule's own module"


stopping = st.fixed_dictionaries(
    {
        "max_depth": st.integers(-1, 6),
        "min_samples_split": st.integers(2, 20),
        "min_samples_leaf": st.integers(1, 10),
        "min_weight_leaf": st.sampled_from([0.0, 0.5, 2.0, 7.25]),
    }
)


@settings(max_examples=150, deadline=None)
@given(
    rules=stopping,
    depth=st.integers(0, 8),
    n=st.integers(0, 60),
    w=st.floats(0.0, 60.0, allow_nan=False),
)
def test_the_stepped_loop_and_the_compiled_rule_decide_alike(rules, depth, n, w):
    params = search_params(NEWTON, **rules)
    want = _by_hand(
        depth,
        n,
        w,
        rules["max_depth"],
        rules["min_samples_split"],
        rules["min_samples_leaf"],
        rules["min_weight_leaf"],
    )
    assert bool(stopping_allows(depth, n, w, params)) == want
    grower = types.SimpleNamespace(params=params)
    node = types.SimpleNamespace(depth=depth, total=np.array([0.0, w, float(n)]))
    assert dask_grower.StepGrower._splittable(grower, node) == want


def test_the_stepped_loop_asks_the_rule(monkeypatch):
    params = search_params(NEWTON)
    grower = types.SimpleNamespace(params=params)
    node = types.SimpleNamespace(depth=0, total=np.array([0.0, 100.0, 100.0]))
    assert dask_grower.StepGrower._splittable(grower, node)
    monkeypatch.setattr(dask_grower, "stopping_allows", lambda *args: False)
    assert not dask_grower.StepGrower._splittable(grower, node)


def test_the_rule_takes_a_tree_s_leaves_at_once():
    params = search_params(NEWTON, max_depth=3, min_samples_leaf=2, min_weight_leaf=1.0)
    depth = np.array([0, 1, 3, 2, 2])
    n = np.array([10, 3, 10, 4, 4])
    w = np.array([10.0, 3.0, 10.0, 4.0, 1.5])
    got = stopping_allows(depth, n, w, params)
    want = [_by_hand(d, k, x, 3, 2, 2, 1.0) for d, k, x in zip(depth, n, w)]
    np.testing.assert_array_equal(got, want)
