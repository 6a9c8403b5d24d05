"""Where a fit spends its time inside the numba kernels, by function (Linux, perf).

    python benchmarks/profile_kernels.py forest|extratrees|extratrees-reg|bagging|gbdt|gbdt10|tree
        [--n-estimators N] [--n-samples N] [--serial]

``--serial`` adds what runs while a single thread works (the part of a fit that a second
core does not shorten), from the time bins in which perf sampled one thread only (a
sample in OpenMP's runtime, a worker spinning while it waits, counts as no work).
``--annotate N`` prints the hottest instructions of the N kernels with the most samples
(``objdump`` of their object code, samples per instruction): everything a kernel inlines
is one symbol, so this is how to see which of its loops costs.

perf sees numba's compiled code as anonymous addresses.  This script compiles the kernels
afresh in a private cache directory (so that their object code is at hand), fits the model
under ``perf record`` attached to itself, then writes ``/tmp/perf-<pid>.map`` from the
symbol tables of the compiled objects and prints ``perf report`` by function.  Inlined
helpers count towards their caller.  The first run compiles everything (about a minute).
The NRT_incref / NRT_decref of numba's runtime show up as unnamed addresses.
"""

import argparse
import gc
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

# before numba is imported: a fresh cache keeps the object code of every kernel in memory
os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="tb-prof-"))
# and so do kernels compiled here, not the installed ones (engine/kernel_cache.py)
os.environ.setdefault("TREEBOOST_PREBUILT", "0")


from sklearn.datasets import make_classification, make_regression  # noqa: E402

import treeboost as tb  # noqa: E402


#: LightGBM's trees (31 leaves best-first, 20 rows a leaf, second-order gain), the kernels
#: profiled
LGBM_TREES = dict(max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, split_gain="hessian")


