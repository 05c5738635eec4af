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


def path_text(uri: str, windows: bool = WINDOWS) -> str | None:
    """The local path a ``file:`` URI names, spelled for Windows (``windows``) or POSIX;
    None for another scheme, another host (``localhost`` is this one) or a path holding a
    NUL."""
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
    return str(PureWindowsPath(path)) if path else None


def uri_path(uri: str) -> Path | None:
    """:func:`path_text` of ``uri`` on this system, as a ``Path``."""
    text = path_text(uri)
    return None if text is None else Path(text)
