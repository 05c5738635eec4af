"""The seccomp filter every candidate runs under, built with libseccomp in the parent.

The filter allows by default and refuses what no test needs. It is exported as a
classic BPF program (bytes) and installed by the child itself right before candidate code
runs (``confine.install_seccomp``); the child needs no libseccomp of its own.

Refused by killing the process (status ``forbidden: system call``): tracing and reading
other processes (``ptrace``, ``process_vm_*``, ``kcmp``), kernel programs and counters
(``bpf``, ``perf_event_open``), keyrings, anything about mounts and namespaces (``mount``,
``unshare``, ``setns``, ``pivot_root``, ``chroot``, the new mount API), ``pidfd_*``,
real-time scheduling (``sched_setscheduler``, ``sched_setattr``), running programs
(``execve``, ``execveat``), new processes (``fork``, ``vfork``, ``clone`` without
``CLONE_THREAD``: threads are allowed), ``userfaultfd``, ``io_uring``, kernel modules,
``kexec``, ``reboot``, swap, accounting, clocks, host names, ``personality``, file
handles. Refused with ``EPERM``: changing the priority, affinity or limits of any
process but the caller (``setpriority``, ``sched_setaffinity``, ``prlimit64`` with a
non-zero pid), ``memfd_create`` (no anonymous executable files); ``clone3`` answers
``ENOSYS`` so that libc falls back to ``clone``, whose flags the filter can see.
System calls of another architecture (the 32-bit entry points) kill the process.
"""

from __future__ import annotations

import errno
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

CLONE_THREAD = 0x00010000

KILLED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
    "sched_setscheduler", "sched_setattr",
    "execve", "execveat", "fork", "vfork",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "vhangup",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "iopl", "ioperm", "personality",
    "name_to_handle_at", "open_by_handle_at", "fanotify_init", "lookup_dcookie",
)  # fmt: skip
OTHER_PROCESS_ONLY = {"setpriority": 1, "sched_setaffinity": 0, "prlimit64": 0}
REFUSED = ("memfd_create",)


@dataclass(frozen=True)
class Filter:
    """A built filter (``program`` empty when it could not be built) and why not."""

    program: bytes
    note: str


def _build() -> bytes:
    import pyseccomp as sc

    flt = sc.SyscallFilter(sc.ALLOW)
    kill = sc.KILL_PROCESS
    for name in KILLED:
        flt.add_rule(kill, name)
    # New processes: clone only with CLONE_THREAD.
    flt.add_rule(kill, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for name, arg in OTHER_PROCESS_ONLY.items():
        flt.add_rule(sc.ERRNO(errno.EPERM), name, sc.Arg(arg, sc.NE, 0))
    for name in REFUSED:
        flt.add_rule(sc.ERRNO(errno.EPERM), name)
    return bpf_bytes(flt)


def bpf_bytes(flt: Any) -> bytes:
    """A pyseccomp filter exported as BPF bytes."""
    with tempfile.TemporaryFile() as out:
        flt.export_bpf(out)
        out.seek(0)
        return out.read()


def exported(build: Callable[[], bytes], what: str) -> Filter:
    """``build()``'s BPF program as a :class:`Filter`, or an empty one saying why ``what``
    (``seccomp filter``) could not be built here."""
    try:
        program = build()
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        return Filter(b"", f"{what} not built: {type(exc).__name__}: {exc}")
    if not program or len(program) % 8:
        return Filter(b"", f"{what} not built: libseccomp exported no program")
    return Filter(program, "")


@lru_cache(maxsize=1)
def candidate_filter() -> Filter:
    """The filter as BPF bytes, built once per process (libseccomp through pyseccomp)."""
    return exported(_build, "seccomp filter")


def describe() -> str:
    """One line for ``doctor``: whether the filter builds here and how large it is."""
    flt = candidate_filter()
    if not flt.program:
        return flt.note
    return f"{len(flt.program) // 8} BPF instructions, built with libseccomp (pyseccomp)"
