"""Tree-sitter languages and parsers, and the functions found in a piece of code.

Grammars come from the pinned per-language packages (``tree_sitter_python`` and so on),
so results never depend on grammars fetched at run time. Parsers are cached per thread
because a ``tree_sitter.Parser`` must not be shared between threads.
"""

from __future__ import annotations

import inspect
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath
from typing import Literal

import tree_sitter

from codequorum.core import pyast
from codequorum.core.errors import UnknownLanguageError
from codequorum.core.limits import (
    MAX_NESTING,
    PARSE_SECONDS,
    InputLimitError,
    check_total,
    nesting_problem,
    size_words,
    utf8_size,
    version_size_problem,
)

__all__ = [
    "LANGUAGES",
    "MEMBER_WRAPS",
    "FunctionInfo",
    "UnknownLanguageError",
    "function_at",
    "function_by_name",
    "functions",
    "get_language",
    "get_parser",
    "language_from_path",
    "member_form",
    "nests_deeper",
    "node_text",
    "normalize_language",
    "parse",
    "parse_versions",
    "syntax_errors",
    "to_bytes",
]


def _loader(module: str, attr: str = "language") -> Callable[[], object]:
    def load() -> object:
        mod = __import__(module)
        return getattr(mod, attr)()

    return load


#: Canonical language name -> loader of the grammar's language pointer.
_GRAMMARS: dict[str, Callable[[], object]] = {
    "python": _loader("tree_sitter_python"),
    "sql": _loader("tree_sitter_sql"),
    "javascript": _loader("tree_sitter_javascript"),
    "typescript": _loader("tree_sitter_typescript", "language_typescript"),
    "tsx": _loader("tree_sitter_typescript", "language_tsx"),
    "java": _loader("tree_sitter_java"),
    "go": _loader("tree_sitter_go"),
    "rust": _loader("tree_sitter_rust"),
    "c": _loader("tree_sitter_c"),
    "cpp": _loader("tree_sitter_cpp"),
}

#: The canonical language names codequorum knows.
LANGUAGES: tuple[str, ...] = tuple(_GRAMMARS)

_ALIASES: dict[str, str] = {
    "py": "python",
    "python3": "python",
    "py3": "python",
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "ecmascript": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "ts": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "typescriptreact": "tsx",
    "javascriptreact": "javascript",
    "c++": "cpp",
    "cxx": "cpp",
    "cc": "cpp",
    "hpp": "cpp",
    "golang": "go",
    "rs": "rust",
    "h": "c",
    "postgresql": "sql",
    "postgres": "sql",
    "mysql": "sql",
    "sqlite": "sql",
}

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".sql": "sql",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
}


def normalize_language(name: str) -> str:
    """The canonical name for a language name or alias (``py`` -> ``python``).

    Case and surrounding blanks are ignored. Raises ``UnknownLanguageError`` for a name
    codequorum does not know.
    """
    key = str(name).strip().lower()
    if key in _GRAMMARS:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    raise UnknownLanguageError(
        f"unknown language {name!r}; known: {', '.join(LANGUAGES)} "
        f"(aliases: {', '.join(sorted(_ALIASES))})"
    )


def language_from_path(path: str | PurePath) -> str:
    """The language of a file, from its extension (``a/b.rs`` -> ``rust``).

    Raises ``UnknownLanguageError`` for an extension codequorum does not know.
    """
    suffix = PurePath(str(path)).suffix.lower()
    lang = _EXTENSIONS.get(suffix)
    if lang is None:
        raise UnknownLanguageError(
            f"no language for file {str(path)!r} (extension {suffix or 'none'!r}); "
            f"known extensions: {' '.join(sorted(_EXTENSIONS))}"
        )
    return lang


@cache
def _language(canonical: str) -> tree_sitter.Language:
    return tree_sitter.Language(_GRAMMARS[canonical]())


