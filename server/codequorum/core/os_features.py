"""What this operating system gives, asked in one place.

POSIX has flags and calls Windows lacks (``O_NOFOLLOW``, ``O_DIRECTORY``, ``O_NONBLOCK``,
``O_CLOEXEC``, folder descriptors, ``getuid``, ``fchmod``, CPU affinity); macOS lacks a few
of Linux's (``sched_getaffinity``, ``O_PATH``). Every module asks here instead of naming a
POSIX-only attribute, so importing codequorum and its common paths never fails on a system
without them; each answer says what stands in where one is missing. What stands in for
``O_NOFOLLOW`` keeps its property: :func:`open_no_link` refuses a link (or a Windows reparse
point: a symlink, a junction, a mount point) at the path it opens, checked before and after
the open against the file it opened.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

#: ``O_NOFOLLOW``, or 0 where the system has none (Windows): :func:`open_no_link` then checks.
NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
#: A descriptor not inherited by children: ``O_CLOEXEC`` (POSIX), ``O_NOINHERIT`` (Windows).
CLOEXEC: int = getattr(os, "O_CLOEXEC", 0) or getattr(os, "O_NOINHERIT", 0)
#: ``O_NONBLOCK`` (an open of a FIFO never waits for a writer); 0 where no FIFOs are opened
#: by path (Windows: its named pipes live under ``\\.\pipe\``, never in a workspace).
NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
#: ``O_BINARY`` on Windows (else ``os.open`` gives a text-mode descriptor that turns
#: ``\n`` into ``\r\n``), 0 elsewhere.
BINARY: int = getattr(os, "O_BINARY", 0)


def folder_descriptors() -> bool:
    """Whether folders open as descriptors that files can be opened, renamed and removed
    relative to, without following a link (POSIX ``openat``); not on Windows."""
    needed = {os.open, os.rename, os.unlink}  # ``os.replace`` takes them as ``rename`` does
    return (NOFOLLOW != 0 and hasattr(os, "O_DIRECTORY")
            and needed <= os.supports_dir_fd)


def user_id() -> int | None:
    """This process's user id, None where the system has none (Windows)."""
    getuid = getattr(os, "getuid", None)
    return None if getuid is None else int(getuid())


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the system says it (Linux),
    else every core (macOS, Windows)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return len(affinity(0))
        except OSError:
            pass
    return os.cpu_count() or 1


def link_like(info: os.stat_result) -> bool:
    """Whether ``lstat`` found a link: a symlink, or on Windows any reparse point (a
    junction or a mount point leads elsewhere as a symlink does)."""
    attributes = int(getattr(info, "st_file_attributes", 0))
    return stat.S_ISLNK(info.st_mode) or bool(attributes & stat.FILE_ATTRIBUTE_REPARSE_POINT)


def _refused(path: str | os.PathLike[str]) -> OSError:
    """The error ``O_NOFOLLOW`` gives on a link, naming ``path``."""
    return OSError(errno.ELOOP, "a link (or reparse point) is not followed here", str(path))


def _lstat(path: str | os.PathLike[str]) -> os.stat_result | None:
    """``lstat`` of ``path``, None when nothing is there."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def open_no_link(path: str | os.PathLike[str], flags: int, mode: int = 0o777,
                 nofollow: int | None = None) -> int:
    """``os.open(path, flags)`` that never follows a link at ``path`` itself, a descriptor
    not inherited (and binary on Windows). With ``O_NOFOLLOW`` the kernel refuses; where
    the system has none (``nofollow == 0``) the path is checked with ``lstat`` before the
    open (a link or reparse point: refused), opened without ``O_TRUNC``, and checked again
    after: the path must still be no link and name the very file opened (device and
    inode), else the descriptor is closed unused and the open refused; only then is the
    file truncated. Either way a link raises ``OSError(ELOOP)``. ``nofollow``: the flag
    (default :data:`NOFOLLOW`; 0 takes the checks)."""
    base = flags | CLOEXEC | BINARY
    nofollow = NOFOLLOW if nofollow is None else nofollow
    if nofollow:
        return os.open(path, base | nofollow, mode)
    before = _lstat(path)
    if before is not None and link_like(before):
        raise _refused(path)
    fd = os.open(path, base & ~os.O_TRUNC, mode)
    try:
        after = _lstat(path)
        opened = os.fstat(fd)
        if (after is None or link_like(after)
                or (after.st_dev, after.st_ino) != (opened.st_dev, opened.st_ino)):
            raise _refused(path)
        if flags & os.O_TRUNC:
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def links_on_the_way(folder: Path) -> Path | None:
    """The first component of the absolute ``folder`` (its anchor excluded) that is now a
    link or reparse point, None when none is; ``FileNotFoundError`` when one is missing,
    ``NotADirectoryError`` when one is a file. What a folder reached by path is checked
    with where it cannot be opened as a descriptor (Windows)."""
    current = Path(folder.anchor)
    for part in folder.parts[1:]:
        current = current / part
        info = os.lstat(current)
        if link_like(info):
            return current
        if not stat.S_ISDIR(info.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(current))
    return None


def change_mode(fd: int, mode: int) -> None:
    """``fchmod`` where the system has it; on Windows (before Python 3.13) a new file keeps
    the permissions its folder gives (ACLs: POSIX mode bits mean only read-only there)."""
    fchmod = getattr(os, "fchmod", None)
    if fchmod is not None:
        fchmod(fd, mode)


def change_owner(fd: int, uid: int, gid: int) -> None:
    """``fchown`` where the system has it (only root may give a file away: refused
    silently, as before); nothing on Windows, whose files have no POSIX owner."""
    fchown = getattr(os, "fchown", None)
    if fchown is not None:
        with contextlib.suppress(OSError):
            fchown(fd, uid, gid)


def search_folders(path_variable: str | None) -> list[str]:
    """The folders of a ``PATH`` value a program is looked up in: its absolute entries only.
    An empty entry (``PATH=:/usr/bin``, ``/usr/bin::/bin``, what ``$EXTRA:$PATH`` gives with
    ``EXTRA`` unset) and ``.`` or any relative entry name the current folder, the repository
    codequorum runs in, whose ``node`` or ``bwrap`` would then run with the user's rights;
    so they are skipped, as Go's ``exec.LookPath`` refuses a program found there."""
    return [entry for entry in (path_variable or "").split(os.pathsep)
            if entry and os.path.isabs(entry)]


def find_program(name: str, path_variable: str | None = None) -> str | None:
    """The absolute path of the executable ``name`` in the absolute folders of ``PATH``
    (``path_variable``, default the environment's), or None: ``shutil.which`` without the
    current folder, which it searches for an empty or relative entry (and, on Windows,
    before every entry). On Windows, the endings of ``PATHEXT`` are tried too. A ``name``
    holding a folder (``./venv/bin/python``, written by the user) is taken as written."""
    if os.path.dirname(name):  # a path, not a name to look up: taken as it is written
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    folders = search_folders(os.environ.get("PATH", os.defpath) if path_variable is None
                             else path_variable)
    endings = [""]
    if os.name == "nt":
        endings += [e for e in os.environ.get("PATHEXT", ".EXE;.BAT;.CMD").split(";") if e]
    for folder in folders:
        for ending in endings:
            candidate = os.path.join(folder, name + ending)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return None
