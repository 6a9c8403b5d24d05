"""The numba plumbing under the engine's kernels: how a kernel is compiled (:mod:`.jit`), the
shortcuts through numba's compiler for the processes that build the kernels
(:mod:`.compilation`, :mod:`.flags`, :mod:`.inline`, :mod:`.markup`, :mod:`.passes`), and
the small vector helpers the hot loops share (:mod:`.bits`, :mod:`.pairs`, :mod:`.rows`,
:mod:`.borrowed_views`).

Importing this package imports none of them.
"""
