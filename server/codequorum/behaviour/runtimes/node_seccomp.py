"""The seccomp filter of a Node version: an allow-list fit for V8, built in the parent.

Everything not listed answers ``EPERM``; what the CPython filter kills is killed here too
(``seccomp_filter.KILLED``: tracing, mounts, namespaces, kernel programs, ``fork``,
``vfork``, ...), except ``execve``, which the launcher's exec-once filter keeps to the one
start of Node (``node_harness/launch.py``). ``clone`` is allowed with ``CLONE_THREAD``
(V8's and libuv's threads) and kills without it; ``clone3`` answers ``ENOSYS`` so that
libc falls back to ``clone``; io_uring answers ``ENOSYS`` (libuv falls back to its thread
pool); ``socket`` and ``socketpair`` answer ``EACCES``. ``mprotect`` with ``PROT_EXEC``
stays allowed: V8's JIT writes code and makes it executable. The list was taken from the
system calls Node 20 and 24 make under the harness (runs, timeouts, a heap exhausted,
bytecode counts) and their dynamic loader, with the few of the same kind beside them.
"""

from __future__ import annotations

import contextlib
import errno
from functools import lru_cache

from codequorum.behaviour.sandbox.seccomp_filter import (
    CLONE_THREAD,
    KILLED,
    Filter,
    bpf_bytes,
    exported,
)

ALLOWED = (
    # files (the sandbox's own read-only view and tmpfs) and descriptors
    "read", "write", "readv", "writev", "pread64", "pwrite64", "lseek", "close", "openat",
    "open", "access", "faccessat", "faccessat2", "fstat", "stat", "lstat", "newfstatat",
    "statx", "readlink", "readlinkat", "getdents64", "fcntl", "ioctl", "dup", "dup2", "dup3",
    "pipe", "pipe2", "getcwd", "chdir", "fsync", "fdatasync", "ftruncate", "mkdir", "mkdirat",
    "unlink", "unlinkat", "rename", "renameat", "renameat2", "statfs", "fstatfs", "umask",
    # memory (mprotect with PROT_EXEC for the JIT)
    "mmap", "munmap", "mprotect", "mremap", "madvise", "brk", "msync", "mincore",
    "pkey_alloc", "pkey_free", "pkey_mprotect", "membarrier",
    # threads, waiting and signals to itself
    "futex", "set_robust_list", "get_robust_list", "set_tid_address", "rseq", "gettid",
    "sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler",
    "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "rt_sigtimedwait",
    "kill", "tgkill", "tkill", "exit", "exit_group", "restart_syscall",
    "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "poll",
    "ppoll", "select", "pselect6", "eventfd", "eventfd2", "timerfd_create", "timerfd_settime",
    "timerfd_gettime",
    # who and where it is, its own limits
    "getpid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups", "getresuid",
    "getresgid", "getpgrp", "getpgid", "getsid", "uname", "sysinfo", "getrandom",
    "getrusage", "times", "getpriority", "prlimit64", "getrlimit", "setrlimit", "prctl",
    "arch_prctl", "capget", "seccomp",
    # the one start of Node (kept to once by the launcher's filter)
    "execve",
)  # fmt: skip
REFUSED_ENOSYS = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
REFUSED_EACCES = ("socket", "socketpair")


def _build() -> bytes:
    import pyseccomp as sc

    flt = sc.SyscallFilter(sc.ERRNO(errno.EPERM))

    def add(action: object, name: str, *args: object) -> None:
        with contextlib.suppress(RuntimeError, ValueError, OSError):  # not on this architecture
            flt.add_rule(action, name, *args)

    for name in ALLOWED:
        add(sc.ALLOW, name)
    answered = {"execve", *REFUSED_ENOSYS, *REFUSED_EACCES}
    for name in KILLED:
        if name not in answered:
            add(sc.KILL_PROCESS, name)
    add(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, CLONE_THREAD))
    add(sc.KILL_PROCESS, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    for name in REFUSED_ENOSYS:
        add(sc.ERRNO(errno.ENOSYS), name)
    for name in REFUSED_EACCES:
        add(sc.ERRNO(errno.EACCES), name)
    return bpf_bytes(flt)


@lru_cache(maxsize=1)
def node_filter() -> Filter:
    """The filter as BPF bytes, built once per process (libseccomp through pyseccomp)."""
    return exported(_build, "Node's seccomp filter")


__all__ = ["ALLOWED", "node_filter"]
