"""The literals JavaScript and TypeScript versions compare a parameter with (read from the
tree-sitter tree; nothing runs): ``p === "admin"``, ``p == 3``, ``switch (p) { case 404: }``,
``["GET", "HEAD"].includes(p)``, and for a bound (``n > 100``) the values either side of
it, by the parameter's position; those only some versions compare with first
(:func:`~codequorum.behaviour.usage_literals.fewer_first`); and the separators they split a
text on (``s.split(",")``). The JavaScript side of :mod:`~codequorum.behaviour.usage_literals`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, node_text
from codequorum.behaviour.runtimes.js_usage import named_function, parameter_nodes
from codequorum.behaviour.usage_literals import MAX_LITERAL_CHARS, fewer_first
from codequorum.core.parsing import named_nodes

EQUALS = {"===", "==", "!==", "!="}
#: The methods whose first argument is a separator a text is split on or whose place in it
#: is looked for.
SPLITTING = frozenset({"split", "indexOf", "lastIndexOf"})
BOUNDS = {"<", "<=", ">", ">="}


def compared_literals(texts: Sequence[str], entry: str) -> dict[int, list[Any]]:
    """Each parameter's compared values, by its position, over the functions named
    ``entry`` in ``texts`` (a parameter none compares is left out)."""
    per_param: dict[int, list[list[Any]]] = {}
    versions = 0
    for text in texts:
        found = named_function(text, entry)
        if found is None or found[1] is None:
            continue
        versions += 1
        params = {node_text(p.child_by_field_name("pattern") or p): k
                  for k, p in enumerate(parameter_nodes(found[1]))}
        seen: dict[int, list[Any]] = {}
        for at, value in _compared(found[1].parent or found[1], params):
            seen.setdefault(at, []).append(value)
        for at, values in seen.items():
            per_param.setdefault(at, []).append(values)
    # a version comparing a parameter with nothing holds none of its values
    return {at: fewer_first([*lists, *([[]] * (versions - len(lists)))])
            for at, lists in per_param.items()}


def split_separators(texts: Sequence[str], entry: str) -> list[str]:
    """The string literals the functions named ``entry`` in ``texts`` split a text on or
    look for the place of (``query.split("&")``, ``pair.indexOf("=")``), in reading order,
    each once: the JavaScript side of
    :func:`~codequorum.behaviour.usage_literals.split_separators`."""
    out: list[str] = []
    for text in texts:
        found = named_function(text, entry)
        if found is None or found[1] is None:
            continue
        for node in named_nodes(found[1].parent or found[1]):
            if node.type != "call_expression":
                continue
            func, args = node.child_by_field_name("function"), node.child_by_field_name(
                "arguments")
            prop = func.child_by_field_name("property") if func is not None and \
                func.type == "member_expression" else None
            first = args.named_children[0] if args is not None and args.named_children \
                else None
            if prop is None or node_text(prop) not in SPLITTING or first is None \
                    or first.type not in ("string", "template_string"):
                continue
            try:
                value = literal(first)
            except (NotLiteral, ValueError):
                continue
            if isinstance(value, str) and value not in out:
                out.append(value)
    return out


def _compared(fn: Node, params: Mapping[str, int]) -> Iterator[tuple[int, Any]]:
    for node in named_nodes(fn):
        if node.type == "binary_expression":
            yield from _binary(node, params)
        elif node.type == "switch_statement":
            value = node.child_by_field_name("value")
            subject = _unparenthesized(value) if value is not None else None
            body = node.child_by_field_name("body")
            if subject is None or body is None or node_text(subject) not in params:
                continue
            for case in body.named_children:
                tested = case.child_by_field_name("value") if case.type == "switch_case" \
                    else None
                for v in _plain(tested):
                    yield params[node_text(subject)], v
        elif node.type == "call_expression":
            yield from _includes(node, params)


def _binary(node: Node, params: Mapping[str, int]) -> Iterator[tuple[int, Any]]:
    op_node = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op_node is None or left is None or right is None:
        return
    op = node_text(op_node)
    for mine, other in ((left, right), (right, left)):
        if mine.type != "identifier" or node_text(mine) not in params:
            continue
        at = params[node_text(mine)]
        for v in _plain(other):
            if op in EQUALS:
                yield at, v
            elif op in BOUNDS and isinstance(v, int):
                yield from ((at, v - 1), (at, v), (at, v + 1))
            elif op in BOUNDS and isinstance(v, float):
                yield at, v


def _includes(node: Node, params: Mapping[str, int]) -> Iterator[tuple[int, Any]]:
    """``["GET", "HEAD"].includes(p)``: each item of the array."""
    func, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if func is None or args is None or func.type != "member_expression":
        return
    holder, prop = func.child_by_field_name("object"), func.child_by_field_name("property")
    first = args.named_children[0] if args.named_children else None
    if holder is None or prop is None or first is None or holder.type != "array" \
            or node_text(prop) != "includes" or node_text(first) not in params:
        return
    for item in holder.named_children:
        for v in _plain(item):
            yield params[node_text(first)], v


def _unparenthesized(node: Node) -> Node | None:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def _plain(node: Node | None) -> Iterator[Any]:
    """A string, number or BigInt literal (``-3``, ``0n`` too), not a boolean; a string
    past :data:`MAX_LITERAL_CHARS` is left out."""
    if node is None or node.type not in ("string", "number", "unary_expression"):
        return
    try:
        value = literal(node)
    except (NotLiteral, ValueError):
        return
    if isinstance(value, bool):
        return
    if isinstance(value, dict) and value.get("$") == "bigint":
        yield value  # ``n === 0n``: a version telling 0n apart is tried on it
        return
    if isinstance(value, (int, float)) or (isinstance(value, str)
                                           and len(value) <= MAX_LITERAL_CHARS):
        yield value


__all__ = ["compared_literals", "split_separators"]
