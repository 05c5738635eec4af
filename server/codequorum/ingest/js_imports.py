"""A package's ``#imports`` subpath mappings, read as Node reads them (``PACKAGE_IMPORTS_RESOLVE``).

``import x from '#internal/x.js'`` in a package whose ``package.json`` says
``"imports": {"#internal/*": {"node": "./src/internal/*", "default": "./lib/*"}}`` loads
``./src/internal/x.js``: an exact key first, else the ``*`` pattern with the longest
prefix (then the longest key), its ``*`` replaced in the target; a target is a path
``./...`` inside the package, the name of a package (a dependency), an array tried in
order or conditions tried in their written order (those of :data:`CONDITIONS`), nested.
A target that leads out of its package (``../``, ``/``, a URL, a ``.``, ``..``, empty or
``node_modules`` segment, in the target or in what ``*`` matched) is refused, as Node
refuses it. Pure functions over the parsed ``imports`` field; the sandbox's loader
(``node_harness/modules.js``) reads them the same way.
"""

from __future__ import annotations

import re

#: The conditions a package's ``exports`` and ``imports`` are read under (the sandbox makes
#: every module CommonJS, so ``require`` and ``import`` both hold): for ``exports`` in this
#: order of preference, for ``imports`` in the order the mapping writes them, as Node does
#: (the sandbox's loader knows them so too: ``node_harness/modules.js``).
CONDITIONS = ("require", "node", "default", "import")
#: How deep conditions and arrays may nest before the mapping is not read.
MAX_NESTING = 8
_BAD_SEGMENT = re.compile(r"(?:^|/)(?:|\.|\.\.|node_modules)(?:/|$)", re.IGNORECASE)
_ENCODED = re.compile(r"%2e|%2f|%5c", re.IGNORECASE)


class NoMapping(ValueError):
    """A ``#`` specifier the package's ``imports`` do not map to a file (why: the message)."""


def imports_target(imports: object, spec: str) -> str:
    """The target ``spec`` maps to: ``./path`` inside the package or a package's name;
    :class:`NoMapping` saying why when none does or the one that does is refused."""
    if spec == "#" or spec.startswith("#/"):
        raise NoMapping("not a valid `#` specifier")
    if not isinstance(imports, dict):
        raise NoMapping("its package.json has no `imports`")
    if spec in imports and "*" not in spec:
        return _resolved(imports[spec], None)
    for key in sorted((k for k in imports if k.count("*") == 1),
                      key=lambda k: (-k.index("*"), -len(k))):
        base, trailer = key.split("*")
        if spec.startswith(base) and spec != base and (
                not trailer or (spec.endswith(trailer) and len(spec) >= len(key))):
            return _resolved(imports[key], spec[len(base):len(spec) - len(trailer)])
    raise NoMapping("no `imports` mapping of its package.json matches it")


def _resolved(target: object, match: str | None) -> str:
    found = _target(target, match, 0)
    if found is None:
        raise NoMapping("its `imports` mapping gives no target under the conditions "
                        + ", ".join(sorted(CONDITIONS)))
    return found


def _target(target: object, match: str | None, depth: int) -> str | None:
    """One target read (None: none under these conditions); NoMapping when refused."""
    if depth > MAX_NESTING:
        raise NoMapping("its `imports` mapping nests too deeply")
    if isinstance(target, str):
        return _path(target, match)
    if isinstance(target, list):
        refused: NoMapping | None = None
        for item in target:
            try:
                found = _target(item, match, depth + 1)
            except NoMapping as exc:
                refused = exc
                continue
            if found is not None:
                return found
        if refused is not None:
            raise refused
        return None
    if isinstance(target, dict):
        for key, value in target.items():
            if key in CONDITIONS:
                found = _target(value, match, depth + 1)
                if found is not None:
                    return found
        return None
    return None


def _path(target: str, match: str | None) -> str:
    """A string target, ``*`` replaced: ``./`` inside the package or a package's name."""
    if match is not None and (_BAD_SEGMENT.search(match) or "\\" in match
                              or _ENCODED.search(match)):
        raise NoMapping("what `*` matched leads out of its package")
    bare = not target.startswith("./")
    rest = target if bare else target[2:]
    if (bare and (target.startswith(("#", ".", "/")) or ":" in target)) or (
            _BAD_SEGMENT.search(rest) or "\\" in rest or _ENCODED.search(rest)):
        raise NoMapping(f"its `imports` mapping `{target[:200]}` leads out of its package")
    return target if match is None else target.replace("*", match)


__all__ = ["CONDITIONS", "NoMapping", "imports_target"]
