"""A process forked after a fit (multiprocessing's ``fork`` start method) fits and
predicts: numba's GNU OpenMP layer neither kills it nor leaves it waiting.

Each case runs in a process of its own, so that a kill or a hang of a child fails the
test (a timeout) instead of the test run."""

import subprocess
import sys
import textwrap

import numba
import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the fork start method of Linux")

#: a parallel region on two threads in the parent (the forking thread then has an
#: OpenMP team of two, whatever the fits' own thread counts on a busy machine), a fit
#: and a prediction of a boosting model and a forest
PARENT = """
import multiprocessing as mp
import sys, warnings
import numba
import numpy as np
from numba import prange
import treeboost as tb

@numba.njit(parallel=True)
def total(a):
    s = 0.0
    for i in prange(a.size):
        s += a[i]
    return s

def fits(X, y):
    hgb = tb.HistGradientBoostingRegressor(max_iter=5, early_stopping=False).fit(X, y)
    rf = tb.RandomForestRegressor(n_estimators=4, random_state=0).fit(X, y)
    return hgb.predict(X), rf.predict(X)

rng = np.random.default_rng(0)
X = rng.normal(size=(20_000, 5))
y = X[:, 0] + np.sin(X[:, 1])
numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
assert total(np.ones(100_000)) == 100_000
model = tb.HistGradientBoostingRegressor(max_iter=5, early_stopping=False).fit(X, y)
expected = fits(X, y)
"""

CHILD = (
    PARENT
    + """
CHILD_THREADS = min(2, numba.config.NUMBA_NUM_THREADS)

def child(queue):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if CHILD_THREADS:
            numba.set_num_threads(CHILD_THREADS)
        ok = total(np.ones(100_000)) == 100_000
        got = fits(X, y)
    queue.put((ok, [np.array_equal(g, e) for g, e in zip(got, expected)],
               numba.get_num_threads(), [str(w.message) for w in caught]))

ctx = mp.get_context("fork")
queue = ctx.Queue()
p = ctx.Process(target=child, args=(queue,))
p.start()
p.join(240)
if p.exitcode != 0:
    print("EXIT", p.exitcode)
    sys.exit(1)
print("RESULT", queue.get(timeout=10))
"""
)

POOL = (
    PARENT
    + """
ctx = mp.get_context("fork")
with ctx.Pool(2) as pool:
    parts = pool.map_async(model.predict, np.array_split(X, 4)).get(timeout=240)
print("POOL", np.array_equal(np.concatenate(parts), model.predict(X)))
"""
)


def _run(script, timeout=400):
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:  # a hung child: the parent's join times out
        pytest.fail(f"timed out: {e.stderr!r}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Terminating" not in done.stderr, done.stderr
    return done


def test_a_forked_child_fits_and_predicts():
    out = _run(CHILD).stdout
    (line,) = [l for l in out.splitlines() if l.startswith("RESULT")]
    ok, same, n_threads, caught = eval(line[len("RESULT") :])
    assert ok and same == [True, True]
    # the child kept its threads: no fallback, no warning
    assert n_threads == min(2, numba.config.NUMBA_NUM_THREADS)
    assert caught == []


def test_a_fork_pool_maps_a_fitted_models_predict():
    out = _run(POOL).stdout
    assert "POOL True" in out, out


def test_without_openmps_pause_the_child_runs_on_one_thread_and_warns():
    # an OpenMP that cannot let the forking thread's team go (before GCC 9): the
    # child's forking thread runs the kernels on one thread, and says so
    # (the child leaves numba's thread count as it finds it)
    script = CHILD.replace(
        "ctx = mp.get_context",
        "from treeboost.engine.parallel import fork as _fork\n"
        "_fork._pause = False\nctx = mp.get_context",
    ).replace("CHILD_THREADS = min(2, numba.config.NUMBA_NUM_THREADS)", "CHILD_THREADS = None")
    done = _run(script)
    (line,) = [l for l in done.stdout.splitlines() if l.startswith("RESULT")]
    ok, same, n_threads, caught = eval(line[len("RESULT") :])
    assert ok and same == [True, True] and n_threads == 1
    assert "omp_pause_resource_all" in done.stderr, done.stderr
