"""How a started process ended, in words (tests/support/processes.py)."""

from __future__ import annotations

import signal
import subprocess
import sys

from tests.support.processes import exit_words, signal_words


def test_status_signal_and_shell_status() -> None:
    assert exit_words(None) == "still running"
    assert exit_words(0) == "exited with status 0"
    assert exit_words(2) == "exited with status 2"
    assert exit_words(-signal.SIGILL).startswith("killed by SIGILL (an illegal instruction")
    assert exit_words(132) == ("exited with status 132, i.e. killed by "
                               + signal_words(signal.SIGILL))
    assert exit_words(-signal.SIGSEGV).startswith("killed by SIGSEGV (a segmentation fault")
    assert exit_words(-signal.SIGUSR1) == "killed by SIGUSR1"
    assert signal_words(250) == "signal 250"


def test_a_real_signal_death_is_named() -> None:
    proc = subprocess.run([sys.executable, "-c",
                           "import os, signal; os.kill(os.getpid(), signal.SIGILL)"],
                          check=False)
    assert exit_words(proc.returncode).startswith("killed by SIGILL")
