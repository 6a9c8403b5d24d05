import subprocess
import sys


def test_demo_runs_and_prints_accuracy_and_rules():
    out = subprocess.run([sys.executable, "-m", "treeboost", "demo"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "5-fold CV accuracy" in out.stdout
    assert "IF " in out.stdout and "THEN Survived" in out.stdout
