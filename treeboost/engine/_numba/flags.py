"""Cheaper comparisons of numba's compiler flags, the same answers.

numba keeps the typing of every ``@overload`` implementation (an array's ``[]``, the
``bool()`` of every branch condition, ``min``, ...) in a dictionary keyed by, among
others, the compiler flags in force (``numba.core.targetconfig.TargetConfig``).  Each
compilation makes flag objects of its own, so nearly every look-up of that dictionary
compares two distinct but equal flag objects, and ``TargetConfig.__eq__`` does it by
building, for both, a dictionary of every option's value through its property (some
forty options); ``__hash__`` builds the same dictionary and then hashes only its keys.
Typing the engine's kernels makes some hundred thousand such comparisons, which took a
quarter of a first fit's compilation (``python benchmarks/compile_time.py``).

:func:`compare_flags_cheaply` gives ``TargetConfig`` two methods that return exactly
what numba's own return, faster:

* ``__eq__``: of two flag objects of the same class, an option set in neither reads its
  class default in both, so only the options set in either are compared (each read as
  numba's property reads it: the set value, else the default); a pair of other classes
  is compared by numba's own method.
* ``__hash__``: numba's hashes the sorted option names (the keys of the value
  dictionary), which are the class's ``options``; the same tuple is hashed without
  reading any value.

Nothing else of numba changes, and nothing is patched when numba's class does not have
the members these rely on (another numba version): compilation is then only slower.
"""

from numba.core import targetconfig

_TargetConfig = targetconfig.TargetConfig


def _has_expected_shape(cls):
    """Whether ``cls`` stores its set values in ``_values`` and lists its options in
    ``options``, as the methods below assume."""
    return (
        "_values" in getattr(cls, "__slots__", ())
        and hasattr(cls, "options")
        and callable(getattr(cls, "values", None))
    )


def _make_methods(numba_eq):
    def __eq__(self, other):
        if type(self) is not type(other) or not isinstance(other, _TargetConfig):
            return numba_eq(self, other)
        mine, theirs = self._values, other._values
        if mine == theirs:
            return True
        options = type(self).options
        if not (mine.keys() <= options.keys() and theirs.keys() <= options.keys()):
            return numba_eq(self, other)
        # an option set in neither reads its default in both
        for name in mine.keys() | theirs.keys():
            default = options[name].default
            if mine.get(name, default) != theirs.get(name, default):
                return False
        return True

    def __hash__(self):
        return hash(tuple(sorted(type(self).options)))

    __eq__.__doc__ = numba_eq.__doc__
    __eq__._treeboost_numba_eq = numba_eq
    return __eq__, __hash__


def compare_flags_cheaply():
    """Install the cheaper ``__eq__`` and ``__hash__`` on numba's ``TargetConfig`` (once;
    a no-op when numba's class is not of the expected shape).  Returns whether they are
    installed."""
    cls = _TargetConfig
    if getattr(cls.__eq__, "_treeboost_numba_eq", None) is not None:
        return True
    if not _has_expected_shape(cls):
        return False
    cls.__eq__, cls.__hash__ = _make_methods(cls.__eq__)
    return True
