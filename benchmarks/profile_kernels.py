"""Where a fit spends its time inside the numba kernels, by function (Linux, perf).

    python benchmarks/profile_kernels.py forest|extratrees|extratrees-reg|bagging|gbdt|gbdt10|tree [--n-estimators N]
        [--n-samples N] [--serial]

``--serial`` adds what runs while a single thread works (the part of a fit that a second
core does not shorten), from the time bins in which perf sampled one thread only.

perf sees numba's compiled code as anonymous addresses.  This script compiles the kernels
afresh in a private cache directory (so that their object code is at hand), fits the model
under ``perf record`` attached to itself, then writes ``/tmp/perf-<pid>.map`` from the
symbol tables of the compiled objects and prints ``perf report`` by function.  Inlined
helpers count towards their caller.  The first run compiles everything (about a minute).
The NRT_incref / NRT_decref of numba's runtime show up as unnamed addresses.
"""
import argparse
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

# before numba is imported: a fresh cache keeps the object code of every kernel in memory
os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="tb-prof-"))

import numpy as np  # noqa: E402
from sklearn.datasets import make_classification, make_regression  # noqa: E402

import treeboost as tb  # noqa: E402


#: LightGBM's trees (31 leaves best-first, 20 rows a leaf, second-order gain), the kernels
#: profiled
LGBM_TREES = dict(max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, split_gain="hessian")


