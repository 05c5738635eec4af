"""How the runner reaches the portable sandbox's guests here: chosen once, in one place.

Two channels. ``host``: one long-lived host process per run (``host.py --serve``), reached
over an AF_UNIX socket with each version's pipes passed by ``socket.send_fds``, its guests
on threads with stdins it feeds through named pipes, the runner waiting on pipes with
``selectors`` and reaping with ``os.wait4``: Linux only, and the faster start. ``process``:
the host's logic in the runner's own process (``processes.py``) and the guests in a process
of their own, the guest server (``instance.py --serve``), each guest's input a file that
process appends to, read back on threads: nothing but ``subprocess``, files and threads,
so every system has it (Windows, macOS).
``CODEQUORUM_PORTABLE_CHANNEL=process`` forces the second one anywhere (the tests run the
portable level over it on Linux).
"""

from __future__ import annotations

import os
import socket
import sys

HOST = "host"
PROCESS = "process"
#: The environment variable that forces a channel (``process``); anything else: the choice.
FORCE = "CODEQUORUM_PORTABLE_CHANNEL"


def choose(has_send_fds: bool, has_wait4: bool, os_name: str, forced: str | None,
           platform: str = "linux") -> str:
    """The channel a system with these capabilities uses: the long-lived host where
    descriptors can be passed and children reaped the POSIX way, on Linux (its socket is
    ``SOCK_SEQPACKET``, which macOS's ``AF_UNIX`` does not give; it was built and tested on
    Linux only), else the guests' own process; ``forced == "process"`` picks the latter
    anywhere."""
    return PROCESS if reason(has_send_fds, has_wait4, os_name, forced, platform) else HOST


def reason(has_send_fds: bool, has_wait4: bool, os_name: str, forced: str | None,
           platform: str = "linux") -> str:
    """Why a system with these capabilities takes the guests' own process, in words; empty
    where it takes the long-lived host. :func:`choose` reads its answer from this one."""
    if forced == PROCESS:
        return f"forced by {FORCE}"
    if not has_send_fds:
        return "this system cannot pass descriptors"
    if os_name != "posix":
        return "this system is not POSIX"
    if not has_wait4:
        return "this system cannot reap children the POSIX way (no os.wait4)"
    if not platform.startswith("linux"):
        return "the long-lived host's SOCK_SEQPACKET socket is Linux's alone"
    return ""


def describe(chosen: str, why: str) -> str:
    """How the guests are reached, as ``doctor`` says it."""
    if chosen == HOST:
        return "guests reached through one long-lived host"
    return f"guests in a process of their own ({why})"


def _here() -> tuple[bool, bool, str, str | None, str]:
    """This system's capabilities and override, as :func:`choose` reads them."""
    return (hasattr(socket, "send_fds"), hasattr(os, "wait4"), os.name,
            os.environ.get(FORCE), sys.platform)


def current() -> str:
    """This system's channel (read at each run: a test may force it)."""
    return choose(*_here())


def current_reason() -> str:
    """Why this system takes the guests' own process; empty where it takes the host."""
    return reason(*_here())
