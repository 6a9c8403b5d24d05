"""The README's first command, timed: a fresh venv, ``pip install ".[plot,pandas]"``, then
``python -m treeboost demo``, with an empty cache folder of treeboost's.

    python benchmarks/bench_install.py [--reuse-deps] [--prebuild first|all|false]
                                       [--keep DIR]

Prints, for each step, the CPU seconds (user + system, of every process it started:
``resource.getrusage(RUSAGE_CHILDREN)``, which other processes on a shared machine do not
inflate) and the wall seconds, then the same install again into a second fresh venv (the
kernels now come from the user's cache folder: nothing is compiled).

``--reuse-deps`` takes the dependencies from the running interpreter (a folder of links,
as ``tests/test_install.py`` does) and installs with ``--no-deps --no-build-isolation``:
the figures are then the build's and the demo's own, without pip downloading and
unpacking numpy, numba, scikit-learn... twice (into its build environment and the venv).
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd, **kw):
    """(CPU seconds, wall seconds, completed process) of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode != 0:
        sys.exit(f"{cmd} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return cpu, wall, out


def source_copy(target):
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in (f.decode() for f in files if f):
        if (ROOT / name).is_file() and "_prebuilt" not in Path(name).parts:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def make_venv(folder, reuse_deps):
    venv.EnvBuilder(with_pip=not reuse_deps, symlinks=True).create(folder)
    python = folder / "bin" / "python"
    if reuse_deps:
        site = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        links = folder / "deps"
        links.mkdir()
        for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
            name = entry.name.lower()
            if not name.startswith(("treeboost", "__editable__")) and not name.endswith(".pth"):
                (links / entry.name).symlink_to(entry)
        (Path(site) / "zz_deps.pth").write_text(f"{links}\n")
        # a setuptools that builds wheels by itself (--no-build-isolation installs none)
        subprocess.run([python, "-m", "pip", "install", "-q", "setuptools>=70.1"], check=True)
    return python


def install_and_demo(work, source, env, reuse_deps, prebuild):
    python = make_venv(work, reuse_deps)
    settings = [] if prebuild == "first" else ["--config-settings", f"prebuild={prebuild}"]
    if reuse_deps:
        cmd = [python, "-m", "pip", "install", "-v", "--no-deps", "--no-build-isolation"]
        cmd += [*settings, str(source)]
    else:
        cmd = [python, "-m", "pip", "install", "-v", *settings, f"{source}[plot,pandas]"]
    rows = [("pip install", *timed(cmd, env=env)[:2])]
    rows.append(
        (
            "treeboost demo",
            *timed([python, "-m", "treeboost", "demo", "--no-plots"], env=env, cwd=work)[:2],
        )
    )
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuse-deps", action="store_true")
    ap.add_argument("--prebuild", choices=["first", "all", "false"], default="first")
    ap.add_argument("--keep", help="a folder to work in (kept); default a temporary one")
    args = ap.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="tb-install-"))
    work.mkdir(parents=True, exist_ok=True)
    source = source_copy(work / "src" / "treeboost")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "TREEBOOST_"))}
    env["XDG_CACHE_HOME"] = str(work / "cache")  # treeboost's cache folder starts empty
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    print(
        f"machine: {os.cpu_count()} CPUs; deps {'reused' if args.reuse_deps else 'by pip'}; "
        f"prebuild={args.prebuild}\n"
    )
    print("| run | step | CPU (s) | wall (s) |\n|---|---|---|---|")
    total = [0.0, 0.0]
    for run, folder in (("first venv", "venv1"), ("second venv", "venv2")):
        for step, cpu, wall in install_and_demo(
            work / folder, source, env, args.reuse_deps, args.prebuild
        ):
            print(f"| {run} | {step} | {cpu:.1f} | {wall:.1f} |", flush=True)
            if run == "first venv":
                total[0] += cpu
                total[1] += wall
    print(f"\nfirst venv, install + demo: {total[0]:.1f} CPU s, {total[1]:.1f} s wall")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
