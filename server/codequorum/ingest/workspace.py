"""Workspaces and file keys: how the version store names a file.

The language server, ``codequorum sample`` and ``codequorum check`` all key stored
versions through these functions, so a version stored by one is found by the others.
"""

from __future__ import annotations

from pathlib import Path

from codequorum.core.file_uris import uri_path
from codequorum.core.safe_paths import marked_root, real_path
from codequorum.ingest.store import default_store_path


def marked_workspace(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` (a file's folder, or a folder itself)
    holding ``.codequorum`` or ``.git``, symlinks resolved; None when there is none."""
    resolved = real_path(path)
    return marked_root(resolved if resolved.is_dir() else resolved.parent)


def find_workspace(path: Path) -> Path:
    """The nearest folder at or above ``path`` (a file's folder, or a folder itself)
    holding ``.codequorum`` or ``.git``; else the current folder when ``path`` is inside
    it; else the file's own folder."""
    found = marked_workspace(path)
    if found is not None:
        return found
    resolved = real_path(path)
    start = resolved if resolved.is_dir() else resolved.parent
    cwd = real_path(Path.cwd())
    return cwd if start.is_relative_to(cwd) else start


def store_key(path: Path, workspace: Path) -> str:
    """How the store names a file: its path relative to the workspace with ``/``, else
    its ``file:`` URI."""
    resolved = real_path(path)
    try:
        return resolved.relative_to(real_path(workspace)).as_posix()
    except ValueError:
        return resolved.as_uri()


def file_key_for(uri: str, root: str | None) -> str:
    """:func:`store_key` of a document URI; other URIs (and any URI without a workspace
    root) are their own key."""
    if root and uri.startswith("file:"):
        path = uri_path(uri)
        if path is not None:
            return store_key(path, Path(root))
    return uri


def store_path(configured: str, root: str | Path | None) -> Path:
    """The store file: ``configured`` (relative to the workspace), else the default one
    under the workspace (the current folder when there is none)."""
    base = Path(root) if root else Path.cwd()
    text = configured.strip()
    if text:
        p = Path(text).expanduser()
        return p if p.is_absolute() else base / p
    return default_store_path(base)
