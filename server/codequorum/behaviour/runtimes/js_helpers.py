"""A version's helpers in its module: each name declared once.

A version keeps the helpers its answer defined beside the function
(:mod:`codequorum.ingest.version_helpers`), and a model that saw the module often repeats
its constants and functions. JavaScript refuses a second ``const`` of a name, so before
the version is put in its module's place each name both declare is declared once: the
version's wins (as a Python version's helpers replace the module's), by taking the
module's declaration out, unless the module exports it or declares other names with it;
then the module's stays and the version's is left out. An import of a name the module
binds already is left out of the version. Lines are kept where they are.
"""

from __future__ import annotations

from tree_sitter import Node

from codequorum.core.parsing import parse
from codequorum.ingest.version_helpers import declared_names


def reconciled(source: str, version: str, language: str, name: str) -> tuple[str, str]:
    """(``source``, ``version``) with every name both declare at top level declared once;
    ``name`` is the function's own (never touched)."""
    module = _declarations(source, language, name)
    own = _declarations(version, language, name)
    if not module or not own:
        return source, version
    theirs: set[str] = {n for _, names in own for n in names}
    mine: set[str] = {n for _, names in module for n in names}
    taken_out = [node for node, names in module
                 if names and set(names) <= theirs and node.type not in _KEPT]
    out = {node.start_byte for node in taken_out}
    kept_names = {n for node, names in module if node.start_byte not in out for n in names}
    left_out = [node for node, names in own
                if names and set(names) & mine and set(names) <= kept_names]
    return _blanked(source, taken_out), _blanked(version, left_out)


#: Module statements never taken out (another file may import what they export; an
#: import the version's helper may not replace).
_KEPT = frozenset({"export_statement", "import_statement"})


def _declarations(code: str, language: str, name: str) -> list[tuple[Node, list[str]]]:
    """The top-level statements of ``code`` and the names each binds, without the one
    that defines ``name`` (a method's class too: its owner is not a helper)."""
    short = name.partition(".")[0]
    out = []
    for node in parse(code, language).root_node.named_children:
        names = declared_names(node, language)
        if short not in names:
            out.append((node, names))
    return out


def _blanked(code: str, nodes: list[Node]) -> str:
    """``code`` with ``nodes`` replaced by their line breaks."""
    if not nodes:
        return code
    data = code.encode("utf-8")
    out = bytearray()
    at = 0
    for node in sorted(nodes, key=lambda n: n.start_byte):
        out += data[at:node.start_byte] + b"\n" * data[node.start_byte:node.end_byte].count(b"\n")
        at = node.end_byte
    return (out + data[at:]).decode("utf-8", "replace")


__all__ = ["reconciled"]
