"""Memory of one fit, measured in a fresh process (Linux only).

A process's peak resident set size mixes three things: the interpreter and the libraries
(for treeboost that includes numba and LLVM, ~100 MiB loaded on the first kernel call),
transient peaks of building the data, and the fit.  To tell the fit apart, the child

1. builds the data and imports the library,
2. fits the same model on ``warm_rows`` rows, so that every library cost a fit pulls in
   (imports, compiled kernels, thread pools) is paid before the measurement,
3. records its resident size, resets its high-water mark (``5 > /proc/self/clear_refs``,
   Linux >= 4.0) and fits on all rows,
4. reads the high-water mark again.

``fit peak = high-water mark during the fit - resident size before it``: the memory the
fit itself needs at its worst moment, whatever the process held before.
"""

import json
import subprocess
import sys
import textwrap

_CHILD = """
import gc, json, time
def _status():
    d = dict(l.split(':', 1) for l in open('/proc/self/status'))
    return {{k: int(d[k].split()[0]) / 1024 for k in ('VmRSS', 'VmHWM')}}
{data}
def _make():
{make}
_make().fit(X[:{warm_rows}], y[:{warm_rows}])
gc.collect()
_start_peak = _status()['VmHWM']
_before = _status()['VmRSS']
open('/proc/self/clear_refs', 'w').write('5')
_t = time.perf_counter()
_model = _make().fit(X, y)
_secs = time.perf_counter() - _t
_after = _status()
_extra = {{}}
{after}
print('MEMORY_JSON', json.dumps(dict(
    process_peak=max(_start_peak, _after['VmHWM']), before=_before,
    fit_peak=_after['VmHWM'] - _before, retained=_after['VmRSS'] - _before, seconds=_secs,
    **_extra)))
"""


def fit_memory(data_src, make_src, warm_rows=200, after_src=""):
    """Run ``make_src`` (an expression building an unfitted estimator; ``data_src`` must
    define ``X`` and ``y``) in a fresh process and return a dict: ``process_peak`` (MiB,
    the whole process), ``before`` (resident MiB before the fit), ``fit_peak`` (MiB above
    ``before`` at the fit's worst moment), ``retained`` (MiB still held after the fit,
    the model included) and ``seconds`` (fit time).  ``after_src`` runs after the
    measure with the fitted ``_model``; what it puts in the dict ``_extra`` joins the
    result."""
    script = _CHILD.format(
        data=textwrap.dedent(data_src),
        make=textwrap.indent("return " + textwrap.dedent(make_src).strip(), "    "),
        warm_rows=warm_rows,
        after=textwrap.dedent(after_src),
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1][:200])
    line = next((l for l in proc.stdout.splitlines() if l.startswith("MEMORY_JSON")), None)
    if line is None:
        raise RuntimeError("the child process printed no measurement")
    return json.loads(line.split(" ", 1)[1])