def elf_functions(obj):
    """(name, size) of the defined functions in an ELF64 little-endian object file."""
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize)
                for i in range(shnum)]
    out = []
    for sh_name, sh_type, _, _, off, size, link, _, _, entsize in sections:
        if sh_type != 2:                         # SHT_SYMTAB
            continue
        stroff = sections[link][4]
        for k in range(size // entsize):
            st_name, st_info, _, st_shndx, _, st_size = struct.unpack_from(
                "<IBBHQQ", obj, off + k * entsize)
            if st_info & 0xF == 2 and st_shndx != 0 and st_size:     # defined STT_FUNC
                end = obj.index(b"\0", stroff + st_name)
                out.append((obj[stroff + st_name:end].decode(), st_size))
    return out


def short_name(symbol):
    """``module.function`` from a numba symbol (Itanium-style nested name)."""
    i = symbol.find("N") + 1 if symbol.startswith("_ZN") else 0
    names = []
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while j < len(symbol) and symbol[j].isdigit():
            j += 1
        k = int(symbol[i:j])
        names.append(symbol[j:j + k])
        i = j + k
    if "treeboost" in names:
        return ".".join(names[names.index("treeboost") + 2:][:2]) or symbol[:40]
    return ".".join(names[-2:]) if names else symbol[:40]


def write_perf_map():
    """/tmp/perf-<pid>.map for every compiled treeboost kernel (and what it inlined)."""
    from numba.core.registry import CPUDispatcher
    entries = {}
    for modname, mod in list(sys.modules.items()):
        if not modname.startswith("treeboost"):
            continue
        for obj in vars(mod).values():
            if not isinstance(obj, CPUDispatcher):
                continue
            for cres in obj.overloads.values():
                lib = cres.library
                try:
                    code = lib._get_compiled_object()
                except Exception:       # loaded from an older cache: no object code
                    continue
                for sym, size in elf_functions(code):
                    try:
                        addr = lib._codegen._engine.get_function_address(sym)
                    except Exception:
                        addr = 0
                    if addr:
                        entries[addr] = (size, short_name(sym))
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for addr in sorted(entries):
            size, name = entries[addr]
            fh.write(f"{addr:x} {size:x} {name}\n")
    return len(entries)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", choices=["forest", "extratrees", "extratrees-reg", "bagging", "gbdt", "gbdt10", "tree"])
    ap.add_argument("--n-estimators", type=int, default=20)
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--serial", action="store_true",
                    help="also show what runs while one thread alone works")
    args = ap.parse_args()
    n_classes = 10 if args.model == "gbdt10" else 2
    if args.model.endswith("-reg"):
        X, y = make_regression(n_samples=args.n_samples, n_features=40, n_informative=20,
                               random_state=0)
    else:
        X, y = make_classification(n_samples=args.n_samples, n_features=40,
                                   n_informative=20, n_classes=n_classes, random_state=0)
    n = args.n_estimators
    make = {"forest": lambda: tb.RandomForestClassifier(n_estimators=n, n_jobs=1,
                                                        random_state=0),
            "extratrees": lambda: tb.ExtraTreesClassifier(n_estimators=n, n_jobs=1,
                                                          random_state=0),
            "extratrees-reg": lambda: tb.ExtraTreesRegressor(n_estimators=n, n_jobs=1,
                                                             random_state=0),
            "gbdt10": lambda: tb.GradientBoostingClassifier(n_estimators=n, random_state=0,
                                                            **LGBM_TREES),
            "bagging": lambda: tb.BaggingClassifier(n_estimators=n, n_jobs=1, random_state=0),
            "gbdt": lambda: tb.GradientBoostingClassifier(n_estimators=n, random_state=0,
                                                          **LGBM_TREES),
            "tree": lambda: tb.DecisionTreeClassifier(random_state=0)}[args.model]
    make().fit(X[:2000], y[:2000])               # compile
    out = tempfile.mktemp(suffix=".perf.data")
    perf = subprocess.Popen(["perf", "record", "-F", "2999", "-o", out, "-p",
                             str(os.getpid())], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    t = time.perf_counter()
    make().fit(X, y)
    fit = time.perf_counter() - t
    perf.send_signal(signal.SIGINT)
    perf.wait()
    n_syms = write_perf_map()
    print(f"{args.model}: fit {fit:.2f} s; {n_syms} kernel symbols mapped\n")
    report = subprocess.run(["perf", "report", "-i", out, "--no-children", "--sort",
                             "symbol", "--stdio"], capture_output=True, text=True).stdout
    rows = [line for line in report.splitlines() if "%" in line and not line.startswith("#")]
    print("\n".join(line.rstrip()[:100] for line in rows[:20]))
    if args.serial:
        print_serial(out)


def print_serial(perf_data, bin_seconds=0.001):
    """What runs while a single thread works: the samples of the time bins in which one
    thread alone was sampled, by function, as a share of all the bins (wall time)."""
    script = subprocess.run(["perf", "script", "-i", perf_data, "-F", "tid,time,ip,sym"],
                            capture_output=True, text=True).stdout
    samples = []
    for line in script.splitlines():
        parts = line.split(None, 3)       # tid, time:, ip, symbol
        if len(parts) < 3 or not parts[1].rstrip(":").replace(".", "").isdigit():
            continue
        sym = parts[3].strip() if len(parts) > 3 else "[unknown]"
        samples.append((int(parts[0]), float(parts[1].rstrip(":")), sym))
    threads_in = {}
    for tid, t, _ in samples:
        threads_in.setdefault(int(t / bin_seconds), set()).add(tid)
    lone = [sym for tid, t, sym in samples if len(threads_in[int(t / bin_seconds)]) == 1]
    n_bins = len(threads_in)
    n_lone = sum(len(v) == 1 for v in threads_in.values())
    print(f"\none thread alone in {n_lone} of {n_bins} bins of {bin_seconds * 1e3:.0f} ms "
          f"({100 * n_lone / max(n_bins, 1):.0f} % of the fit); its samples by function:")
    counts = {}
    for sym in lone:
        counts[sym] = counts.get(sym, 0) + 1
    for sym in sorted(counts, key=counts.get, reverse=True)[:15]:
        print(f"  {100 * counts[sym] / max(len(lone), 1):5.1f} %  {sym[:90]}")


if __name__ == "__main__":
    main()
