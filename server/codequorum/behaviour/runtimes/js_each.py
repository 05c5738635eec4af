"""The cases of a table-driven JavaScript test, read with tree-sitter (nothing runs).

``test.each([[1, 1, 2], [2, 3, 5]])('add(%i, %i)', (a, b, want) => { expect(add(a,
b)).toBe(want); })`` makes one call per row: each row binds the callback's parameters to
its literal values, and a call in the callback (and what its assertion says it gives) is
read with those bindings (``js_literals.literal(node, bound)``). So do a loop over a table,
``for (const [a, want] of CASES) ...``, ``CASES.forEach(([a, want]) => ...)``, and a loop
over an object's keys, ``for (const input in tests) expect(f(input)).toBe(tests[input])``.

Read: Jest's and Vitest's ``test.each``, ``it.each``, ``describe.each`` (``.only``/``.skip``
before ``each`` too: ``.skip`` is left out, it does not hold), ``for``-``of`` and
``forEach``, over an array written there or named by a ``const CASES = [...]`` of the file, and a
helper of the test file called with literals (``function check(input, want) { expect(
f(input)).toBe(want); }`` then ``check('a b', 'a-b')``: each call a row)
(at its top level or inside a ``describe``: the declaration nearest around the test), and
``for``-``in`` over an object so named: each key binds the loop's name, and the object's
name binds the object (``tests[input]``, ``t.output``: what a row holds is read there).
A row that is an array binds the parameters in order (a ``[a, b]`` pattern's names); one
that is an object binds a destructured ``{a, b, want}`` by key; a value that is neither
binds a lone parameter, and a lone name of a loop or ``forEach`` takes the whole row.
Jest's tagged-template table (a header ``a | b | want``, then rows of ``${1} | ${2} |
${3}``) binds a destructured ``{a, b, want}`` by the header's names. A value that is not a
literal leaves its name unbound in that row (a call using it is then not read). At most
:data:`MAX_CASES` rows a table.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_expectations import Key, key
from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, node_text

#: Rows of one table read, at most.
MAX_CASES = 64
#: What a table-driven test is called on.
_RUNNERS = frozenset({"test", "it", "describe"})
#: The nodes a test's callback is.
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})

Case = dict[str, Any]
#: The file's named values: ``const CASES = [...]`` by name, each with the block it is
#: declared in (a ``describe``'s callback, the file).
Tables = dict[str, list[tuple[Node, Node | None]]]


def _table(node: Node | None, tables: Tables, kind: str = "array") -> Node | None:
    """An array (``kind``: or an object) written there, or the one the declaration of that
    name nearest around it holds."""
    if node is not None and node.type == "identifier":
        node = _declared(node, tables)
    while node is not None and node.type in _TYPED and node.named_children:
        node = node.named_children[0]  # ``[...] as const``, ``{...} satisfies Cases``
    return node if node is not None and node.type == kind else None


#: TypeScript's wrappers of a value that say only its type.
_TYPED = frozenset({"as_expression", "satisfies_expression", "non_null_expression",
                    "parenthesized_expression"})


def _declared(name: Node, tables: Tables) -> Node | None:
    """The value the name ``name`` is declared with in the innermost block around it that
    declares it; None when that block declares it twice, or none does."""
    around = [(scope, value) for scope, value in tables.get(node_text(name), ())
              if scope.start_byte <= name.start_byte < scope.end_byte]
    if not around:
        return None
    inner = max(scope.start_byte for scope, _ in around)
    found = [value for scope, value in around if scope.start_byte == inner]
    return found[0] if len(found) == 1 else None


def module_tables(root: Node) -> Tables:
    """The file's ``const NAME = ...`` (``let``, ``var``) anywhere, with the block each is
    declared in: the tables a test may name (``const tests = [...]`` in each of two
    ``describe`` blocks are two tables, each read where it is in scope)."""
    out: Tables = {}
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "variable_declarator" or node.parent is None:
            continue
        name = node.child_by_field_name("name")
        scope = node.parent.parent
        if name is not None and name.type == "identifier" and scope is not None:
            out.setdefault(node_text(name), []).append(
                (scope, node.child_by_field_name("value")))
    return out


def _each_table(callee: Node, tables: Tables) -> Node | None:
    """For ``test.each(TABLE)`` (``it.only.each``...), ``TABLE``'s array."""
    if callee.type != "call_expression":
        return None
    fn = callee.child_by_field_name("function")
    if fn is None or fn.type != "member_expression":
        return None
    prop = fn.child_by_field_name("property")
    if prop is None or node_text(prop) != "each":
        return None
    names = []
    obj = fn.child_by_field_name("object")
    while obj is not None and obj.type == "member_expression":
        word = obj.child_by_field_name("property")
        names.append(node_text(word) if word is not None else "")
        obj = obj.child_by_field_name("object")
    if obj is None or node_text(obj) not in _RUNNERS or "skip" in names:
        return None
    args = callee.child_by_field_name("arguments")
    if args is not None and args.type == "template_string":
        return args  # the tagged-template table: read by _template_rows
    return _table(args.named_children[0] if args is not None and args.named_children else None,
                  tables)


