"""The functions of its own package a JavaScript module's examples call through a
namespace, and which file of the package gives each.

Ramda's and remeda's functions show themselves as ``R.find(R.propEq(2, 'a'))(xs); //=>
{a: 2}``: the example reads another function of the package (``propEq``) through the name
the package is imported as. Such an example runs only where that name holds those
functions: the module's view then holds the file each comes from, found through the
package entry's re-exports (``export { default as propEq } from './propEq.js'``, or
``export * from './propEq'`` of a file named as the function), with what it loads
(``js_module_view.py``), and the example binds the name to an object of them
(``js_inputs.py``). Read with tree-sitter; nothing runs.
"""

from __future__ import annotations

import posixpath
import re

from tree_sitter import Node

from codequorum.core.parsing import node_text, parse
from codequorum.ingest.js_globals import GLOBALS
from codequorum.ingest.version_helpers import declared_names

#: ``NS.name(`` in a comment: a call on a namespace.
NAMESPACE_CALL = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)\s*\(")
#: Where a package's entry is looked for when its ``exports``/``main`` names no file of the
#: workspace (a package built before it is published: ``main`` names ``dist/``), in order.
SOURCE_ENTRIES = ("index", "src/index", "source/index", "lib/index")
#: Functions of the package one module's examples may bring into its view, at most.
MAX_MEMBERS = 16
#: Words a comment calls methods on that name no library.
_NOT_LIBRARIES = frozenset({"this", "super", "self", "window", "document", "it", "test",
                            "describe", "expect", "assert"})


def members_called(text: str, language: str) -> frozenset[str]:
    """The names ``text``'s comments call on a namespace (``propEq`` of ``R.propEq(...)``)
    that is neither one of JavaScript's globals nor a name the module declares at its top
    level: functions of its package, at most :data:`MAX_MEMBERS`."""
    root = parse(text, language).root_node
    declared: set[str] = set()
    for node in root.named_children:
        declared.update(declared_names(node, language))
    skip = declared | GLOBALS | _NOT_LIBRARIES
    found: dict[str, None] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            for m in NAMESPACE_CALL.finditer(node_text(node)):
                if m.group(1) not in skip:
                    found[m.group(2)] = None
        else:
            stack.extend(reversed(node.children))
    return frozenset(list(found)[:MAX_MEMBERS])


def _source(node: Node) -> str | None:
    source = node.child_by_field_name("source")
    inner = [c for c in source.named_children if c.type == "string_fragment"] \
        if source is not None and source.type == "string" else []
    return node_text(inner[0]) if len(inner) == 1 else None


def reexported(text: str, language: str) -> dict[str, str]:
    """What a package's entry re-exports, by name -> the specifier it comes from:
    ``export { a, default as b } from './x'`` gives ``a`` and ``b``; ``export * from
    './map'`` gives ``map`` (a file named as its function, as remeda's are)."""
    out: dict[str, str] = {}
    for node in parse(text, language).root_node.named_children:
        spec = _source(node) if node.type == "export_statement" else None
        if spec is None:
            continue
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        if clause is None:
            stem = posixpath.splitext(posixpath.basename(spec))[0]
            out.setdefault(stem, spec)
            continue
        for item in clause.named_children:
            alias = item.child_by_field_name("alias") or item.child_by_field_name("name")
            if item.type == "export_specifier" and alias is not None:
                out.setdefault(node_text(alias), spec)
    return out


__all__ = ["MAX_MEMBERS", "NAMESPACE_CALL", "SOURCE_ENTRIES", "members_called", "reexported"]
