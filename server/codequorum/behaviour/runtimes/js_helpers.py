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

from codequorum.core.parsing import function_by_name, namespace_body, parse
from codequorum.ingest.version_helpers import declared_names


def reconciled(source: str, version: str, language: str, name: str) -> tuple[str, str]:
    """(``source``, ``version``) with every name both declare at top level declared once;
    ``name`` is the function's own (never touched). For a function of a TypeScript
    namespace (``Text.slugify``) the module's names are those of the namespace's body,
    where the version goes."""
    block, space = _block(source, language, name)
    short = name.removeprefix(f"{space}." if space else "").partition(".")[0]
    module = _declarations(block, language, short)
    own = _declarations(parse(version, language).root_node, language, short)
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
def _block(source: str, language: str, name: str) -> tuple[Node, str]:
    """The node whose statements are around the function ``name`` (the module's, or its
    namespace's body) and that namespace (empty for the module's top level)."""
    root = parse(source, language).root_node
    found = function_by_name(source, language, name) if "." in name else None
    if found is None or found.qualified_name != name:
        return root, ""
    body = namespace_body(root, found)
    return (body, found.namespace) if body is not None else (root, "")


def _declarations(block: Node, language: str, short: str) -> list[tuple[Node, list[str]]]:
    """The statements of ``block`` and the names each binds, without the one that defines
    ``short`` (the function's first name: a method's class too, its owner is not a
    helper)."""
    out = []
    for node in block.named_children:
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
