"""Run a command on a Linux that refuses new namespaces, as locked-down machines do.

``python without_namespaces.py [--all] COMMAND ...`` loads a seccomp filter into this
process, then executes COMMAND, which inherits it with all its children: ``unshare`` and
``clone`` asking for a new user namespace fail with ``EPERM`` (a kernel with
``user.max_user_namespaces = 0``, a distribution that turns them off), and with ``--all``
those asking for any new namespace (a container's default seccomp profile). ``clone3``
answers ``ENOSYS``, so that the C library falls back to ``clone``, whose flags a filter can
read. The filter is the kernel's, not a stand-in: bubblewrap and the sandbox's own probe meet
the same refusals they meet there.
"""

from __future__ import annotations

import errno
import os
import sys

import pyseccomp as seccomp

CLONE_NEWUSER = 0x10000000
#: Every namespace flag of ``clone`` and ``unshare`` (user, mount, PID, network, IPC, UTS,
#: cgroup).
ALL_NAMESPACES = 0x10000000 | 0x00020000 | 0x20000000 | 0x40000000 | 0x08000000 \
    | 0x04000000 | 0x02000000


def main(argv: list[str]) -> None:
    every = argv[:1] == ["--all"]
    command = argv[1:] if every else argv
    flags = [CLONE_NEWUSER] if not every else [
        1 << bit for bit in range(32) if ALL_NAMESPACES & (1 << bit)]
    refuse = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for flag in flags:
        for call in ("unshare", "clone"):
            refuse.add_rule(seccomp.ERRNO(errno.EPERM), call,
                            seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    refuse.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    refuse.load()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