def _template_rows(template: Node, names: list[str]) -> list[Case]:
    """Jest's table ``a | b | want`` then a row of ``${1} | ${2} | ${3}`` a line: each row
    binds the header's names (those the callback destructures) to its literal values."""
    header = "".join(node_text(c) for c in template.named_children
                     if c.type == "string_fragment"
                     and c.start_byte < _first_substitution(template)).strip()
    columns = [h.strip() for h in header.split("|")]
    values = [c.named_children[0] if c.named_children else None
              for c in template.named_children if c.type == "template_substitution"]
    if not columns or not all(columns) or len(values) % len(columns):
        return []
    cases: list[Case] = []
    for start in range(0, min(len(values), MAX_CASES * len(columns)), len(columns)):
        case: Case = {}
        for column, node in zip(columns, values[start:start + len(columns)], strict=True):
            if column in names and node is not None:
                try:
                    case[column] = literal(node)
                except (NotLiteral, ValueError, RecursionError):
                    continue
        cases.append(case)
    return cases


def _first_substitution(template: Node) -> int:
    return next((c.start_byte for c in template.named_children
                 if c.type == "template_substitution"), template.end_byte)


def _parameters(fn: Node) -> tuple[list[str], str] | None:
    """How a ``test.each`` callback takes a row: its parameter names, and ``spread`` (a
    row's items one to each parameter, a row that is no array to the only one) or ``keys``
    (one destructured object)."""
    params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if params is None:
        return None
    if params.type == "identifier":
        return [node_text(params)], "spread"
    found = [p.child_by_field_name("pattern") or p for p in params.named_children
             if p.type != "comment"]
    if len(found) == 1 and found[0].type == "object_pattern":
        return _pattern(found[0])
    if all(p.type == "identifier" for p in found):
        return [node_text(p) for p in found], "spread"
    return None


def _pattern(node: Node) -> tuple[list[str], str] | None:
    """How one binding takes a whole row: ``[a, b]`` its items (``spread``), ``{a, b}`` its
    keys (``keys``), a name all of it (``whole``)."""
    if node.type == "identifier":
        return [node_text(node)], "whole"
    if node.type == "object_pattern":
        return [node_text(c) for c in node.named_children
                if c.type == "shorthand_property_identifier_pattern"], "keys"
    if node.type == "array_pattern" and all(c.type == "identifier"
                                            for c in node.named_children):
        return [node_text(c) for c in node.named_children], "spread"
    return None


def _row(entry: Node, names: list[str], mode: str) -> Case:
    """What one row binds (its literal values only)."""
    if mode == "keys" and entry.type == "object":
        pairs = {}
        for pair in entry.named_children:
            k, v = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if pair.type == "pair" and k is not None and v is not None:
                pairs[node_text(k).strip("'\"")] = v
        items = [(n, pairs[n]) for n in names if n in pairs]
    elif mode == "spread" and entry.type == "array":
        items = list(zip(names, [e for e in entry.named_children if e.type != "comment"],
                         strict=False))
    elif len(names) == 1 and mode != "keys":
        items = [(names[0], entry)]
    else:
        items = []
    case: Case = {}
    for name, node in items:
        try:
            case[name] = literal(node)
        except (NotLiteral, ValueError, RecursionError):
            continue
    return case


def _rows(table: Node, names: list[str], mode: str) -> list[Case]:
    entries = [e for e in table.named_children if e.type != "comment"][:MAX_CASES]
    return [_row(e, names, mode) for e in entries]


def _each_cases(invocation: Node, tables: Tables) -> tuple[Node, list[Case]] | None:
    """``test.each(TABLE)(title, callback)``: the callback and the rows' bindings."""
    callee = invocation.child_by_field_name("function")
    table = _each_table(callee, tables) if callee is not None else None
    args = invocation.child_by_field_name("arguments")
    if table is None or args is None:
        return None
    callback = next((a for a in args.named_children if a.type in _FUNCTIONS), None)
    found = _parameters(callback) if callback is not None else None
    if callback is None or found is None:
        return None
    if table.type == "template_string":
        return (callback, _template_rows(table, found[0])) if found[1] == "keys" else None
    return callback, _rows(table, *found)


def _for_each_cases(call: Node, tables: Tables) -> tuple[Node, list[Case]] | None:
    """``TABLE.forEach(([x, want]) => ...)``: the callback and the rows' bindings."""
    fn = call.child_by_field_name("function")
    prop = fn.child_by_field_name("property") if fn is not None and \
        fn.type == "member_expression" else None
    if fn is None or prop is None or node_text(prop) != "forEach":
        return None
    table = _table(fn.child_by_field_name("object"), tables)
    args = call.child_by_field_name("arguments")
    callback = args.named_children[0] if args is not None and args.named_children else None
    if table is None or callback is None or callback.type not in _FUNCTIONS:
        return None
    params = callback.child_by_field_name("parameters") or callback.child_by_field_name(
        "parameter")
    first = None if params is None else (params if params.type == "identifier" else next(
        (p.child_by_field_name("pattern") or p for p in params.named_children
         if p.type != "comment"), None))
    found = _pattern(first) if first is not None else None
    return None if found is None else (callback, _rows(table, *found))