def get_language(name: str) -> tree_sitter.Language:
    """The pinned ``tree_sitter.Language`` for a language name or alias."""
    return _language(normalize_language(name))


_local = threading.local()


def get_parser(name: str) -> tree_sitter.Parser:
    """A parser for ``name``, cached per thread (parsers are not thread-safe)."""
    canonical = normalize_language(name)
    cache_: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
    if cache_ is None:
        cache_ = {}
        _local.parsers = cache_
    parser = cache_.get(canonical)
    if parser is None:
        parser = tree_sitter.Parser(_language(canonical))
        cache_[canonical] = parser
    return parser


def to_bytes(code: str | bytes) -> bytes:
    """UTF-8 bytes of ``code``; lone surrogates in a ``str`` become U+FFFD, never an error."""
    if isinstance(code, bytes):
        return code
    try:
        return code.encode("utf-8")
    except UnicodeEncodeError:
        return code.encode("utf-8", errors="replace")


def parse(code: str | bytes, lang: str) -> tree_sitter.Tree:
    """Parse ``code`` (text, or bytes taken as UTF-8 as they are) with the grammar for ``lang``.

    Syntax errors become ERROR / MISSING nodes in the tree. The parse runs for at most
    :data:`~codequorum.core.limits.PARSE_SECONDS` (tree-sitter's error recovery can take minutes
    on binary junk): past that it stops and raises
    :class:`~codequorum.core.limits.InputLimitError`.
    """
    return parse_bytes(get_parser(lang), to_bytes(code))


#: How a JavaScript or TypeScript member given alone (``bump(by) { ... }``, a method as
#: ``check`` and the editor hold it; ``n: 1, f: (n) => n * 2``, an object's) reads whole:
#: in a class, else in an object (as ``node_harness/harness.js``'s ``compileVersion`` tries
#: them when it compiles a version).
MEMBER_WRAPS = ("(class __CodequorumVersion {{\n{code}\n}})", "({{\n{code}\n}})")
_MEMBER_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})


def member_form(code: str, lang: str) -> str | None:
    """``code`` wrapped as :data:`MEMBER_WRAPS` has it when it does not parse alone and
    parses so (a method or an object's member given alone), else None. Bounded as
    :func:`parse` is."""
    if lang not in _MEMBER_LANGUAGES or not parse(code, lang).root_node.has_error:
        return None
    for wrap in MEMBER_WRAPS:
        wrapped = wrap.format(code=code)
        if not parse(wrapped, lang).root_node.has_error:
            return wrapped
    return None


