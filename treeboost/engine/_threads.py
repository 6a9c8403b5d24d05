"""How numba's worker threads wait: passively, unless the user says otherwise.

numba's parallel kernels run on OpenMP (its default threading layer here).  By default
GNU OpenMP keeps an idle worker spinning on its core for a while after each parallel
region, ready for the next one.  The grower starts many short parallel regions per tree,
so on a machine with other busy processes the spinning workers take the cores that the
working threads (of this process and of the others) need, and a parallel fit can become
many times slower than a serial one (benchmarks/README.md, "Under contention").  A
passive wait gives the core back at once.

GNU OpenMP reads ``OMP_WAIT_POLICY`` when it is loaded, which numba does at the first
parallel kernel; :func:`prefer_passive_wait` must therefore run before that (it does,
from ``treeboost/__init__.py``).  A value the user set is kept.  If another library
loaded OpenMP earlier in the process (LightGBM does), its setting stays in force.
"""
import os


def prefer_passive_wait():
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless the environment sets a policy already."""
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
