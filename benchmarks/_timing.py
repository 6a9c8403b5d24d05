"""The benchmarks' one timing rule: the best of a few runs (the least disturbed by the
machine's other work)."""

import time


def best_time(fn, repeats):
    """``(min seconds over repeats calls of fn(), the last call's result)``."""
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out
