"""Documents for a person to read (a function's report, its versions compared), opened in
the editor with ``window/showDocument``; a message where the client cannot open one.

The files are the server's own, written in the user's cache folder
(``$XDG_CACHE_HOME/codequorum/views``, ``~/.cache/codequorum/views`` by default), never in a
workspace: they hold text of versions nobody reviewed, and a repository must not gain files
because someone read a report. One file per function and kind, rewritten each time (the name
hashes the document URI and the function), bounded in size, and only the newest
:data:`KEEP` are kept.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lsprotocol import types

from codequorum.core.safe_text import safe_text
from codequorum.lsp.rendering import Doc, to_plain

if TYPE_CHECKING:
    from codequorum.lsp.engine import Engine

log = logging.getLogger(__name__)

#: What a view shows: a function's report, or its versions compared.
Kind = Literal["report", "compare"]
#: Most characters of one view.
VIEW_LIMIT = 200_000
#: Views kept in the folder; older ones are deleted when a new one is written.
KEEP = 50


def views_dir() -> Path:
    """The folder of the views (XDG base directory rules; never a workspace)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "codequorum" / "views"


def view_name(uri: str, qualified_name: str, kind: Kind) -> str:
    """``<function>-<kind>-<hash>.txt``: readable, one per function and kind, and only
    letters, digits, ``_``, ``.`` and ``-`` whatever the function is called."""
    stem = re.sub(r"[^A-Za-z0-9_.]+", "_", qualified_name)[:60].strip("._") or "function"
    digest = hashlib.sha256(f"{uri}\n{qualified_name}".encode()).hexdigest()[:12]
    return f"{stem}-{kind}-{digest}.txt"


def write_view(
    text: str, uri: str, qualified_name: str, kind: Kind, folder: Path | None = None
) -> Path:
    """Write one view (at most :data:`VIEW_LIMIT` characters, replaced atomically, readable
    by the user only) and prune the folder; the file's path."""
    folder = folder or views_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if len(text) > VIEW_LIMIT:
        text = text[:VIEW_LIMIT] + f"\n... {len(text) - VIEW_LIMIT} more characters\n"
    path = folder / view_name(uri, qualified_name, kind)
    fd, tmp = tempfile.mkstemp(prefix=".view-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    prune(folder, KEEP, spare=path)
    return path


def prune(folder: Path, keep: int, spare: Path | None = None) -> None:
    """Delete all but the ``keep`` newest views in ``folder`` (files named as this module
    names them); ``spare`` (the view just written) is always kept."""
    views = [p for p in folder.glob("*-*-*.txt")
             if p.is_file() and not p.is_symlink() and p != spare]
    views.sort(key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)
    for old in views[keep - (spare is not None):]:
        old.unlink(missing_ok=True)


def shows_documents(capabilities: types.ClientCapabilities) -> bool:
    """True when the client opens documents the server names (``window.showDocument``)."""
    window = capabilities.window
    return bool(window and window.show_document and window.show_document.support)


#: How a document is opened in the client (``window/showDocument``).
OpenDocument = Callable[[types.ShowDocumentParams], Awaitable[types.ShowDocumentResult]]


@dataclass(frozen=True)
class Screen:
    """What showing a view uses: what the client can do (``capabilities``), the ``worker``
    engine whose thread writes the view, the way to ``open`` it, and ``show`` for the
    message in its place."""

    capabilities: types.ClientCapabilities
    worker: Engine
    open: OpenDocument
    show: Callable[[types.MessageType, str], None]


async def present(
    screen: Screen,
    doc: Doc,
    fallback: Doc,
    uri: str,
    qualified_name: str,
    kind: Kind,
) -> bool:
    """Show ``doc`` as a document when the client opens documents (True when it did), else
    ``fallback`` as a message; a view that cannot be written or opened falls back too."""
    if shows_documents(screen.capabilities):
        try:
            path = await screen.worker.run(write_view, to_plain(doc), uri, qualified_name, kind)
        except OSError as exc:
            log.warning("cannot write a view: %s", exc)
        else:
            params = types.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
            try:
                result = await screen.open(params)
            except Exception as exc:  # the client refused the request: say it as a message
                log.info("window/showDocument failed: %s", safe_text(exc))
            else:
                if result is not None and result.success:
                    return True
    screen.show(types.MessageType.Info, to_plain(fallback))
    return False
