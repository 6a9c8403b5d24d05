"""Threads and processes: the engine's thread pools (:mod:`.thread_pools`), the cores a fit
keeps while other processes are busy (:mod:`.free_cores`), and a forked child that keeps
running the kernels (:mod:`.fork`).

Importing this package imports none of them.
"""
