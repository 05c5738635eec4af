"""Files an agent names, read only inside the workspace: bounded, regular, UTF-8 text.

An agent's path is untrusted: it may climb out of the workspace (``../../etc/passwd``),
name a symlink that points out, a FIFO that would block the read, a device, a huge or a
binary file, or a hidden one that holds secrets (``.env``). :func:`read_source` accepts
only a regular file whose real path lies inside the workspace root, in no hidden folder and
not hidden itself, not named like a secret, of at most :data:`MAX_SOURCE_BYTES`, and says in
one line why not: the rule the module view applies to the files a version sees
(:mod:`codequorum.core.safe_paths`), on the path given and on where its links lead.
:func:`store_file` is where the workspace keeps its versions, refused when the store or
its folder is a link that leads out of the workspace.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codequorum.core.errors import UserError
from codequorum.core.file_uris import another_machine
from codequorum.core.limits import MAX_DOCUMENT_BYTES
from codequorum.core.safe_paths import RefusedFile, read_workspace_file, resolve_in_workspace
from codequorum.core.safe_text import safe_text
from codequorum.ingest.store import STORE_DIR, default_store_path

#: The largest source file read: the size the editor and ``check`` still parse.
MAX_SOURCE_BYTES = MAX_DOCUMENT_BYTES
#: The longest path accepted from an agent, in characters.
MAX_PATH_CHARS = 4096
#: How much of an agent's path an error message quotes.
SHOWN_PATH_CHARS = 200


class PathRefused(UserError):
    """A path an agent gave that is not a readable source file inside the workspace."""


@dataclass(frozen=True)
class SourceFile:
    """A file read for an agent: its real path (inside the root) and its text."""

    path: Path
    text: str


def _shown(given: str) -> str:
    """The agent's path as an error message quotes it: escaped and bounded."""
    return safe_text(given, SHOWN_PATH_CHARS)


def _checked(given: str) -> Path:
    """``given`` as a path, when it is one an agent may name at all."""
    if not given or len(given) > MAX_PATH_CHARS or "\0" in given:
        raise PathRefused(f"{_shown(given)!s}: not a usable path (empty, over "
                          f"{MAX_PATH_CHARS} characters, or with a NUL byte)")
    if another_machine(given):  # looking it up would already reach that host
        raise PathRefused(f"{_shown(given)}: names another machine or a device, not a file "
                          "of the workspace")
    return Path(given)


def inside(root: Path, given: str) -> Path:
    """The real path of ``given`` (relative to ``root``, or absolute), which must exist and,
    once every link is followed, pass the workspace's one rule
    (:func:`~codequorum.core.safe_paths.resolve_in_workspace`: inside ``root``, nothing
    hidden or secret-looking). Raises :class:`PathRefused`."""
    candidate = _checked(given)
    try:
        return resolve_in_workspace(root, candidate if candidate.is_absolute()
                                    else root / candidate)
    except FileNotFoundError:
        raise PathRefused(f"{_shown(given)}: no such file in the workspace") from None
    except RefusedFile as exc:
        raise PathRefused(f"{_shown(given)}: {safe_text(exc)}; not read for an agent") from None


def read_source(root: Path, given: str) -> SourceFile:
    """The text of the regular file ``given`` inside ``root``: at most
    :data:`MAX_SOURCE_BYTES`, UTF-8 (a BOM dropped), no NUL bytes. Raises
    :class:`PathRefused` with one line saying why not."""
    candidate = _checked(given)
    try:
        real, data = read_workspace_file(
            root, candidate if candidate.is_absolute() else root / candidate, MAX_SOURCE_BYTES)
    except FileNotFoundError:
        raise PathRefused(f"{_shown(given)}: no such file in the workspace") from None
    except RefusedFile as exc:
        raise PathRefused(f"{_shown(given)}: {safe_text(exc)}; not read for an agent") from None
    if b"\0" in data:
        raise PathRefused(f"{_shown(given)}: a binary file, not source code")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PathRefused(f"{_shown(given)}: not UTF-8 text (byte {exc.start})") from None
    return SourceFile(real, text)


def store_file(root: Path) -> Path:
    """The workspace's store, ``<root>/.codequorum/samples.sqlite3``; refused when the
    ``.codequorum`` folder or the store is a link, or either is not what it should be (a
    repository could point them at a file of the user's)."""
    folder = root / STORE_DIR
    path = default_store_path(root)
    for item, kind in ((folder, "folder"), (path, "file")):
        if item.is_symlink():
            raise PathRefused(f"{safe_text(item)} is a link; the version store is only kept "
                              f"in a {kind} of the workspace's own")
    if folder.exists() and not folder.is_dir():
        raise PathRefused(f"{safe_text(folder)} is not a folder; the version store cannot "
                          "be kept there")
    if path.exists() and not path.is_file():
        raise PathRefused(f"{safe_text(path)} is not a regular file; it cannot be the "
                          "version store")
    return path
