"""The specifier aliases of a workspace's TypeScript or JavaScript configuration.

Real projects import their own files by alias (``import { slug } from '@/lib/text'``):
``compilerOptions.paths`` and ``baseUrl`` of the nearest ``tsconfig.json`` or
``jsconfig.json`` above the importing file say where such a specifier leads, as the
TypeScript compiler and the bundlers read them:

- a pattern without ``*`` matches only itself and comes first; among patterns with one
  ``*`` the one with the longest prefix before it wins; each of its targets is tried in
  order, the ``*`` replaced by what it matched;
- targets are relative to ``baseUrl`` where one is set, else to the configuration that
  sets ``paths``; with ``baseUrl`` and no pattern matching, the specifier is tried under
  it (``import x from 'lib/x'``);
- ``extends`` of a relative file (a string, or a list whose later entries win) is
  followed :data:`MAX_EXTENDS` deep; one of a package is not.

The files are JSON, or JSON with comments and trailing commas (``json5`` reads those, up to
:data:`MAX_COMMENTED_CHARS`). Targets that
lead out of the workspace, or are absolute, are dropped; the files they lead to are read
later under the workspace's one rule like any other of the view. Reads text; runs nothing.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass

import json5

#: The configuration files looked for in each folder, in order.
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
#: How many configurations ``extends`` is followed through (deep or in one list).
MAX_EXTENDS = 4
#: The largest configuration read, in characters.
MAX_CONFIG_CHARS = 256 * 1024
#: The largest one read as JSON with comments (``json5`` is pure Python: 64 KB of a hostile
#: file take it about 1.5 s); plain JSON is read by the standard library up to the above.
MAX_COMMENTED_CHARS = 64 * 1024
#: Read one file of the workspace (a path relative to it) as text, None when absent or
#: refused.
Reader = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Aliases:
    """What one configuration maps: ``paths`` as (pattern, targets relative to the
    workspace) and ``base``, the ``baseUrl`` folder relative to the workspace (None: none
    set)."""

    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    base: str | None = None

    def candidates(self, spec: str) -> list[str]:
        """The workspace paths ``spec`` may lead to, in the order to try them (each then
        located as a module is: suffixes, a folder's index)."""
        out: list[str] = []
        exact = [targets for pattern, targets in self.paths if pattern == spec]
        if exact:
            out += exact[0]
        else:
            match = _best_wildcard(self.paths, spec)
            if match is not None:
                targets, star = match
                out += [t.replace("*", star, 1) for t in targets]
        if self.base is not None:
            out.append(_inside(self.base, spec) or "")
        return [c for c in out if c]


def _best_wildcard(paths: tuple[tuple[str, tuple[str, ...]], ...], spec: str
                   ) -> tuple[tuple[str, ...], str] | None:
    """The targets of the pattern with one ``*`` whose prefix is the longest that matches
    ``spec``, and what its ``*`` matched."""
    best: tuple[int, tuple[str, ...], str] | None = None
    for pattern, targets in paths:
        prefix, star, suffix = pattern.partition("*")
        if not star or "*" in suffix or len(spec) < len(prefix) + len(suffix):
            continue
        if spec.startswith(prefix) and spec.endswith(suffix):
            matched = spec[len(prefix):len(spec) - len(suffix)]
            if best is None or len(prefix) > best[0]:
                best = (len(prefix), targets, matched)
    return None if best is None else (best[1], best[2])


def _inside(folder: str, target: str) -> str | None:
    """``target`` under ``folder``, normalised; None when absolute or out of the workspace."""
    if target.startswith("/") or "\\" in target or ":" in target:
        return None
    joined = posixpath.normpath(posixpath.join(folder, target)) if folder else \
        posixpath.normpath(target)
    if joined == ".." or joined.startswith("../"):
        return None
    return "" if joined == "." else joined


def nearest_aliases(read: Reader, folder: str) -> Aliases | None:
    """The aliases of the nearest configuration at or above ``folder`` (a workspace path,
    ``""`` its root); None when there is none or it maps nothing."""
    here = folder
    while True:
        for name in CONFIG_NAMES:
            rel = posixpath.join(here, name) if here else name
            text = read(rel)
            if text is not None:
                found = _aliases(read, rel, text)
                return found if found.paths or found.base is not None else None
        if not here:
            return None
        here = posixpath.dirname(here)


def _aliases(read: Reader, rel: str, text: str) -> Aliases:
    """The aliases the configuration ``rel`` (``text``) gives, its ``extends`` followed."""
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    paths_from: str | None = None
    base: str | None = None
    for where, options in reversed(_chain(read, rel, text)):  # the file's own last: it wins
        folder = posixpath.dirname(where)
        url = options.get("baseUrl")
        if isinstance(url, str):
            base = _inside(folder, url)
        found = options.get("paths")
        if isinstance(found, dict):
            paths_from, paths = folder, tuple(
                (str(k), tuple(t for t in v if isinstance(t, str)))
                for k, v in found.items() if isinstance(v, list))
    if paths_from is None:
        return Aliases((), base)
    root = base if base is not None else paths_from
    placed = tuple((pattern, tuple(p for t in targets if (p := _inside(root, t)) is not None))
                   for pattern, targets in paths)
    return Aliases(placed, base)


def _chain(read: Reader, rel: str, text: str) -> list[tuple[str, dict[str, object]]]:
    """(path, its ``compilerOptions``) of the configuration and those it extends, the
    file's own first."""
    out: list[tuple[str, dict[str, object]]] = []
    pending: list[tuple[str, str]] = [(rel, text)]
    while pending and len(out) <= MAX_EXTENDS:
        where, body = pending.pop(0)
        data = _parsed(body)
        options = data.get("compilerOptions")
        out.append((where, options if isinstance(options, dict) else {}))
        extends = data.get("extends")
        entries = extends[-MAX_EXTENDS:] if isinstance(extends, list) else [extends]
        for parent in reversed(entries):  # the last win; a list of 20,000 reads 4 at most
            if len(out) + len(pending) > MAX_EXTENDS:
                break
            target = _extended(where, parent)
            parent_text = read(target) if target is not None else None
            if parent_text is not None:
                pending.append((target or "", parent_text))
    return out


def _extended(where: str, parent: object) -> str | None:
    """The workspace path of a relative ``extends`` entry (``.json`` added when missing);
    None for a package's or one out of the workspace."""
    if not isinstance(parent, str) or not parent.startswith(("./", "../")):
        return None
    target = _inside(posixpath.dirname(where), parent)
    if target is None:
        return None
    return target if target.endswith(".json") else target + ".json"


def _parsed(text: str) -> dict[str, object]:
    """The configuration's top object: plain JSON first (most are), else JSON with comments
    and trailing commas; empty when it is too large (:data:`MAX_CONFIG_CHARS`,
    :data:`MAX_COMMENTED_CHARS`), neither, or not an object."""
    if len(text) > MAX_CONFIG_CHARS:
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        if len(text) > MAX_COMMENTED_CHARS:
            return {}
        try:
            data = json5.loads(text)
        except (ValueError, RecursionError, TypeError, IndexError):
            return {}
    return data if isinstance(data, dict) else {}


__all__ = ["CONFIG_NAMES", "MAX_COMMENTED_CHARS", "MAX_CONFIG_CHARS", "Aliases", "nearest_aliases"]
