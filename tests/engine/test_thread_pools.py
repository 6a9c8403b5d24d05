"""engine.parallel.thread_pools: the engine's kept thread pools and run_tasks, their one entry."""

import threading

from treeboost.engine.parallel.thread_pools import in_pool, run_tasks, thread_pool


def test_run_tasks_keeps_the_items_order_on_the_pool():
    names = []

    def task(x):
        names.append(threading.current_thread().name)
        return x * x

    assert run_tasks(task, range(20), 3) == [x * x for x in range(20)]
    assert all(n.startswith("treeboost-pool") for n in names)
    assert not in_pool()


def test_run_tasks_runs_in_the_calling_thread_with_one_thread_or_item():
    me = threading.current_thread().name
    seen = []
    assert run_tasks(lambda x: seen.append(threading.current_thread().name) or x, [1, 2], 1) == [
        1,
        2,
    ]
    assert run_tasks(lambda x: seen.append(threading.current_thread().name) or x, [5], 4) == [5]
    assert seen == [me, me, me]


def test_run_tasks_from_a_pool_thread_does_not_wait_on_the_pool():
    # both threads of the pool of two busy with tasks that run tasks of their own on it:
    # queued on the pool those would wait for ever; in the calling thread they finish
    both_busy = threading.Barrier(2, timeout=20)

    def outer(_):
        both_busy.wait()
        me = threading.current_thread().name
        inner = run_tasks(lambda x: threading.current_thread().name, range(4), 2)
        return in_pool() and set(inner) == {me}

    futures = [thread_pool(2).submit(outer, k) for k in range(2)]
    assert [f.result(timeout=20) for f in futures] == [True, True]