def elf_functions(obj):
    """(name, size, value) of the defined functions in an ELF64 little-endian object
    file (value: the function's offset in its section)."""
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for sh_name, sh_type, _, _, off, size, link, _, _, entsize in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        stroff = sections[link][4]
        for k in range(size // entsize):
            st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from(
                "<IBBHQQ", obj, off + k * entsize
            )
            if st_info & 0xF == 2 and st_shndx != 0 and st_size:  # defined STT_FUNC
                end = obj.index(b"\0", stroff + st_name)
                out.append((obj[stroff + st_name : end].decode(), st_size, st_value))
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
        names.append(symbol[j : j + k])
        i = j + k
    if "treeboost" in names:
        return ".".join(names[names.index("treeboost") + 2 :][:2]) or symbol[:40]
    return ".".join(names[-2:]) if names else symbol[:40]


def keep_object_code():
    """Keep the object code of the kernels numba loads from its cache from now on (numba
    hands it to the JIT and drops it), so that :func:`write_perf_map` can name them too."""
    from numba.core.codegen import CPUCodeLibrary

    set_object = CPUCodeLibrary._set_compiled_object
    if getattr(set_object, "keeps", False):
        return

    def keep(self, value):
        self._kept_object = value
        set_object(self, value)

    keep.keeps = True
    CPUCodeLibrary._set_compiled_object = keep


def write_perf_map():
    """/tmp/perf-<pid>.map for every compiled treeboost kernel (and what it inlined).
    Returns ``{address: (size, short name, symbol, object code, offset in section)}``."""
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
                except Exception:  # loaded from the cache: the copy keep_object_code kept
                    code = getattr(lib, "_kept_object", None)
                if code is None:
                    continue
                for sym, size, value in elf_functions(code):
                    try:
                        addr = lib._codegen._engine.get_function_address(sym)
                    except Exception:
                        addr = 0
                    if addr:
                        entries[addr] = (size, short_name(sym), sym, code, value)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for addr in sorted(entries):
            size, name = entries[addr][:2]
            fh.write(f"{addr:x} {size:x} {name}\n")
    return entries


def print_annotated(perf_data, entries, n_kernels, min_share=0.001):
    """The instructions of the ``n_kernels`` kernels with the most samples that hold at
    least ``min_share`` of all samples, in address order, with their share."""
    script = subprocess.run(
        ["perf", "script", "-i", perf_data, "-F", "ip"], capture_output=True, text=True
    ).stdout
    ips = [int(w, 16) for w in script.split() if all(ch in "0123456789abcdef" for ch in w)]
    starts = sorted(entries)
    import bisect

    by_kernel = {}
    for ip in ips:
        k = bisect.bisect_right(starts, ip) - 1
        if k >= 0 and ip < starts[k] + entries[starts[k]][0]:
            by_kernel.setdefault(starts[k], []).append(ip - starts[k])
    total = max(len(ips), 1)
    for addr in sorted(by_kernel, key=lambda a: -len(by_kernel[a]))[:n_kernels]:
        size, name, sym, code, value = entries[addr]
        counts = {}
        for off in by_kernel[addr]:
            counts[value + off] = counts.get(value + off, 0) + 1
        with tempfile.NamedTemporaryFile(suffix=".o") as fh:
            fh.write(code)
            fh.flush()
            asm = subprocess.run(
                ["objdump", "-d", "--no-show-raw-insn", f"--disassemble={sym}", fh.name],
                capture_output=True,
                text=True,
            ).stdout
        print(
            f"\n{name}: {100 * len(by_kernel[addr]) / total:.1f} % of the samples; "
            f"instructions with at least {100 * min_share:.2f} %, in regions (a gap of "
            f"over 64 bytes ends one) with their sums:"
        )
        # regions: runs of hot instructions, usually one loop each
        regions = []
        for line in asm.splitlines():
            head = line.split(":", 1)[0].strip()
            if not head or not all(ch in "0123456789abcdef" for ch in head):
                continue
            off = int(head, 16)
            share = counts.get(off, 0) / total
            if share < min_share:
                continue
            if not regions or off - regions[-1][-1][0] > 64:
                regions.append([])
            regions[-1].append((off, share, line.strip()[:100]))
        for region in regions:
            print(
                f"  -- {100 * sum(sh for _, sh, _ in region):5.1f} % in "
                f"{region[0][0]:x}-{region[-1][0]:x}"
            )
            for _, share, text in region:
                print(f"  {100 * share:5.1f} %  {text}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "model",
        choices=["forest", "extratrees", "extratrees-reg", "bagging", "gbdt", "gbdt10", "tree"],
    )
    ap.add_argument("--n-estimators", type=int, default=20)
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument(
        "--serial", action="store_true", help="also show what runs while one thread alone works"
    )
    ap.add_argument(
        "--annotate",
        type=int,
        default=0,
        metavar="N",
        help="also show the hottest instructions of the N busiest kernels",
    )
    args = ap.parse_args()
    n_classes = 10 if args.model == "gbdt10" else 2
    if args.model.endswith("-reg"):
        X, y = make_regression(
            n_samples=args.n_samples, n_features=40, n_informative=20, random_state=0
        )
    else:
        X, y = make_classification(
            n_samples=args.n_samples,
            n_features=40,
            n_informative=20,
            n_classes=n_classes,
            random_state=0,
        )
    n = args.n_estimators
    make = {
        "forest": lambda: tb.RandomForestClassifier(n_estimators=n, n_jobs=int(os.environ.get("PF_JOBS","1")), random_state=0),
        "extratrees": lambda: tb.ExtraTreesClassifier(n_estimators=n, n_jobs=int(os.environ.get("PF_JOBS","1")), random_state=0),
        "extratrees-reg": lambda: tb.ExtraTreesRegressor(n_estimators=n, n_jobs=int(os.environ.get("PF_JOBS","1")), random_state=0),
        "gbdt10": lambda: tb.GradientBoostingClassifier(
            n_estimators=n, random_state=0, **LGBM_TREES
        ),
        "bagging": lambda: tb.BaggingClassifier(n_estimators=n, n_jobs=int(os.environ.get("PF_JOBS","1")), random_state=0),
        "gbdt": lambda: tb.GradientBoostingClassifier(n_estimators=n, random_state=0, **LGBM_TREES),
        "tree": lambda: tb.DecisionTreeClassifier(random_state=0),
    }[args.model]
    make().fit(X[:5000], y[:5000])  # compile (the parallel grower too: 5000 x 40 cells)
    # the compiler's objects stay out of the collections a fit triggers, which would
    # otherwise scan them (a process that loads its kernels from the cache has none)
    gc.collect()
    gc.freeze()
    out = tempfile.mktemp(suffix=".perf.data")
    perf = subprocess.Popen(
        ["perf", "record", "-e", os.environ.get("PF_EVENT","cycles"), "-c", os.environ.get("PF_C","1000003"), "-o", out, "-p", str(os.getpid())],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    t = time.perf_counter()
    make().fit(X, y)
    fit = time.perf_counter() - t
    perf.send_signal(signal.SIGINT)
    perf.wait()
    entries = write_perf_map()
    print(f"{args.model}: fit {fit:.2f} s; {len(entries)} kernel symbols mapped\n")
    report = subprocess.run(
        ["perf", "report", "-i", out, "--no-children", "-n", "--sort", "symbol", "--stdio"],
        capture_output=True,
        text=True,
    ).stdout
    rows = [line for line in report.splitlines() if "%" in line and not line.startswith("#")]
    print("\n".join(line.rstrip()[:100] for line in rows[:20]))
    if args.serial:
        print_serial(out)
    if args.annotate:
        print_annotated(out, entries, args.annotate)


def print_serial(perf_data, bin_seconds=0.001):
    """What runs while a single thread works: the samples of the time bins in which one
    thread alone was sampled, by function, as a share of all the bins (wall time)."""
    script = subprocess.run(
        ["perf", "script", "-i", perf_data, "-F", "tid,time,ip,sym,dso"],
        capture_output=True,
        text=True,
    ).stdout
    samples = []
    for line in script.splitlines():
        parts = line.split(None, 3)  # tid, time:, ip, symbol (dso)
        if len(parts) < 3 or not parts[1].rstrip(":").replace(".", "").isdigit():
            continue
        rest = parts[3].strip() if len(parts) > 3 else "[unknown]"
        if "libgomp" in rest:
            # an OpenMP worker spinning while it waits for work is not working
            continue
        sym = rest.rsplit(" (", 1)[0]
        samples.append((int(parts[0]), float(parts[1].rstrip(":")), sym))
    threads_in = {}
    for tid, t, _ in samples:
        threads_in.setdefault(int(t / bin_seconds), set()).add(tid)
    lone = [sym for tid, t, sym in samples if len(threads_in[int(t / bin_seconds)]) == 1]
    n_bins = len(threads_in)
    n_lone = sum(len(v) == 1 for v in threads_in.values())
    print(
        f"\none thread alone in {n_lone} of {n_bins} bins of {bin_seconds * 1e3:.0f} ms "
        f"({100 * n_lone / max(n_bins, 1):.0f} % of the fit); its samples by function:"
    )
    counts = {}
    for sym in lone:
        counts[sym] = counts.get(sym, 0) + 1
    for sym in sorted(counts, key=counts.get, reverse=True)[:15]:
        print(f"  {100 * counts[sym] / max(len(lone), 1):5.1f} %  {sym[:90]}")


if __name__ == "__main__":
    main()
