"""The cheaper comparisons of numba's compiler flags (engine/_numba/flags.py) give numba's
own answers."""

from hypothesis import given, settings, strategies as st
from numba.core import targetconfig
from numba.core.compiler import Flags
from numba.core.cpu_options import FastMathOptions, InlineOptions, ParallelOptions

from treeboost.engine import speed_up_compilation

# the shortcuts are never applied on import (engine/_numba/compilation.py): applied here, in
# this test process only
speed_up_compilation()
from treeboost.engine._numba.flags import compare_flags_cheaply

NUMBA_EQ = targetconfig.TargetConfig.__eq__._treeboost_numba_eq

#: values each option may be set to: its default among them, so that an option set to
#: its default meets the same option not set
#: (in the form the option's setter takes: it converts them as numba's compiler does)
CHOICES = {
    name: (
        st.sampled_from(["never", "always"])
        if name == "inline"
        else st.sampled_from([set(), {"fast"}, {"nnan"}, False, True])
        if name == "fastmath"
        else st.sampled_from(["python", "numpy"])
        if name == "error_model"
        else st.booleans()
    )
    for name in Flags.options
}


@st.composite
def flags(draw):
    f = Flags()
    for name in draw(st.sets(st.sampled_from(sorted(Flags.options)))):
        setattr(f, name, draw(CHOICES[name]))
    return f


def _numba_hash(f):
    # numba's own: the sorted keys of the value dictionary
    return hash(tuple(sorted(f.values())))


def test_installed_on_numbas_class():
    assert compare_flags_cheaply()
    assert targetconfig.TargetConfig.__eq__ is not NUMBA_EQ
    assert Flags.__eq__ is targetconfig.TargetConfig.__eq__


@settings(max_examples=300, deadline=None)
@given(flags(), flags())
def test_equality_and_hash_are_numbas(a, b):
    assert (a == b) == NUMBA_EQ(a, b) == (a.values() == b.values())
    assert hash(a) == _numba_hash(a) and hash(b) == _numba_hash(b)
    copy = Flags(a)
    assert copy == a and hash(copy) == hash(a)


def test_an_option_set_to_its_default_equals_it_unset():
    a, b = Flags(), Flags()
    a.nrt = False  # the default
    a.inline = "never"
    assert a == b and b == a
    b.nrt = True
    assert a != b and b != a
    b.nrt = False
    b.fastmath = {"fast"}
    assert a != b
    b.fastmath = set()
    b.auto_parallel = False
    assert a == b
    assert a.inline == InlineOptions("never") and b.fastmath == FastMathOptions(set())
    assert b.auto_parallel == ParallelOptions(False)


def test_other_objects_are_compared_as_numba_does():
    a = Flags()
    assert (a == 3) is False
    assert a != "flags"
