"""scikit-learn's own tests run against treeboost: how much of its behaviour we match.

scikit-learn ships the tests of its trees and ensembles inside the installed package.
This script copies six of those modules into a temporary directory, points the
``from sklearn.tree import ...`` / ``from sklearn.ensemble import ...`` lines of the
classes treeboost has at treeboost (the other names stay scikit-learn's), leaves out the
tests that cannot say anything about treeboost, runs the rest with pytest in a
subprocess and counts the results from its junit XML::

    python benchmarks/sklearn_conformance.py                  # every module
    python benchmarks/sklearn_conformance.py -m forest -m bagging --failures

A test is left out, with its reason, when

* it (or a helper function of its module that it calls, or a value it is parametrized
  with) uses an object of scikit-learn's implementation modules (``sklearn.tree._*``,
  ``sklearn.ensemble._*``), by name or by dotted path: it tests scikit-learn's internals;
* it uses, the same way, a class of ``sklearn.tree`` / ``sklearn.ensemble`` that treeboost
  lacks: it would test scikit-learn's class, not ours;
* it matches a pattern of :data:`LEAVE_OUT` (each with its reason).

Every other test counts: a failure is a behaviour of scikit-learn that treeboost does not
have (yet).  ``--failures`` groups the failures by their first error line (numbers
replaced by ``#``), most frequent first: the list of what to build next.
"""

import argparse
import ast
import collections
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

#: the repository: its treeboost is the one tested, installed or not
ROOT = Path(__file__).resolve().parent.parent

#: short name -> the module's path inside the installed scikit-learn
MODULES = {
    "tree": "tree/tests/test_tree.py",
    "forest": "ensemble/tests/test_forest.py",
    "bagging": "ensemble/tests/test_bagging.py",
    "weight_boosting": "ensemble/tests/test_weight_boosting.py",
    "gradient_boosting": "ensemble/tests/test_gradient_boosting.py",
    "hist_gradient_boosting": "ensemble/_hist_gradient_boosting/tests/test_gradient_boosting.py",
    "monotonic_tree": "tree/tests/test_monotonic_tree.py",
}


def module_stem(name):
    """The file name (without .py) a module is run as: ``test_<name>``, so that two
    modules of the same file name (scikit-learn's two ``test_gradient_boosting.py``)
    do not overwrite each other."""
    return f"test_{name}"


#: the packages whose classes are pointed at treeboost when treeboost has them
ESTIMATOR_PACKAGES = ("sklearn.tree", "sklearn.ensemble")

#: scikit-learn's implementation modules: a test using them tests scikit-learn itself
PRIVATE_PATH = re.compile(r"\bsklearn\.(?:tree|ensemble)\._\w+(?:\.\w+)*")


@dataclass(frozen=True)
class LeaveOut:
    """Tests left out by name: ``pattern`` is an fnmatch pattern of ``module::test``."""

    pattern: str
    reason: str


#: Tests left out by hand; the reason must be one a reader can check in the test's code.
LEAVE_OUT = (
    LeaveOut(
        "test_tree.py::test_different_bitness_*",
        "rebuilds the Cython tree's pickled node array (state['nodes']) with other integer widths",
    ),
)


@dataclass(frozen=True)
class ModuleResult:
    """One module's counts; ``failures`` holds (test id, first error line) pairs."""

    name: str
    passed: int
    failed: int
    skipped: int
    left_out: dict
    failures: list
    seconds: float
    note: str = ""

    @property
    def run(self):
        return self.passed + self.failed


# -- rewriting a module ------------------------------------------------------------------


def treeboost_names(root):
    sys.path.insert(0, str(root))
    import treeboost

    return {n for n in dir(treeboost) if not n.startswith("_")}


def rewrite_imports(source, ours):
    """``source`` with each ``from sklearn.tree|ensemble import A, B`` split: the names
    in ``ours`` imported from treeboost, the others from scikit-learn as before.  Returns
    the new source and the names of those packages that stayed scikit-learn's."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    theirs = set()
    edits = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.module in ESTIMATOR_PACKAGES):
            continue
        mine = [a for a in node.names if a.name in ours]
        rest = [a for a in node.names if a.name not in ours]
        theirs |= {a.asname or a.name for a in rest}
        if not mine:
            continue
        indent = " " * node.col_offset

        def names(aliases):
            return ", ".join(
                a.name if a.asname is None else f"{a.name} as {a.asname}" for a in aliases
            )

        new = f"{indent}from treeboost import {names(mine)}\n"
        if rest:
            new += f"{indent}from {node.module} import {names(rest)}\n"
        edits.append((node.lineno - 1, node.end_lineno, new))
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = [new]
    return "".join(lines), theirs


def private_names(source):
    """Names bound by ``from sklearn.tree._x[.y] import ...`` (and the ensemble's), or
    by ``import sklearn.ensemble._x.y as name``."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and PRIVATE_PATH.fullmatch(node.module):
            out |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.asname for a in node.names if a.asname and PRIVATE_PATH.fullmatch(a.name)}
    return out


