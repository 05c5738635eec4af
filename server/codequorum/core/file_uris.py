"""A ``file:`` URI from an editor as a local path, on every system, in one place.

Editors name documents by URI: ``file:///home/me/app.py`` on Linux and macOS,
``file:///c%3A/Users/me/app.py`` (VS Code percent-encodes the drive's colon) or
``file:///C:/Users/me/app.py`` on Windows. The path of such a URI is ``/c:/Users/...``:
read as it is on Windows it is no file. :func:`path_text` reads the drive letter where the
system has drives; a URI naming another host (``file://server/share/x.py``) has no local
path on any system (its path is not this machine's to read on a client's word).
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from urllib.parse import unquote, urlsplit

#: ``/C:`` or ``/c:/...`` at the head of a URI's path: a Windows drive.
_DRIVE = re.compile(r"^/[A-Za-z]:(?:/|$)")
#: The system's own way: drive letters and ``\\`` where ``os.name`` is ``nt``.
WINDOWS = os.name == "nt"


def path_text(uri: str, windows: bool | None = None) -> str | None:
    """The local path a ``file:`` URI names, spelled for Windows (``windows``; default:
    this system) or POSIX; None for another scheme, another host (``localhost`` is this
    one, and on Windows none may be spelled in the path either: :func:`another_machine`)
    or a path holding a NUL."""
    windows = WINDOWS if windows is None else windows
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file" or parts.netloc.lower() not in ("", "localhost"):
        return None
    path = unquote(parts.path)
    if "\0" in path:  # ``%00``: no system has such a file, and every call on it raises
        return None
    if not windows:
        return str(PurePosixPath(path)) if path else None
    if _DRIVE.match(path):
        path = path[1:]
    if another_machine(path, windows):  # ``file:////server/share/x.py``
        return None
    return str(PureWindowsPath(path)) if path else None


def another_machine(path: str, windows: bool | None = None) -> bool:
    """Whether ``path`` names no folder of this machine but another host or a device: on
    Windows a path that starts with two separators (``\\\\server\\share``,
    ``//server/share``, ``\\\\?\\UNC\\...``, ``\\\\.\\pipe\\...``), whose mere lookup
    (``realpath``, a ``stat``) connects to that host and offers it the user's Windows
    credentials. POSIX names no host in a path. A client's or an agent's path is refused
    on it before it is touched. ``windows``: spelled for Windows (default: this system)."""
    on_windows = WINDOWS if windows is None else windows
    return on_windows and len(path) >= 2 and path[0] in "/\\" and path[1] in "/\\"


def uri_path(uri: str) -> Path | None:
    """:func:`path_text` of ``uri`` on this system, as a ``Path``."""
    text = path_text(uri)
    return None if text is None else Path(text)