def named_nodes(root: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """``root`` and its named descendants in reading order (iterative: no depth of code
    recurses)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.named_children))


#: Texts up to this size are parsed without a deadline: the slowest parse of random bytes
#: this long, over every grammar, takes under 0.1 s, and the callbacks a deadline needs
#: cost about 9 µs a parse (5 % of scoring the HumanEval data).
QUICK_PARSE_BYTES = 8192


def parse_bytes(parser: tree_sitter.Parser, src: bytes) -> tree_sitter.Tree:
    """``parser.parse(src)`` within :data:`~codequorum.core.limits.PARSE_SECONDS` (see
    :func:`parse`), the same tree."""
    if len(src) <= QUICK_PARSE_BYTES:
        return parser.parse(src)
    deadline = time.monotonic() + PARSE_SECONDS
    view = memoryview(src)

    def read(offset: int, _point: tree_sitter.Point) -> memoryview:
        return view[offset:]

    def late(_offset: int, _has_error: bool) -> bool:
        return time.monotonic() > deadline

    try:
        read_tree = parser.parse(read, progress_callback=late)
    except ValueError:  # the parse was cancelled: start the next one afresh
        parser.reset()
        raise InputLimitError(
            f"{size_words(len(src))} that tree-sitter could not parse in {PARSE_SECONDS:g} s "
            "(binary or garbled text?)") from None
    # A tree read through a callback holds no text, and a node's ``text`` then crashes the
    # process (py-tree-sitter 0.26): parsed again from the bytes, reusing every node of
    # the first parse (a tenth of a millisecond for 50 KB), the tree holds them.
    return parser.parse(src, old_tree=read_tree)


def nests_deeper(tree: tree_sitter.Tree, limit: int = MAX_NESTING) -> bool:
    """Whether any node of ``tree`` lies deeper than ``limit`` (the root at depth 1).

    Iterative, and it enters only subtrees with more nodes than the levels left below
    ``limit`` (a subtree of ``k`` nodes is at most ``k`` deep), so for ordinary code it
    looks at the root's children and no further.
    """
    cur = tree.walk()
    depth = 1
    while True:
        node: tree_sitter.Node = cur.node  # type: ignore[assignment]
        if depth > limit:
            return True
        if depth - 1 + node.descendant_count > limit and cur.goto_first_child():
            depth += 1
            continue
        while not cur.goto_next_sibling():
            if not cur.goto_parent():
                return False
            depth -= 1


def _version_words(problems: list[tuple[int, str]], shown: int = 3) -> str:
    """``version 2 is 9.5 MB of code (at most 512 KB); version 5 is nested ...``."""
    parts = [f"version {k + 1} is {why}" for k, why in problems[:shown]]
    more = len(problems) - shown
    tail = f"; and {more:,} more" if more > 0 else ""
    return "; ".join(parts) + tail


def parse_versions(codes: Sequence[str], lang: str, keep_nodes: int, keep_total: int
                   ) -> list[tree_sitter.Tree | None]:
    """Parse every distinct version of a set once, within the bounds of
    :mod:`codequorum.core.limits` (size, parse time, nesting); raise one
    :class:`~codequorum.core.limits.InputLimitError` naming every version over a bound.

    Returns each version's tree when it has at most ``keep_nodes`` nodes and the trees kept
    so far hold at most ``keep_total`` together, else None (large trees are not held while
    the others are read: a consumer parses them again, one at a time; a tree-sitter node
    takes about 140 bytes). Only after this may a version go to a recursive step (``ast``,
    ``compile()``, S-expressions).
    """
    canonical = normalize_language(lang)
    problems: list[tuple[int, str]] = []
    first: dict[str, int] = {}
    for k, code in enumerate(codes):
        if first.setdefault(code, k) == k:
            too_big = version_size_problem(code)
            if too_big is not None:
                problems.append((k, too_big))
    if problems:
        raise InputLimitError(f"not scored: {_version_words(problems)}")
    check_total([utf8_size(code) for code in first], "the distinct versions")
    parser = get_parser(canonical)
    kept: dict[str, tree_sitter.Tree | None] = {}
    for code, k in first.items():
        try:
            tree = parse_bytes(parser, to_bytes(code))
        except InputLimitError as exc:
            problems.append((k, str(exc)))
            continue
        if nests_deeper(tree):
            problems.append((k, nesting_problem()))
            continue
        nodes = tree.root_node.descendant_count
        if nodes <= keep_nodes and nodes <= keep_total:
            kept[code] = tree
            keep_total -= nodes
        else:
            kept[code] = None
    if problems:
        raise InputLimitError(f"not scored: {_version_words(problems)}")
    return [kept[code] for code in codes]


# --------------------------------------------------------------------------- syntax errors

Point = tuple[int, int]


def _pt(p: tree_sitter.Point | tuple[int, int]) -> Point:
    return (int(p[0]), int(p[1]))


def syntax_errors(tree: tree_sitter.Tree) -> list[tuple[Point, Point, str]]:
    """ERROR and MISSING nodes of a tree as ``(start_point, end_point, kind)``.

    ``kind`` is ``"error"`` for an ERROR node (text the grammar could not place) and
    ``"missing <type>"`` for a MISSING node (a token the parser inserted, e.g.
    ``"missing )"``). Points are 0-based (row, byte column). Only subtrees that contain an
    error are walked, so an error-free tree costs one check.
    """
    root = tree.root_node
    if not root.has_error:
        return []
    out: list[tuple[Point, Point, str]] = []
    cur = tree.walk()
    while True:
        node: tree_sitter.Node = cur.node  # type: ignore[assignment]
        if node.is_missing:
            out.append((_pt(node.start_point), _pt(node.end_point), f"missing {node.type}"))
        elif node.is_error:
            out.append((_pt(node.start_point), _pt(node.end_point), "error"))
        if node.has_error and cur.goto_first_child():
            continue
        while not cur.goto_next_sibling():
            if not cur.goto_parent():
                return out


# --------------------------------------------------------------------------- functions


@dataclass(frozen=True)
class FunctionInfo:
    """One named function or method found in a piece of code.

    ``qualified_name`` joins the enclosing classes / impl types / functions / TypeScript
    namespaces with ``.`` (``Class.method``, ``outer.inner``; Go ``Type.Method``; C++
    ``A::m`` -> ``A.m``; ``namespace Text { function slugify }`` -> ``Text.slugify``).
    ``start_byte``/``end_byte``/``text`` cover the definition without Python decorators;
    for a JS/TS function assigned in a one-name declaration (``const f = () => ...``)
    they cover the declaration. Points are 0-based (row, byte column).
    ``signature`` is the text up to the body; ``docstring`` is the Python docstring
    (cleaned like ``inspect.getdoc``) or, in other languages, the comment block right
    before the definition with comment markers removed; ``None`` if there is none.
    ``namespace`` is the TypeScript namespace the function is in (``A.B``; the first
    parts of ``qualified_name``), empty outside one.
    """

    name: str
    qualified_name: str
    kind: Literal["function", "method"]
    signature: str
    docstring: str | None
    start_byte: int
    end_byte: int
    start_point: Point
    end_point: Point
    name_start_point: Point
    name_end_point: Point
    body_start_point: Point
    text: str
    namespace: str = ""


_FUNCTION_TYPES: dict[str, tuple[str, ...]] = {
    "python": ("function_definition",),
    "javascript": (
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "arrow_function",
        "function_expression",
        "generator_function",
    ),
    "java": ("method_declaration", "constructor_declaration", "compact_constructor_declaration"),
    "go": ("function_declaration", "method_declaration"),
    "rust": ("function_item",),
    "c": ("function_definition",),
    "cpp": ("function_definition",),
    "sql": ("create_function",),
}
_FUNCTION_TYPES["typescript"] = _FUNCTION_TYPES["javascript"]
_FUNCTION_TYPES["tsx"] = _FUNCTION_TYPES["javascript"]

# Scopes that make a function inside them a method: node type -> field holding the name.
_CLASS_SCOPES: dict[str, dict[str, str]] = {
    "python": {"class_definition": "name"},
    "javascript": {"class_declaration": "name", "class": "name"},
    "java": {
        "class_declaration": "name",
        "interface_declaration": "name",
        "enum_declaration": "name",
        "record_declaration": "name",
    },
    "go": {},
    "rust": {"impl_item": "type", "trait_item": "name"},
    "c": {},
    "cpp": {"class_specifier": "name", "struct_specifier": "name", "union_specifier": "name"},
    "sql": {},
}
_CLASS_SCOPES["typescript"] = {**_CLASS_SCOPES["javascript"], "abstract_class_declaration": "name"}
_CLASS_SCOPES["tsx"] = _CLASS_SCOPES["typescript"]
#: Scopes that name the functions inside them without making them methods: a TypeScript
#: ``namespace N``/``module N`` (``namespace A.B``: ``A.B``), compiled to an object that
#: holds what it exports (``N.f``). An ambient module named by a string has no such name.
_NAMESPACE_SCOPES: dict[str, tuple[str, ...]] = {
    "typescript": ("internal_module", "module"),
    "tsx": ("internal_module", "module"),
}

_DECLARATIONS = ("lexical_declaration", "variable_declaration")


@cache
def _function_query(canonical: str) -> tree_sitter.Query:
    """Captures functions (``@f``) and the scopes that name them (``@s``)."""
    funcs = " ".join(f"({t})" for t in _FUNCTION_TYPES[canonical])
    scope_types = [*_CLASS_SCOPES[canonical], *_NAMESPACE_SCOPES.get(canonical, ())]
    if canonical in ("javascript", "typescript", "tsx"):
        scope_types.append("object")
    pattern = f"[{funcs}] @f"
    if scope_types:
        pattern += " [" + " ".join(f"({t})" for t in scope_types) + "] @s"
    return tree_sitter.Query(_language(canonical), pattern)


def node_text(node: tree_sitter.Node) -> str:
    """A node's source text (bytes that are no UTF-8 replaced)."""
    return (node.text or b"").decode("utf-8", "replace")


def _text(src: bytes, node: tree_sitter.Node) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _field(node: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    return node.child_by_field_name(name)


def _type_name(node: tree_sitter.Node, src: bytes) -> tuple[str, tree_sitter.Node]:
    """The bare type name in a type node (``*T[K]`` -> ``T``, ``crate::Bar`` -> ``Bar``)."""
    while True:
        if node.type in ("pointer_type", "reference_type", "generic_type", "qualified_type"):
            inner = _field(node, "type") or (
                node.named_children[0] if node.named_children else None
            )
            if inner is None or inner == node:
                break
            node = inner
        elif node.type == "scoped_type_identifier":
            inner = _field(node, "name")
            if inner is None:
                break
            node = inner
        elif node.type == "parenthesized_type" and node.named_children:
            node = node.named_children[0]
        else:
            break
    return _text(src, node), node


def _c_declarator_name(
    decl: tree_sitter.Node | None, src: bytes
) -> tuple[list[str], tree_sitter.Node] | None:
    """Name parts and name node of a C/C++ function declarator chain."""
    while decl is not None and decl.type != "function_declarator":
        decl = _field(decl, "declarator")
    if decl is None:
        return None
    target = _field(decl, "declarator")
    parts: list[str] = []
    while target is not None and target.type == "qualified_identifier":
        scope = _field(target, "scope")
        if scope is not None:
            parts.append(_text(src, scope).split("<", 1)[0])
        target = _field(target, "name")
    if target is None:
        return None
    parts.append(_text(src, target))
    return parts, target


def _own_name(
    node: tree_sitter.Node, lang: str, src: bytes
) -> tuple[list[str], tree_sitter.Node, tree_sitter.Node, bool] | None:
    """(name parts, name node, range node, is_method_by_form) of a function node.

    ``None`` for anonymous functions (callbacks, immediately invoked expressions).
    """
    name_node: tree_sitter.Node | None
    t = node.type
    if lang in ("c", "cpp"):
        got = _c_declarator_name(_field(node, "declarator"), src)
        if got is None:
            return None
        parts, name_node = got
        return parts, name_node, node, len(parts) > 1
    if lang == "go" and t == "method_declaration":
        name_node = _field(node, "name")
        receiver = _field(node, "receiver")
        if name_node is None:
            return None
        parts = [_text(src, name_node)]
        if receiver is not None:
            for param in receiver.named_children:
                rtype = _field(param, "type")
                if rtype is not None:
                    parts.insert(0, _type_name(rtype, src)[0])
                    break
        return parts, name_node, node, len(parts) > 1
    if lang == "sql":
        ref = next((c for c in node.named_children if c.type == "object_reference"), None)
        if ref is None:
            return None
        name_node = _field(ref, "name") or ref
        return [_text(src, name_node)], name_node, node, False
    if t in ("arrow_function", "function_expression", "generator_function"):
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "variable_declarator" and _field(parent, "value") == node:
            name_node = _field(parent, "name")
            if name_node is None or name_node.type != "identifier":
                return None
            outer = parent.parent
            rng = outer if outer is not None and outer.type in _DECLARATIONS else parent
            if outer is not None and outer.named_child_count > 1:
                rng = parent
            return [_text(src, name_node)], name_node, rng, False
        if parent.type == "pair" and _field(parent, "value") == node:
            key = _field(parent, "key")
            if key is None:
                return None
            return [_text(src, key).strip("'\"")], key, node, True
        if parent.type == "assignment_expression" and _field(parent, "right") == node:
            left = _field(parent, "left")
            if left is None:
                return None
            name_node = _field(left, "property") if left.type == "member_expression" else left
            if name_node is None:
                return None
            return [_text(src, left)], name_node, node, False
        if parent.type in ("public_field_definition", "field_definition"):
            key = _field(parent, "name") or _field(parent, "property")
            if key is None:
                return None
            return [_text(src, key)], key, parent, True
        if t != "arrow_function":
            name_node = _field(node, "name")
            if name_node is not None:
                return [_text(src, name_node)], name_node, node, False
        return None
    name_node = _field(node, "name")
    if name_node is None:
        return None
    return [_text(src, name_node)], name_node, node, False


def _scope_name(node: tree_sitter.Node, lang: str, src: bytes) -> tuple[str | None, bool] | None:
    """(name, is_class_like) if ``node`` opens a naming scope, else ``None``."""
    t = node.type
    classes = _CLASS_SCOPES[lang]
    if t in classes:
        target = _field(node, classes[t])
        if target is None:
            if t == "class" and node.parent is not None:
                decl = node.parent
                if decl.type == "variable_declarator":
                    target = _field(decl, "name")
            if target is None:
                return None, True
        if lang == "rust" and t == "impl_item":
            return _type_name(target, src)[0], True
        return _text(src, target), True
    if t == "object" and lang in ("javascript", "typescript", "tsx"):
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator":
            target = _field(parent, "name")
            if target is not None:
                return _text(src, target), True
        return None, True
    if t in _NAMESPACE_SCOPES.get(lang, ()):
        target = _field(node, "name")
        if target is None or target.type == "string":
            return None, False
        return "".join(_text(src, target).split()), False
    if t in _FUNCTION_TYPES[lang]:
        own = _own_name(node, lang, src)
        return (".".join(own[0]) if own else None), False
    return None


_COMMENT_MARKERS = re.compile(r"^\s*(?:///?!?|/\*\*?|\*/|\*(?!/)|--|#)\s?")


def _comment_block(node: tree_sitter.Node, src: bytes) -> str | None:
    """The comments right before ``node`` (no blank line between), markers stripped."""
    prev = node.prev_sibling
    comments: list[tree_sitter.Node] = []
    line = node.start_point[0]
    while prev is not None:
        if prev.type in ("attribute_item", "decorator", "annotation", "marker_annotation"):
            line = prev.start_point[0]
            prev = prev.prev_sibling
            continue
        if "comment" not in prev.type or prev.end_point[0] < line - 1:
            break
        comments.append(prev)
        line = prev.start_point[0]
        prev = prev.prev_sibling
    if not comments:
        return None
    lines: list[str] = []
    for c in reversed(comments):
        text = _text(src, c)
        if text.endswith("*/"):
            text = text[:-2]
        for raw in text.splitlines():
            lines.append(_COMMENT_MARKERS.sub("", raw, count=1).rstrip())
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) if lines else None


def _with_overloads(doc: str | None, anchor: tree_sitter.Node, name: str,
                    src: bytes) -> str | None:
    """``doc`` after the comments above the TypeScript overload signatures right before
    the definition (``function f(a: string): T;`` with its JSDoc): an overloaded
    function's examples are written there, one block per form."""
    docs: list[str] = []
    prev = anchor.prev_sibling
    while prev is not None:
        if "comment" in prev.type:
            prev = prev.prev_sibling
            continue
        signature = prev if prev.type == "function_signature" else next(
            (c for c in prev.named_children if c.type == "function_signature"), None) \
            if prev.type == "export_statement" else None
        named = _field(signature, "name") if signature is not None else None
        if named is None or _text(src, named) != name:
            break
        above = _comment_block(prev, src)
        if above:
            docs.insert(0, above)
        prev = prev.prev_sibling
    if not docs:
        return doc
    return "\n\n".join([*docs, *([doc] if doc else [])])


def _python_docstring(body: tree_sitter.Node, src: bytes) -> str | None:
    first = body.named_children[0] if body.named_child_count else None
    if first is None or first.type != "expression_statement" or first.named_child_count != 1:
        return None
    lit = first.named_children[0]
    if lit.type not in ("string", "concatenated_string"):
        return None
    raw = _text(src, lit)
    try:
        value = pyast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(value, str):
        return None
    return inspect.cleandoc(value)


def functions(code: str | bytes, lang: str) -> list[FunctionInfo]:
    """Every named function and method in ``code``, in source order, outer before inner.

    Anonymous functions (callbacks, lambdas) and declarations without a body are left
    out. Never raises for bad code (only ``UnknownLanguageError``, and
    :class:`~codequorum.core.limits.InputLimitError` for text tree-sitter cannot parse in
    time): what the parser could place is reported. One query finds functions and naming
    scopes; a stack over them in source order gives each its enclosing names (linear,
    whatever the nesting depth).
    """
    return functions_and_errors(code, lang)[0]


def functions_and_errors(code: str | bytes, lang: str) -> tuple[list[FunctionInfo], bool]:
    """:func:`functions`, and whether the parse met a syntax error (the watch parses a piece
    of a document and widens it while the piece does not parse cleanly)."""
    canonical = normalize_language(lang)
    src = to_bytes(code)
    tree = parse_bytes(get_parser(canonical), src)
    return _tree_functions(tree, canonical, src), tree.root_node.has_error


def _tree_functions(tree: tree_sitter.Tree, canonical: str, src: bytes) -> list[FunctionInfo]:
    captures = tree_sitter.QueryCursor(_function_query(canonical)).captures(tree.root_node)
    tagged = [(n, True) for n in captures.get("f", [])]
    tagged += [(n, False) for n in captures.get("s", [])]
    tagged.sort(key=lambda item: (item[0].start_byte, -item[0].end_byte, not item[1]))
    out: list[FunctionInfo] = []
    namespaces = _NAMESPACE_SCOPES.get(canonical, ())
    # open scopes: (end_byte, name or None, class-like, a namespace)
    stack: list[tuple[int, str | None, bool, bool]] = []
    for node, is_function in tagged:
        start, end = node.start_byte, node.end_byte
        while stack and (stack[-1][0] < end or (stack[-1][0] <= start < end)):
            stack.pop()
        if is_function:
            own = _own_name(node, canonical, src)
            if own is not None:
                scopes = [name for _, name, _, _ in stack if name]
                nearest_class = stack[-1][2] if stack else False
                space = ".".join(name for _, name, _, n in stack if n and name)
                info = _function_info(node, own, scopes, nearest_class, canonical, src, space)
                if info is not None:
                    out.append(info)
            stack.append((end, ".".join(own[0]) if own else None, False, False))
        else:
            got = _scope_name(node, canonical, src)
            name, class_like = got if got else (None, True)
            stack.append((end, name, class_like, node.type in namespaces))
    out.sort(key=lambda f: (f.start_byte, -f.end_byte))
    return out


def _wrapping_declaration(node: tree_sitter.Node, name: str, src: bytes
                          ) -> tree_sitter.Node | None:
    """The declaration whose value is a call taking ``node`` (a function expression named
    ``name``) as an argument and that declares ``name`` too: ``var add =
    _curry2(function add(a, b) {...})`` (Ramda), ``const Button = forwardRef(function
    Button(props, ref) {...})`` (React); the comment above it is the function's. None
    for any other place."""
    held, value = node.parent, node
    while held is not None and held.type == "arguments" and held.parent is not None and \
            held.parent.type == "call_expression":
        value = held.parent
        held = value.parent
    if value is node or held is None or held.type != "variable_declarator" or \
            _field(held, "value") != value:
        return None
    declared = _field(held, "name")
    if declared is None or _text(src, declared) != name:
        return None
    outer = held.parent
    return outer if outer is not None and outer.type in _DECLARATIONS else held


def _function_info(
    node: tree_sitter.Node,
    own: tuple[list[str], tree_sitter.Node, tree_sitter.Node, bool],
    scopes: list[str],
    nearest_class: bool,
    lang: str,
    src: bytes,
    namespace: str = "",
) -> FunctionInfo | None:
    parts, name_node, rng, method_by_form = own
    if lang == "sql":
        body = next((c for c in node.named_children if c.type == "function_body"), None)
    else:
        body = _field(node, "body")
    if body is None:
        return None
    qualified = ".".join([*scopes, *parts])
    is_method = method_by_form or nearest_class
    signature = src[rng.start_byte : body.start_byte].decode("utf-8", errors="replace").rstrip()
    if lang == "python":
        doc = _python_docstring(body, src) if body.type == "block" else None
    else:
        anchor = rng  # climb wrappers that start with it (export, statement, template)
        held = anchor.parent  # a property's or an assignment's value: the comment is above it
        if held is not None and held.type in ("pair", "assignment_expression") and anchor in (
                _field(held, "value"), _field(held, "right")):
            anchor = held
        anchor = _wrapping_declaration(anchor, parts[-1], src) or anchor
        while anchor.parent is not None and (
            anchor.parent.start_byte == anchor.start_byte
            or anchor.parent.type == "export_statement"
        ):
            anchor = anchor.parent
        doc = _with_overloads(_comment_block(anchor, src), anchor, parts[-1], src)
    return FunctionInfo(
        name=parts[-1],
        qualified_name=qualified,
        kind="method" if is_method else "function",
        signature=signature,
        docstring=doc,
        start_byte=rng.start_byte,
        end_byte=rng.end_byte,
        start_point=_pt(rng.start_point),
        end_point=_pt(rng.end_point),
        name_start_point=_pt(name_node.start_point),
        name_end_point=_pt(name_node.end_point),
        body_start_point=_pt(body.start_point),
        text=_text(src, rng),
        namespace=namespace,
    )


def namespace_body(root: tree_sitter.Node, found: FunctionInfo) -> tree_sitter.Node | None:
    """The body of the TypeScript namespace ``found`` is in (the innermost: its statements
    are the function's neighbours), in the tree ``root`` of the code it was found in;
    None outside a namespace."""
    if not found.namespace:
        return None
    node: tree_sitter.Node | None = root.descendant_for_byte_range(found.start_byte,
                                                                   found.end_byte)
    while node is not None and node.type not in ("internal_module", "module"):
        node = node.parent
    return _field(node, "body") if node is not None else None


def function_at(code: str | bytes, lang: str, row: int, byte_col: int) -> FunctionInfo | None:
    """The innermost function whose definition contains the point (row, byte column).

    Both ends count as inside, so a cursor just after the last character still finds it.
    """
    best: FunctionInfo | None = None
    point = (row, byte_col)
    for f in functions(code, lang):
        if f.start_point <= point <= f.end_point and (
            best is None or f.start_byte >= best.start_byte
        ):
            best = f
    return best


def function_by_name(code: str | bytes, lang: str, qualified_name: str) -> FunctionInfo | None:
    """The first function with this qualified name, else the first with this plain name."""
    found = functions(code, lang)
    for f in found:
        if f.qualified_name == qualified_name:
            return f
    for f in found:
        if f.name == qualified_name:
            return f
    return None
