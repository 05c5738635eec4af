"""The workspace's source files that name a function: where its callers and tests are.

A function's inputs include its callers' literal calls
(:mod:`codequorum.behaviour.callers`), and the callers are seldom all in its module's view
(the modules it imports): a test file imports the module, not the other way round. This
reads the rest of the workspace for them, statically (nothing runs or compiles), bounded:

- at most :data:`MAX_WALKED` entries of the workspace looked at (:data:`MAX_FOLDER_ENTRIES`
  in one folder, folders breadth first), at most :data:`MAX_LISTED` files of the function's
  language listed (``.py``; for JavaScript and TypeScript :data:`JS_SUFFIXES`), and at most
  :data:`MAX_READ_BYTES` bytes read in all, each a regular UTF-8 file of at most
  :data:`MAX_FILE_BYTES`;
- never under a hidden folder or a secret-looking name, nor outside the workspace, nor
  where a link leads to such a place (:func:`~codequorum.core.safe_paths.read_workspace_file`,
  the one rule of the module view and the agents' tools); folders of installed packages
  and caches (:data:`SKIPPED_FOLDERS`) are not walked, and links to folders not followed;
- at most :data:`MAX_CALLER_FILES` files kept, those whose text names the function.

The texts read are kept per workspace and read again only when a file's size or
modification time changes, so the many functions of one module cost one walk.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from codequorum.core.safe_paths import RefusedFile, read_workspace_file, workspace_refusal

#: Python files listed in the workspace, at most.
MAX_LISTED = 2000
#: Entries (files and folders of any name) looked at by one walk, at most, and in one
#: folder: a folder of a million data files is not listed whole.
MAX_WALKED = 50_000
MAX_FOLDER_ENTRIES = 5_000
#: Bytes read in all, at most (texts already read and unchanged are not read again).
MAX_READ_BYTES = 16 * 1024 * 1024
#: Bytes of one file, at most.
MAX_FILE_BYTES = 400_000
#: Files that name the function kept, at most.
MAX_CALLER_FILES = 24
#: Folders never walked: installed packages, caches, builds.
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "env",
                             "build", "dist"})


@dataclass(frozen=True)
class _Read:
    """One file's text as read, and the size and time it had."""

    size: int
    mtime_ns: int
    text: str | None


#: The suffixes of JavaScript and TypeScript files whose calls give inputs.
JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
PY_SUFFIXES = (".py",)

_CACHE: dict[tuple[str, tuple[str, ...]], dict[str, _Read]] = {}
_LOCK = threading.Lock()


def source_files(root: Path, limit: int = MAX_LISTED, suffixes: tuple[str, ...] = PY_SUFFIXES
                 ) -> list[tuple[PurePosixPath, os.stat_result]]:
    """The files of the workspace ``root`` ending in ``suffixes`` (Python's by default;
    relative paths and their ``stat``), at most ``limit``, nothing hidden, secret-looking
    or skipped; folders breadth first (the shallow ones, where tests and callers live,
    before deep ones), at most :data:`MAX_WALKED` entries looked at in all and
    :data:`MAX_FOLDER_ENTRIES` in one folder, so a workspace of millions of other files
    costs a bounded walk."""
    out: list[tuple[PurePosixPath, os.stat_result]] = []
    budget = MAX_WALKED
    folders: deque[PurePosixPath] = deque([PurePosixPath()])
    while folders and budget > 0:
        rel_folder = folders.popleft()
        entries = _listing(root.joinpath(*rel_folder.parts), min(budget, MAX_FOLDER_ENTRIES))
        budget -= len(entries)
        for name, is_folder in entries:
            rel = rel_folder / name
            if workspace_refusal(rel) is not None:
                continue
            if is_folder:
                if name not in SKIPPED_FOLDERS:
                    folders.append(rel)
                continue
            if not name.endswith(suffixes):
                continue
            try:
                st = os.lstat(root.joinpath(*rel.parts))
            except OSError:
                continue
            out.append((rel, st))
            if len(out) >= limit:
                return out
    return out


def _listing(folder: Path, most: int) -> list[tuple[str, bool]]:
    """At most ``most`` entries of ``folder`` (name, whether a folder: a link to one is
    not), sorted by name; none when it cannot be listed."""
    entries: list[tuple[str, bool]] = []
    try:
        with os.scandir(folder) as listing:
            for entry in itertools.islice(listing, most):
                try:
                    entries.append((entry.name, entry.is_dir(follow_symlinks=False)))
                except OSError:
                    continue
    except OSError:
        return []
    return sorted(entries)


def _text(root: Path, rel: PurePosixPath) -> str | None:
    """The file's text under the workspace's one rule, or None."""
    try:
        _real, data = read_workspace_file(root, root.joinpath(*rel.parts), MAX_FILE_BYTES)
        return data.decode("utf-8")
    except (RefusedFile, OSError, UnicodeDecodeError):
        return None


def caller_files(workspace: Path | None, name: str, exclude: frozenset[str] = frozenset(),
                 suffixes: tuple[str, ...] = PY_SUFFIXES) -> tuple[tuple[str, str], ...]:
    """The workspace's files ending in ``suffixes`` (POSIX path relative to it, text) whose
    text names ``name``, ``exclude`` (paths already in the module's view) left out, at most
    :data:`MAX_CALLER_FILES`; none without a workspace."""
    if workspace is None or not name:
        return ()
    try:
        root = workspace.resolve(strict=True)
    except (OSError, RuntimeError):
        return ()
    with _LOCK:
        known = _CACHE.setdefault((str(root), suffixes), {})
        fresh: dict[str, _Read] = {}
        budget = MAX_READ_BYTES
        found: list[tuple[str, str]] = []
        for rel, st in source_files(root, MAX_LISTED, suffixes):
            key = rel.as_posix()
            if st.st_size > MAX_FILE_BYTES:
                continue
            seen = known.get(key)
            if seen is None or (seen.size, seen.mtime_ns) != (st.st_size, st.st_mtime_ns):
                if st.st_size > budget:
                    continue
                budget -= st.st_size
                seen = _Read(st.st_size, st.st_mtime_ns, _text(root, rel))
            fresh[key] = seen
            if (seen.text is not None and key not in exclude and name in seen.text
                    and len(found) < MAX_CALLER_FILES):
                found.append((key, seen.text))
        _CACHE[(str(root), suffixes)] = fresh
    return tuple(found)


__all__ = ["JS_SUFFIXES", "MAX_CALLER_FILES", "caller_files", "source_files"]
