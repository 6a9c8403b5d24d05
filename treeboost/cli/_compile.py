"""``treeboost compile``: the engine's kernels compiled ahead of time for this machine."""

from __future__ import annotations

from ._messages import UserError


def compile_kernels(args):
    from .._prebuild import prebuild

    if args.jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {args.jobs}")
    # into the user's cache folder (kernel_cache.user_prebuilt_dir), never the package
    print("Compiling treeboost's kernels for this machine ...", flush=True)
    report = prebuild(jobs=args.jobs)
    if report.failed:
        print(
            f"Some fits failed to compile (see above); the kernels of the others are "
            f"in {report.folder}",
            flush=True,
        )
        return 1
    if report.reused:
        print(f"Nothing to compile: the kernels of this source and machine are in {report.folder}")
        return 0
    print(f"Done in {report.seconds:.0f} s ({report.compiled} kernels): {report.folder}")
    return 0
