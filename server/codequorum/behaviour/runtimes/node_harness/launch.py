"""Inside bubblewrap: confine this process, then become Node (``execve``, once).

Stdlib only, loaded by path under ``python -s -S``. Arguments: the seccomp program (hex,
built in the parent: ``node_seccomp.py``), the Node binary, then Node's own
arguments. In order: leave root (``nobody``), drop every capability, set the rlimits,
``no_new_privs`` and the parent's filter, then a second filter of our own that lets
``execve`` through only for the path buffer this process holds (its address is known
only here, so Node, which starts in a fresh address space, cannot exec again: a program
it would start has no such string at that address, and ``fork`` is refused anyway), and
``execve`` Node. The layers that held reach the harness through ``CODEQUORUM_LAYERS``.
"""

from __future__ import annotations

import ctypes
import os
import platform
import resource
import struct
import sys

sys.path.insert(0, "/opt/codequorum-sandbox")
import confine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXECVE = {"x86_64": (59, 322), "aarch64": (221, 281)}
RET_ALLOW, RET_KILL = 0x7FFF0000, 0x80000000
LD_ABS, JEQ, RET = 0x20, 0x15, 0x06


def exec_once_filter(address: int) -> bytes:
    """BPF: ``execveat`` kills; ``execve`` kills unless its path is at ``address``."""
    execve, execveat = EXECVE[platform.machine()]
    lo, hi = address & 0xFFFFFFFF, address >> 32
    insns = [
        (LD_ABS, 0, 0, 0),  # nr
        (JEQ, 6, 0, execveat),  # -> kill
        (JEQ, 0, 4, execve),  # not execve -> allow
        (LD_ABS, 0, 0, 16),  # args[0] low half
        (JEQ, 0, 3, lo),  # -> kill
        (LD_ABS, 0, 0, 20),  # args[0] high half
        (JEQ, 0, 1, hi),  # -> allow / kill
        (RET, 0, 0, RET_ALLOW),
        (RET, 0, 0, RET_KILL),
    ]
    return b"".join(struct.pack("<HBBI", *insn) for insn in insns)


def limits() -> list[str]:
    """No core files, bounded files written and open."""
    for which, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, 1 << 24),
                         (resource.RLIMIT_NOFILE, 256)):
        resource.setrlimit(which, (value, value))
    return ["rlimits"]


def _array(items: list[bytes]) -> Any:
    array = (ctypes.c_char_p * (len(items) + 1))()
    for i, item in enumerate(items):
        array[i] = item
    array[len(items)] = None
    return array


def main(argv: list[str]) -> int:
    program, node, node_args = bytes.fromhex(argv[0]), argv[1], argv[2:]
    note = confine.drop_root()
    if note is not None:
        print(f"sandbox: {note}", file=sys.stderr)
        return 70
    layers, notes = confine.drop_capabilities()
    layers += limits()
    path = ctypes.create_string_buffer(node.encode())
    got, more = confine.install_seccomp(program)
    layers, notes = layers + got, notes + more
    if "seccomp" not in got:
        print(f"sandbox: {'; '.join(notes)}", file=sys.stderr)
        return 70
    env = dict(os.environ, CODEQUORUM_LAYERS=",".join(layers))
    args = _array([node.encode(), *(a.encode() for a in node_args)])
    envp = _array([f"{k}={v}".encode() for k, v in env.items()])
    second, more = confine.install_seccomp(exec_once_filter(ctypes.addressof(path)))
    if "seccomp" not in second:
        print(f"sandbox: {'; '.join(more)}", file=sys.stderr)
        return 70
    libc = ctypes.CDLL(None, use_errno=True)
    libc.execve(path, args, envp)
    print(f"sandbox: cannot start node: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
    return 70


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