# -- the pytest plugin that leaves tests out ------------------------------------------------

PLUGIN = '''
"""Leaves out the tests that use scikit-learn's internals or classes treeboost lacks
(written by benchmarks/sklearn_conformance.py)."""
import fnmatch, inspect, json, os, re, types

_SPEC = json.load(open(os.environ["TB_CONFORMANCE_SPEC"]))
_PRIVATE_PATH = re.compile(_SPEC["private_path"])


def _why(obj, module, spec, seen, depth=0):
    """Why ``obj`` (a test function, helper, parameter value) cannot test treeboost, or
    None; follows the module's own functions and the contents of containers."""
    if depth > 4 or id(obj) in seen:
        return None
    seen.add(id(obj))
    if isinstance(obj, str):
        return (f"uses {obj}, a class treeboost lacks" if obj in spec["lacking"]
                else None)
    # the class, or an instance of it (a test parametrized with estimators)
    cls = obj if isinstance(obj, type) else type(obj)
    if cls.__module__.startswith("sklearn.") and cls.__name__ in spec["lacking"]:
        return f"uses {cls.__name__}, a class treeboost lacks"
    if isinstance(obj, dict):
        obj = list(obj.keys()) + list(obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            r = _why(v, module, spec, seen, depth + 1)
            if r:
                return r
        return None
    if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__:
        try:
            text = inspect.getsource(obj)
        except (OSError, TypeError):
            text = ""
        m = _PRIVATE_PATH.search(text)
        if m:
            return f"uses {m.group(0)} (scikit-learn's implementation)"
        for name in _code_names(obj.__code__):
            if name in spec["private"].get(module.__name__, ()):
                return f"uses {name} (scikit-learn's implementation)"
            if name in spec["lacking"] and name in spec["theirs"].get(module.__name__, ()):
                return f"uses {name}, a class treeboost lacks"
            if name in vars(module):
                r = _why(vars(module)[name], module, spec, seen, depth + 1)
                if r:
                    return r
    return None


def _code_names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def pytest_collection_modifyitems(config, items):
    keep, dropped, reasons = [], [], {}
    for item in items:
        base = item.nodeid.split("[")[0]
        why = None
        for rule in _SPEC["leave_out"]:
            if fnmatch.fnmatch(item.nodeid, rule["pattern"]) or \\
                    fnmatch.fnmatch(base, rule["pattern"]):
                why = rule["reason"]
                break
        fn = getattr(item, "function", None)
        if why is None and fn is not None:
            why = _why(fn, item.module, _SPEC, set())
            callspec = getattr(item, "callspec", None)
            if why is None and callspec is not None:
                for v in callspec.params.values():
                    why = _why(v, item.module, _SPEC, set())
                    if why:
                        break
        if why:
            dropped.append(item)
            reasons[item.nodeid] = why
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    with open(os.environ["TB_CONFORMANCE_LEFT_OUT"], "w") as f:
        json.dump(reasons, f, indent=1)
'''


# -- running and counting ----------------------------------------------------------------


def sklearn_dir():
    import sklearn

    return Path(sklearn.__file__).parent


def prepare(workdir, names, ours):
    """Rewrite the chosen modules into ``workdir`` with the plugin and its spec."""
    src = sklearn_dir()
    theirs, private = {}, {}
    lacking = set()
    for name in names:
        text = (src / MODULES[name]).read_text()
        new, kept = rewrite_imports(text, ours)
        mod = module_stem(name)
        (workdir / f"{mod}.py").write_text(new)
        theirs[mod] = sorted(kept)
        private[mod] = sorted(private_names(text))
        lacking |= {k for k in kept if k[:1].isupper()}
    (workdir / "tb_conformance_plugin.py").write_text(PLUGIN)
    (workdir / "pytest.ini").write_text("[pytest]\n")
    spec = {
        "private_path": PRIVATE_PATH.pattern,
        "lacking": sorted(lacking),
        "theirs": theirs,
        "private": private,
        "leave_out": [{"pattern": r.pattern, "reason": r.reason} for r in LEAVE_OUT],
    }
    (workdir / "spec.json").write_text(json.dumps(spec, indent=1))


