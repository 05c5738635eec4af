"""Output files of the commands (``-o PATH``), written the way shells and linters do.

- A symlink is followed: its target is written, the link stays a link.
- A FIFO or a device (``/dev/null``, ``/dev/stdout``, a terminal) is opened and written as
  it is: it is never replaced by a regular file.
- A regular file (or a new one) is written atomically: a temporary file in the same folder,
  renamed over the target once complete, so a reader sees the old content or the new, never
  half of it. An existing file keeps its permission bits (and owner, where allowed).
- When the folder cannot be written but the file can, the file is rewritten in place.
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

from codequorum.errors import UserError

STDOUT = "-"
"""The path that means standard output."""


def _target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` reaches: symlinks resolved, even dangling ones."""
    return Path(os.path.realpath(path))


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
    if info is not None and not stat.S_ISREG(info.st_mode):
        with open(target, "w", encoding="utf-8", newline="") as stream:
            yield stream
        return
    folder = target.parent
    if info is not None and not os.access(folder, os.W_OK | os.X_OK):
        with open(target, "w", encoding="utf-8", newline="") as stream:
            yield stream
        return
    with _atomic(target, info) as stream:
        yield stream


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside ``target`` (mode 0666 less the umask, as a plain open gives)."""
    for _ in range(100):
        partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        return fd, partial
    raise UserError(f"{target}: cannot create a temporary file beside it")


@contextlib.contextmanager
def _atomic(target: Path, info: os.stat_result | None) -> Iterator[TextIO]:
    """Write a temporary file beside ``target``, then rename it over ``target``."""
    fd, partial = _create_temporary(target)
    try:
        if info is not None:
            os.fchmod(fd, stat.S_IMODE(info.st_mode))
            with contextlib.suppress(OSError):  # only root may give a file away
                os.fchown(fd, info.st_uid, info.st_gid)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
            fd = -1  # the stream owns it now
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, target)
    finally:
        if fd >= 0:
            os.close(fd)
        partial.unlink(missing_ok=True)
