"""Output files of the commands (``-o PATH``), written the way shells and linters do, and
never through a repository's symlink.

- A symlink is followed to its target, unless it lies inside a workspace (the current
  folder's, or any folder holding ``.git`` or ``.codequorum``) and leads out of it: a
  repository's ``report.json -> ~/.bashrc`` is refused (:mod:`codequorum.core.safe_paths`).
  Name the target itself to write outside.
- A FIFO or a device (``/dev/null``, ``/dev/stdout``, a terminal) is opened and written as
  it is: it is never replaced by a regular file.
- A regular file (or a new one) is written atomically: a temporary file in the same folder,
  renamed over the target once complete, so a reader sees the old content or the new, never
  half of it. An existing file keeps its permission bits (and owner, where allowed).
- When the folder cannot be written but the file can, the file is rewritten in place.

The folder is opened once, without following symlinks, and every file is made, opened and
renamed relative to it, so a folder swapped for a symlink after the check is not followed
(on Windows, which opens no folder as a descriptor, the folder's path is checked for links
and junctions again before each call: :class:`~codequorum.core.safe_paths.Folder`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from codequorum.core import os_features
from codequorum.core.errors import UserError
from codequorum.core.safe_paths import Folder, folder_of, guard

STDOUT = "-"
"""The path that means standard output."""
_OPEN = os.O_WRONLY


def _workspace() -> list[Path]:
    """The workspace of the current folder, whose symlinks may not lead a write out."""
    from codequorum.ingest.workspace import find_workspace

    return [find_workspace(Path.cwd())]


def _target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` reaches: symlinks resolved, even dangling ones, unless
    one leads out of a workspace (:class:`~codequorum.core.safe_paths.UnsafePath`)."""
    return guard(path, _workspace())


def _stat(target: Path) -> os.stat_result | None:
    """``os.stat`` of the target, None when it does not exist."""
    try:
        return target.stat()
    except FileNotFoundError:
        return None


def check_output(path: str | os.PathLike[str] | None) -> None:
    """Fail before any work, not after, when ``path`` cannot be written
    (:class:`UserError` naming the path and why)."""
    if path is None or str(path) == STDOUT:
        return
    target = _target(path)
    info = _stat(target)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise UserError(f"{path}: is a directory, expected a file")
    writable = info is not None and os.access(target, os.W_OK)
    if info is not None and not stat.S_ISREG(info.st_mode):
        if not writable:
            raise UserError(f"{path}: not writable")
        return
    folder = target.parent
    if not folder.is_dir():
        raise UserError(f"{path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) and not writable:
        raise UserError(f"{path}: folder {folder} is not writable")


@contextlib.contextmanager
def open_output(path: str | os.PathLike[str] | None) -> Iterator[TextIO]:
    """A UTF-8 text stream for ``path`` (standard output for None or ``-``), written as the
    module says; an exception inside the block leaves a regular target untouched."""
    if path is None or str(path) == STDOUT:
        yield sys.stdout
        return
    target = _target(path)
    info = _stat(target)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise UserError(f"{path}: is a directory, expected a file")
    with _folder(path, target) as folder:
        if info is not None and not stat.S_ISREG(info.st_mode):
            with _fdopen(folder.open(target.name, _OPEN)) as stream:
                yield stream
            return
        if info is not None and not os.access(target.parent, os.W_OK | os.X_OK):
            fd = folder.open(target.name, _OPEN | os.O_TRUNC)
            with _fdopen(fd) as stream:
                yield stream
            return
        with _atomic(folder, target, info) as stream:
            yield stream


@contextlib.contextmanager
def open_stream(path: str | os.PathLike[str] | None, append: bool) -> Iterator[TextIO]:
    """A stream written as lines arrive (not atomically): standard output for None or
    ``-``, else the file appended to (``append``) or started afresh, reached as
    :func:`open_output` reaches it."""
    if path is None or str(path) == STDOUT:
        yield sys.stdout
        return
    target = _target(path)
    flags = _OPEN | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    with _folder(path, target) as folder, _fdopen(
            folder.open(target.name, flags, 0o666)) as stream:
        yield stream


@contextlib.contextmanager
def _folder(path: str | os.PathLike[str], target: Path) -> Iterator[Folder]:
    """The target's folder, opened without following symlinks."""
    try:
        with folder_of(target) as folder:
            yield folder
    except FileNotFoundError:
        raise UserError(f"{path}: folder {target.parent} does not exist") from None


def _fdopen(fd: int) -> TextIO:
    """A UTF-8 text stream over a descriptor it then owns."""
    try:
        return os.fdopen(fd, "w", encoding="utf-8", newline="")
    except BaseException:
        os.close(fd)
        raise


def _create_temporary(folder: Folder, target: Path) -> tuple[int, str]:
    """A new file beside ``target`` in ``folder`` (mode 0666 less the umask, as a plain open
    gives); its descriptor and name."""
    for _ in range(100):
        partial = f".{target.name}.{secrets.token_hex(4)}.partial"
        try:
            fd = folder.open(partial, _OPEN | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        return fd, partial
    raise UserError(f"{target}: cannot create a temporary file beside it")


@contextlib.contextmanager
def _atomic(folder: Folder, target: Path, info: os.stat_result | None) -> Iterator[TextIO]:
    """Write a temporary file beside ``target``, then rename it over ``target``."""
    fd, partial = _create_temporary(folder, target)
    try:
        if info is not None:
            os_features.change_mode(fd, stat.S_IMODE(info.st_mode))
            os_features.change_owner(fd, info.st_uid, info.st_gid)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
            fd = -1  # the stream owns it now
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        folder.replace(partial, target.name)
    finally:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            folder.unlink(partial)
