"""How a process the tests started ended, in words a failure message can carry.

A native program that crashes (an illegal instruction from a build for another CPU, a
segmentation fault) and one that is only slow look alike from a test that waits for an
answer. Every fixture that starts a program says which it was: the exit status, or the
signal with its name and what it usually means.
"""

from __future__ import annotations

import signal

#: What a signal usually means for a program the tests start.
_MEANING = {
    signal.SIGILL: "an illegal instruction: the program was built for CPU instructions this "
                   "machine reports but does not execute (a native or AVX-512/AMX build)",
    signal.SIGSEGV: "a segmentation fault: a crash in native code",
    signal.SIGBUS: "a bus error: a crash in native code or a truncated mapped file",
    signal.SIGABRT: "an abort: the program stopped itself on a failed check",
    signal.SIGFPE: "an arithmetic fault in native code",
    signal.SIGKILL: "killed: out of memory, or stopped from outside",
}


def signal_words(number: int) -> str:
    """``SIGILL (illegal instruction: ...)`` for a signal number."""
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"signal {number}"
    meaning = _MEANING.get(sig)
    return f"{sig.name} ({meaning})" if meaning else sig.name


def exit_words(returncode: int | None) -> str:
    """How a process ended: ``still running``, ``exited with status 2``, ``killed by SIGILL
    (...)``. A shell reports a child killed by signal N as status 128 + N; that is said as
    the signal too."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        return f"killed by {signal_words(-returncode)}"
    if returncode > 128 and returncode - 128 in {int(s) for s in signal.Signals}:
        return f"exited with status {returncode}, i.e. killed by {signal_words(returncode - 128)}"
    return f"exited with status {returncode}"
