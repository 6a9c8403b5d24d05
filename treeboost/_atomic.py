"""A fitted model is never half-updated: refits swap their state in, readers snapshot it.

An estimator's fitted state is its instance ``__dict__``.  :class:`AtomicRefitMixin` makes

* every ``fit`` build the new state on a private copy of the estimator and install it at
  the end with one assignment of ``__dict__``: another thread sees the old state or the new
  one, and a fit that raises leaves the old model as it was;
* every public method and property (``predict``, ``predict_proba``, ``apply``,
  ``staged_predict``, ``feature_importances_`` ...) run on a *view*: an instance that
  shares the ``__dict__`` read once at the call.  A refit during the call replaces the
  estimator's ``__dict__``, not the view's, so the whole call (a generator's whole
  iteration too) reads one state.  A cache that a method stores (packed trees, say) goes
  into the dict of the state it was built from, and is dropped with it.

Without this, a predict running while another thread refits could read the new number of
outputs with the old packed trees (and write past its output buffer), or the new encoder
with the old trees.
"""
import copy
import functools
import inspect

import numpy as np

#: Key marking a private copy while its ``fit`` runs: a nested ``fit`` (``super().fit``,
#: a subclass calling its base) works on that copy directly.
_FITTING = "_treeboost_fitting_copy"


def _working_copy(model):
    """A new instance of ``model``'s class with a private copy of its state.

    The containers (lists, dicts, sets) are copied one level down, so that a warm start
    appending trees or scores leaves the installed model's lists alone; with
    ``warm_start`` the arrays and random states, which a warm start may update in place,
    are copied as well.
    """
    # one copy of the dict first: a predict in another thread may add a cache to it
    # meanwhile, which would break an iteration over the live dict
    current = model.__dict__.copy()
    warm = bool(current.get("warm_start", False))
    state = {}
    for key, value in current.items():
        if isinstance(value, (list, dict, set)):
            value = value.copy()
        elif warm and isinstance(value, (np.ndarray, np.random.RandomState,
                                         np.random.Generator)):
            value = copy.deepcopy(value)
        state[key] = value
    work = object.__new__(type(model))
    work.__dict__.update(state)
    work.__dict__[_FITTING] = True
    return work


def _atomic_fit(fit):
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        if _FITTING in self.__dict__:
            return fit(self, *args, **kwargs)
        work = _working_copy(self)
        try:
            result = fit(work, *args, **kwargs)
        finally:
            work.__dict__.pop(_FITTING, None)
        # one assignment: a reader sees the old dict or the new one, never a mixture
        self.__dict__ = work.__dict__
        return self if result is work else result

    wrapper._treeboost_atomic = True
    return wrapper


def _view(model):
    """An instance sharing the state ``model`` has now (the ``__dict__`` is read once)."""
    view = object.__new__(type(model))
    view.__dict__ = model.__dict__
    return view


def _on_snapshot(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        view = _view(self)
        result = method(view, *args, **kwargs)
        return self if result is view else result

    wrapper._treeboost_atomic = True
    return wrapper


#: Public methods that change the estimator (or only read its parameters): not wrapped.
_NOT_READERS = ("fit", "partial_fit", "set_", "get_params", "get_metadata_routing")


class AtomicRefitMixin:
    """Refits install their new state at once; public readers see one consistent state.

    Applied by subclassing: every subclass's ``fit`` / ``partial_fit`` is wrapped to fit a
    private copy and swap its state in, and its other public functions and properties to
    run on a snapshot of the state (see the module docstring).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in dir(cls):
            if name.startswith("_"):
                continue
            owner = next((k for k in cls.__mro__ if name in vars(k)), None)
            # treeboost's own functions only, those of a plain mixin base (the forests'
            # predict) included; scikit-learn's (score ...) call the wrapped predict
            if owner is None or not owner.__module__.startswith("treeboost"):
                continue
            attr = vars(owner)[name]
            if getattr(attr, "_treeboost_atomic", False):
                continue
            if name in ("fit", "partial_fit") and inspect.isfunction(attr):
                setattr(cls, name, _atomic_fit(attr))
            elif name.startswith(_NOT_READERS):
                continue
            elif inspect.isfunction(attr):
                setattr(cls, name, _on_snapshot(attr))
            elif isinstance(attr, property) and attr.fget is not None \
                    and not getattr(attr.fget, "_treeboost_atomic", False):
                setattr(cls, name, property(_on_snapshot(attr.fget), attr.fset, attr.fdel,
                                            attr.__doc__))
