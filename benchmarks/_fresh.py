"""Each library of a benchmark in a fresh process of its own: the driver runs the script
again with ``--lib LIB`` and its options, and keeps the JSON line each run prints."""

import json
import os
import subprocess
import sys


def run_each(script, libs, options, out_dir=None, out_name="results.jsonl", pythons=None):
    """Run ``script --lib LIB --key=value ...`` for each of ``libs`` (``options`` a dict,
    ``_`` in a key written ``-``); return the last JSON line of each run that printed
    one, echoing it, and write them to ``out_dir/out_name`` when ``out_dir`` is given.
    A run that fails is reported on stderr and left out.  ``pythons`` maps a library to
    the interpreter that runs it (an anchor that needs other versions of its
    dependencies lives in a virtual environment of its own); the others run under this
    interpreter."""
    rows = []
    pythons = pythons or {}
    for lib in libs:
        cmd = [pythons.get(lib, sys.executable), script, "--lib", lib] + [
            f"--{key.replace('_', '-')}={value}" for key, value in options.items()
        ]
        res = subprocess.run(cmd, capture_output=True, text=True)
        line = [ln for ln in res.stdout.splitlines() if ln.startswith("{")]
        if res.returncode or not line:
            print(f"{lib}: failed\n{res.stderr[-2000:]}", file=sys.stderr)
            continue
        rows.append(json.loads(line[-1]))
        print(line[-1], flush=True)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, out_name), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    return rows
