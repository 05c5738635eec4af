"""Files the language server reads because a client named them: a document that is not
open, a sample file to import.

Any program that can send the server a command (another extension, a link in a hover, a
task) can name any path or URI. So a file is read only when it is a regular file (not a
FIFO, a device, a folder), no larger than a bound, and inside a workspace folder once every
symlink is followed, and where it leads is nothing hidden or secret-looking
(:func:`~codequorum.core.safe_paths.workspace_refusal`, the rule of the module view and the
agents' tools: ``.env``, ``helper.py -> .env``, ``config/master.key``); anything else is
one clear error at once, before a byte is read. A file
the user picked outside the workspace (VS Code's file dialog) is read by the extension and
its text sent with the command, bounded the same way (:func:`bounded_text`): the server
never follows a path out of the workspace on a client's word, since no flag a client sends
can prove a person chose it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from codequorum.core.file_uris import another_machine, uri_path
from codequorum.core.safe_paths import UnreadableFile, read_regular, workspace_refusal

#: Largest sample file read for ``codequorum.importSamples`` (path or text).
MAX_IMPORT_BYTES = 16 * 1024 * 1024


class RefusedFile(Exception):
    """A file the server will not read, and why (one line, naming it)."""


def path_of(uri: str) -> Path | None:
    """The local path of a ``file:`` URI (None for other schemes, and for a URI that names
    another host, ``file://server/share/x.py``, whose path is not this machine's)."""
    return uri_path(uri)


def read_inside(path: Path, roots: Iterable[str | os.PathLike[str]], limit: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes whose real
    path (symlinks followed) lies inside one of ``roots``; else :class:`RefusedFile`. Never
    blocks on a FIFO, never reads more than ``limit`` + 1 bytes."""
    if "\0" in str(path):  # every call on it would raise ValueError
        raise RefusedFile(f"{str(path)!r} holds a NUL byte: no file has such a name")
    if another_machine(str(path)):  # looking it up would already reach that host
        raise RefusedFile(f"{path} names another machine or a device; only files inside "
                          "the workspace folders are read")
    real = Path(os.path.realpath(path))
    tops = [Path(os.path.realpath(root)) for root in roots]
    inside = [top for top in tops if real.is_relative_to(top)]
    if not inside:
        where = f" (it leads to {real})" if real != path else ""
        raise RefusedFile(f"{path} is outside the workspace folders{where}; only files "
                          "inside them are read")
    why = workspace_refusal(real.relative_to(inside[0]))
    if why is not None:  # the workspace's one rule (the module view's, the agents' tools')
        raise RefusedFile(f"{path} is {why}" + (f" (it leads to {real})" if real != path
                                                else "") + "; it is not read")
    try:
        return read_regular(real, limit)
    except UnreadableFile as exc:
        raise RefusedFile(str(exc).replace(str(real), str(path), 1)) from None
    except FileNotFoundError:
        raise RefusedFile(f"{path}: no such file") from None
    except OSError as exc:
        raise RefusedFile(f"{path}: cannot read: {exc.strerror or exc}") from None


def bounded_text(text: str, name: str, limit: int) -> bytes:
    """Text a client read from a file itself, as UTF-8, when it is at most ``limit`` bytes;
    else :class:`RefusedFile` naming ``name``."""
    data = text.encode("utf-8", errors="replace") if len(text) <= limit else b""
    if len(text) > limit or len(data) > limit:
        raise RefusedFile(f"{name} is larger than {limit / 1_000_000:g} MB")
    return data
