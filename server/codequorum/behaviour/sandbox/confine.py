"""Kernel confinement of one candidate, applied in the child before any candidate code.

Stdlib only (the child loads this file by path under ``python -s -S``). The order is
fixed, each step needs the one before:

1. :func:`drop_root` (the fork server, once): a server started as root inside bubblewrap
   becomes the unprivileged ``nobody`` and loses every capability.
2. :func:`enter_namespaces` (per candidate, in the forked child): new user, mount, PID,
   network, IPC and UTS namespaces (its host name ``localhost``, so a module that asks
   for it at import gets a neutral answer). The child forks once more; the grandchild is PID 1
   of its own PID namespace and returns, the middle process waits for it and mirrors how
   it ended (so the fork server sees the candidate's exit status and CPU time).
3. :func:`private_mounts`: a size-capped tmpfs as the working directory, an empty
   ``/proc`` (or one of its own PID namespace), the fork server's socket hidden; for a
   version run in its module, :func:`readonly_view`: the workspace view on a tmpfs of its
   own, remounted read-only.
4. :func:`drop_capabilities`: the capabilities the new user namespace gave are dropped
   from every set, bounding set included.
5. :func:`install_seccomp`: ``no_new_privs`` and the filter the parent built
   (``seccomp_filter.py``, a classic BPF program as bytes).

Every step reports the layer it gave, or a note saying why the kernel refused it; the
parent decides whether what is missing may run (see ``supervisor.py``).
"""

from __future__ import annotations

# ``signal``'s C half: ``signal`` itself would import ``enum``, and ``contextlib``
# ``collections``: each a tenth of a portable guest's start (which loads this file).
import _signal  # type: ignore[import-not-found]
import os
import posix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
ALL_NAMESPACES = (
    CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
)
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_RDONLY, MS_REMOUNT = 2, 4, 8, 1, 32
MS_REC, MS_PRIVATE = 16384, 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAP = 63
NOBODY = 65534
#: The host name a candidate's UTS namespace answers with (``socket.gethostname()``).
NEUTRAL_HOSTNAME = "localhost"


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _errno_text() -> str:
    import ctypes

    return os.strerror(ctypes.get_errno())


def drop_root() -> str | None:
    """As root: become ``nobody`` (no supplementary groups, no capabilities); else nothing.

    Returns a note when the switch failed (the caller must not go on as root).
    """
    if posix.getuid() != 0:
        return None
    try:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
    except OSError as exc:
        return f"cannot leave root: {exc}"
    # Changing uid made the process non-dumpable, which makes /proc/self root's: the
    # user namespace id maps could not be written. Candidates cannot reach this process
    # (own PID namespace, ptrace refused by seccomp).
    if _libc().prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0:
        return f"prctl(PR_SET_DUMPABLE): {_errno_text()}"
    return None


def enter_namespaces() -> tuple[list[str], list[str]]:
    """New namespaces for this candidate; returns in the process that runs it.

    Returns (layers, notes). When the kernel refuses, nothing is entered, no fork happens,
    and the notes say why. Three processes result, and only the last returns:

    - this one (outside the new PID namespace) waits and ends exactly as the candidate
      ended, so the fork server sees its exit status, signal and CPU time;
    - PID 1 of the new namespace, a minimal init (the kernel ignores signals to an init
      that has no handler, so the candidate must not be PID 1: its own ``os.kill`` and the
      CPU limit's SIGXCPU would not end it);
    - PID 2, the candidate.
    """
    libc = _libc()
    uid, gid = posix.getuid(), posix.getgid()
    if libc.prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0) != 0:
        return [], [f"prctl(PR_SET_PDEATHSIG): {_errno_text()}"]
    if libc.unshare(ALL_NAMESPACES) != 0:
        return [], [f"unshare(user, mount, pid, net, ipc, uts): {_errno_text()}"]
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError as exc:
        return [], [f"user namespace id maps: {exc}"]
    name = NEUTRAL_HOSTNAME.encode()
    libc.sethostname(name, len(name))  # the namespace's own; where refused, it keeps a copy
    pid = posix.fork()
    if pid != 0:
        _mirror(pid, decode=True)
    _die_with_parent(libc)
    pid = posix.fork()  # PID 1 forks the candidate, PID 2
    if pid != 0:
        _mirror(pid, decode=False)
    _die_with_parent(libc)
    return ["userns", "pidns", "mountns", "netns", "ipcns", "utsns"], []


def die_with_parent() -> None:
    """SIGKILL this process when its parent ends (or end now if that fails)."""
    _die_with_parent(_libc())


def _die_with_parent(libc: Any) -> None:
    if libc.prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0) != 0:
        posix._exit(71)