def run_module(workdir, name, timeout, root=ROOT):
    mod = module_stem(name)
    xml = workdir / f"{mod}.xml"
    left = workdir / f"{mod}.left_out.json"
    env = dict(
        os.environ,
        TB_CONFORMANCE_SPEC=str(workdir / "spec.json"),
        TB_CONFORMANCE_LEFT_OUT=str(left),
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(workdir), str(root), os.environ.get("PYTHONPATH")])
        ),
    )
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        f"{mod}.py",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "sklearn.conftest",
        "-p",
        "tb_conformance_plugin",
        "-c",
        str(workdir / "pytest.ini"),
        "--rootdir",
        str(workdir),
        f"--junitxml={xml}",
        "-o",
        "junit_family=xunit1",
    ]
    t0 = time.perf_counter()
    note = ""
    try:
        subprocess.run(
            cmd,
            cwd=workdir,
            env=env,
            timeout=timeout,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    except subprocess.TimeoutExpired:
        note = f"stopped after {timeout} s"
    seconds = time.perf_counter() - t0
    if not xml.exists():
        return ModuleResult(name, 0, 0, 0, {}, [], seconds, note or "no junit XML written")
    return count(name, xml, left, seconds, note)


def first_line(element):
    msg = element.get("message") or (element.text or "").strip()
    return (msg.strip().splitlines() or [""])[0]


def count(name, xml, left, seconds, note):
    passed = failed = skipped = 0
    failures = []
    for case in ET.parse(xml).iter("testcase"):
        test = f"{case.get('name')}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            failed += 1
            failures.append((test, first_line(bad)))
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    left_out = json.loads(left.read_text()) if left.exists() else {}
    return ModuleResult(name, passed, failed, skipped, left_out, failures, seconds, note)


# -- reporting ---------------------------------------------------------------------------


def table(results):
    rows = [
        "| module | run | pass | fail | % | skipped | left out | time (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def pct(r):
        return f"{100 * r.passed / r.run:.0f}" if r.run else "-"

    for r in results:
        rows.append(
            f"| {r.name}{' (' + r.note + ')' if r.note else ''} | {r.run} | "
            f"{r.passed} | {r.failed} | {pct(r)} | {r.skipped} | {len(r.left_out)} "
            f"| {r.seconds:.0f} |"
        )
    tot = ModuleResult(
        "**total**",
        sum(r.passed for r in results),
        sum(r.failed for r in results),
        sum(r.skipped for r in results),
        {k: v for r in results for k, v in r.left_out.items()},
        [],
        sum(r.seconds for r in results),
    )
    rows.append(
        f"| {tot.name} | {tot.run} | {tot.passed} | {tot.failed} | {pct(tot)} | "
        f"{tot.skipped} | {len(tot.left_out)} | {tot.seconds:.0f} |"
    )
    return "\n".join(rows)


def group_key(line):
    """The first error line with numbers and addresses blanked, so that the same defect
    on different data groups together."""
    line = re.sub(r"0x[0-9a-fA-F]+", "0x…", line)
    line = re.sub(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?", "#", line)
    return line[:160]


def failure_groups(results, examples=3):
    groups = collections.defaultdict(list)
    for r in results:
        for test, line in r.failures:
            groups[group_key(line)].append(f"{r.name}::{test}")
    out = []
    for key, tests in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(tests[:examples]) + (" …" if len(tests) > examples else "")
        out.append(f"{len(tests):4d}  {key}\n      e.g. {shown}")
    return "\n".join(out)


def reasons(results):
    c = collections.Counter(re.sub(r"\[.*", "", v) for r in results for v in r.left_out.values())
    return "\n".join(f"{n:4d}  {why}" for why, n in c.most_common())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-m",
        "--module",
        action="append",
        choices=sorted(MODULES),
        help="run only this module (repeatable); default: all of them",
    )
    parser.add_argument(
        "--failures",
        action="store_true",
        help="also print the failures grouped by their first error line",
    )
    parser.add_argument(
        "--left-out", action="store_true", help="also print why tests were left out, by count"
    )
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds allowed per module (default 1800)"
    )
    parser.add_argument(
        "--treeboost",
        metavar="DIR",
        type=Path,
        default=ROOT,
        help="test the treeboost package inside DIR (default: this "
        "repository's), e.g. a `git archive` of an older commit",
    )
    parser.add_argument(
        "--keep", metavar="DIR", help="write the rewritten modules and the XML here and keep them"
    )
    args = parser.parse_args(argv)
    names = args.module or list(MODULES)
    ours = treeboost_names(args.treeboost)
    import sklearn

    with tempfile.TemporaryDirectory(prefix="tb-conformance-") as tmp:
        workdir = Path(args.keep) if args.keep else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        prepare(workdir, names, ours)
        results = []
        for name in names:
            r = run_module(workdir, name, args.timeout, args.treeboost)
            print(
                f"{name}: {r.passed}/{r.run} passed, {len(r.left_out)} left out "
                f"({r.seconds:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
            results.append(r)
    print(
        f"scikit-learn {sklearn.__version__} tests against treeboost, "
        f"{datetime.date.today().isoformat()}\n"
    )
    print(table(results))
    if args.left_out:
        print("\nLeft out, by reason:\n" + reasons(results))
    if args.failures:
        print("\nFailures by first error line:\n" + failure_groups(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