def _for_of_cases(loop: Node, tables: Tables) -> tuple[Node, list[Case]] | None:
    """``for (const [x, want] of TABLE) ...``: the loop's body and the rows' bindings;
    ``for (const key in OBJECT) ...``: each key, with the object by its name."""
    operator = loop.child_by_field_name("operator")
    left, body = loop.child_by_field_name("left"), loop.child_by_field_name("body")
    right = loop.child_by_field_name("right")
    if operator is None or left is None or body is None or right is None:
        return None
    if node_text(operator) == "in":
        return _for_in_cases(left, right, body, tables)
    table = _table(right, tables)
    if node_text(operator) != "of" or table is None:
        return None
    found = _pattern(left)
    return None if found is None else (body, _rows(table, *found))


def _for_in_cases(left: Node, right: Node, body: Node,
                  tables: Tables) -> tuple[Node, list[Case]] | None:
    """``for (const input in tests)`` over an object table: a row per key (its text),
    the object bound by its name so that ``tests[input]`` reads the key's value."""
    table = _table(right, tables, "object")
    if table is None or left.type != "identifier" or right.type != "identifier":
        return None
    try:
        whole = literal(table)
    except (NotLiteral, ValueError, RecursionError):
        return None
    keys = [k for k, _v in whole["v"]][:MAX_CASES]
    return body, [{node_text(left): k, node_text(right): whole} for k in keys]


def test_helpers(root: Node) -> dict[str, Node]:
    """The test file's own functions, by name: ``function check(input, want) {...}``,
    ``const check = (input, want) => ...`` (at any depth; the last of a name wins)."""
    out: dict[str, Node] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        name, fn = None, None
        if node.type == "function_declaration":
            name, fn = node.child_by_field_name("name"), node
        elif node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in _FUNCTIONS:
                name, fn = node.child_by_field_name("name"), value
        if name is not None and fn is not None and name.type == "identifier":
            out[node_text(name)] = fn
    return out


def _helper_cases(root: Node, plain: set[Key] | None) -> list[tuple[Node, list[Case]]]:
    """A helper of the test file called with literal arguments (``check('a b', 'a-b')``;
    with ``plain``, only the calls made in a plain state): its body, and per call its
    parameters bound to the call's values (a parameter given no literal stays unbound in
    that row); at most :data:`MAX_CASES` calls a helper."""
    helpers = test_helpers(root)
    if not helpers:
        return []
    rows: dict[str, list[Case]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        callee = node.child_by_field_name("function") if node.type == "call_expression" \
            else None
        name = node_text(callee) if callee is not None and callee.type == "identifier" else ""
        args = node.child_by_field_name("arguments")
        if name not in helpers or args is None or len(rows.get(name, ())) >= MAX_CASES \
                or (plain is not None and key(node) not in plain):
            continue
        found = _parameters(helpers[name])
        if found is None or found[1] != "spread":
            continue
        values = [a for a in args.named_children if a.type != "comment"]
        case: Case = {}
        for param, value in zip(found[0], values, strict=False):
            try:
                case[param] = literal(value)
            except (NotLiteral, ValueError, RecursionError):
                continue
        rows.setdefault(name, []).append(case)
    out = []
    for name, cases in rows.items():
        body = helpers[name].child_by_field_name("body")
        if body is not None:
            out.append((body, cases))
    return out


def case_bindings(root: Node, plain: set[Key] | None = None) -> dict[Key, list[Case]]:
    """``js_expectations.key`` of each call inside a table-driven test's callback, a
    ``forEach`` over a table or a ``for``-``of`` loop's body -> the rows it runs with (the
    innermost table's)."""
    tables = module_tables(root)
    out: dict[Key, list[Case]] = {}
    scoped: dict[tuple[Key, str], list[Case]] = {
        (key(body), body.type): cases for body, cases in _helper_cases(root, plain)}
    stack: list[tuple[Node, list[Case] | None]] = [(root, None)]
    while stack:
        node, cases = stack.pop()
        cases = scoped.get((key(node), node.type), cases)
        found = None
        if node.type == "call_expression":
            if cases is not None:
                out[key(node)] = cases
            found = _each_cases(node, tables) or _for_each_cases(node, tables)
        elif node.type == "for_in_statement":
            found = _for_of_cases(node, tables)
        if found is not None:
            scoped[(key(found[0]), found[0].type)] = found[1]
        stack.extend((c, cases) for c in node.children)
    return out


__all__ = ["MAX_CASES", "case_bindings", "module_tables"]