def _write(path: str, text: str) -> None:
    fd = posix.open(path, os.O_WRONLY)
    try:
        posix.write(fd, text.encode())
    finally:
        posix.close(fd)


def _mirror(pid: int, decode: bool) -> None:
    """Wait for ``pid`` and end as it ended; never returns.

    PID 1 (``decode`` False) cannot die of a signal it sends itself, so it reports a
    signal ``n`` as exit status ``128 + n``; the process outside (``decode`` True) turns
    that back into the signal.
    """
    for fd in range(0, 4):  # the pipes belong to the candidate: EOF must follow its exit
        try:  # noqa: SIM105  (no contextlib, above)
            posix.close(fd)
        except OSError:
            pass
    while True:
        try:
            _pid, status = posix.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
        except OSError:
            posix._exit(70)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    if not sig and decode and code > 128:
        sig = code - 128
    if sig and decode:
        try:  # noqa: SIM105  (no contextlib, above)
            _signal.signal(sig, _signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL, SIGSTOP: no handler
            pass
        posix.kill(posix.getpid(), sig)
    posix._exit(128 + sig if sig else code)


def private_mounts(workdir: str, tmpfs_bytes: int, hide: list[str]) -> tuple[list[str], list[str]]:
    """Fresh size-capped tmpfs at ``workdir`` (the cwd) and ``/tmp``, no host ``/proc``,
    ``hide`` covered (nothing a sibling candidate wrote is visible).

    Needs the mount namespace of :func:`enter_namespaces`. Returns (layers, notes).
    """
    libc = _libc()
    layers: list[str] = []
    notes: list[str] = []
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return layers, [f"private mounts: {_errno_text()}"]
    options = f"size={tmpfs_bytes},mode=0700".encode()
    if libc.mount(b"tmpfs", workdir.encode(), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  options) == 0:
        posix.chdir(workdir)
        if libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      options) == 0:
            layers.append("tmpfs")
        else:
            notes.append(f"tmpfs on /tmp: {_errno_text()}")
    else:
        notes.append(f"tmpfs: {_errno_text()}")
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    if libc.mount(b"proc", b"/proc", b"proc", flags, None) == 0:
        layers.append("own-proc")
    elif libc.mount(b"tmpfs", b"/proc", b"tmpfs", flags | MS_RDONLY, b"size=4096") == 0:
        layers.append("no-proc")
    else:
        notes.append(f"/proc: {_errno_text()}")
    for path in hide:
        if libc.mount(b"tmpfs", path.encode(), b"tmpfs", flags | MS_RDONLY, b"size=4096") != 0:
            notes.append(f"hide {path}: {_errno_text()}")
    return layers, notes


def readonly_view(path: str, size: int, write: Any) -> tuple[list[str], list[str]]:
    """A tmpfs of ``size`` bytes at ``path`` holding what ``write(path)`` puts there, then
    remounted read-only (layer ``ro-view``): nothing the candidate or its module does can
    change it, and capabilities (dropped next) and seccomp keep it from being remounted.

    Needs the mount namespace of :func:`enter_namespaces`. Returns (layers, notes).
    """
    libc = _libc()
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    target = path.encode()
    if libc.mount(b"tmpfs", target, b"tmpfs", flags, f"size={size},mode=0755".encode()) != 0:
        return [], [f"workspace view: {_errno_text()}"]
    try:
        write(path)
    except OSError as exc:
        return [], [f"workspace view: {exc}"]
    if libc.mount(b"none", target, None, MS_REMOUNT | MS_RDONLY | flags, None) != 0:
        return [], [f"workspace view read-only: {_errno_text()}"]
    return ["ro-view"], []


def drop_capabilities() -> tuple[list[str], list[str]]:
    """Empty every capability set (effective, permitted, inheritable, ambient, bounding)."""
    import ctypes

    libc = _libc()
    notes: list[str] = []
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(LAST_CAP + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the kernel's last cap

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    header = Header(LINUX_CAPABILITY_VERSION_3, 0)
    data = (Data * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        notes.append(f"capset: {_errno_text()}")
        return [], notes
    return ["no-capabilities"], notes


def install_seccomp(program: bytes) -> tuple[list[str], list[str]]:
    """``no_new_privs`` then the seccomp filter ``program`` (classic BPF, 8 bytes per insn)."""
    import ctypes

    libc = _libc()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return [], [f"no_new_privs: {_errno_text()}"]
    layers = ["no-new-privs"]
    if not program:
        return layers, ["seccomp: no filter was built (libseccomp missing on the host)"]

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    prog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_char_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        return layers, [f"seccomp: {_errno_text()}"]
    return [*layers, "seccomp"], []
