"""The command line on outputs that are not plain files, on broken or closed standard
output, and on what it decides about the data: it says so, in one line, and never destroys
a device, a FIFO or a link."""
import os
import signal
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest

from treeboost.cli import main

from ._helpers import cli_error

pd = pytest.importorskip("pandas")


def _frame(n=60, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "z": rng.normal(size=n).round(1),
                         "y": (x > 0).astype(int)})


@pytest.fixture(scope="module")
def model_and_data(tmp_path_factory):
    """A fitted CLI model (one CART tree) and the CSV it reads."""
    folder = tmp_path_factory.mktemp("cli")
    data = folder / "data.csv"
    _frame().to_csv(data, index=False)
    model = folder / "m.tbm"
    assert main(["fit", str(data), "--target", "y", "--model", "tree", "-o", str(model)]) == 0
    return model, data


# -- item 8: outputs that are not regular files -----------------------------------------------
def test_predict_through_a_symlink_rewrites_its_target_and_keeps_the_link(model_and_data,
                                                                           tmp_path, capsys):
    model, data = model_and_data
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert main(["predict", str(model), str(data), "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len(pd.read_csv(target)) == 60
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640      # the file's mode is kept
    assert "60 predictions written" in capsys.readouterr().out


def test_model_save_through_a_symlink_keeps_the_link(model_and_data, tmp_path):
    import treeboost
    model, _ = model_and_data
    fitted = treeboost.load(model)
    target = tmp_path / "real.tbm"
    link = tmp_path / "link.tbm"
    link.symlink_to(target)                 # dangling: the save creates the target
    fitted.save(link)
    assert link.is_symlink() and target.is_file()
    assert type(treeboost.load(target)) is type(fitted)


def test_predict_into_a_fifo_writes_through_it(model_and_data, tmp_path, capsys):
    model, data = model_and_data
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    assert main(["predict", str(model), str(data), "-o", str(fifo)]) == 0
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)          # still a FIFO, not a file
    assert received and received[0].startswith("prediction,")
    assert received[0].count("\n") == 61
    # the lines about the run go beside the data, not into the FIFO
    assert "predictions written" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_device_is_one_error_line_and_stays_a_device(model_and_data, tmp_path,
                                                             capsys):
    model, data = model_and_data
    link = tmp_path / "full.csv"
    link.symlink_to("/dev/full")
    for out in ("/dev/full", str(link)):
        line = cli_error(["predict", str(model), str(data), "-o", out], capsys)
        assert "No space left on device" in line and out in line
        assert "predictions written" not in capsys.readouterr().out
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert link.is_symlink()


def test_dash_is_standard_output_for_predict_and_refused_for_a_model(model_and_data, capsys,
                                                                     tmp_path):
    model, data = model_and_data
    assert main(["predict", str(model), str(data), "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("prediction,") and out.count("\n") == 61
    assert not os.path.exists("-")
    line = cli_error(["fit", str(data), "--target", "y", "-o", "-"], capsys)
    assert "standard output" in line


# -- item 9: one line, not a traceback ---------------------------------------------------------
def test_shap_on_a_header_only_file_is_one_line(model_and_data, tmp_path, capsys):
    model, _ = model_and_data
    empty = tmp_path / "empty.csv"
    empty.write_text("x,z,y\n")
    line = cli_error(["explain", str(model), str(empty), "--shap"], capsys)
    assert "no data rows" in line
    line = cli_error(["predict", str(model), str(empty)], capsys)
    assert "no data rows" in line


def _cli(args, **kwargs):
    return subprocess.run([sys.executable, "-m", "treeboost", *map(str, args)],
                          capture_output=True, text=True, timeout=120, **kwargs)


@pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="POSIX pipes")
def test_closed_and_broken_standard_output(model_and_data):
    model, data = model_and_data
    # started with no standard output at all (`treeboost predict ... >&-`)
    closed = subprocess.run([sys.executable, "-m", "treeboost", "predict", str(model),
                             str(data)], stdout=None, stderr=subprocess.PIPE, text=True,
                            timeout=120, preexec_fn=lambda: os.close(1))
    assert closed.returncode == 2, closed.stderr
    assert closed.stderr.strip() == ("treeboost: error: standard output is closed: give an "
                                     "output file with -o FILE")
    # a reader that stops after one line: no traceback, the death of `cat` or `grep`
    proc = subprocess.Popen([sys.executable, "-m", "treeboost", "explain", str(model)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGPIPE, err
    assert err == ""
