"""Take one function out of a chat model's answer, and check that it is real code.

Chat models wrap code in prose and fences, add usage examples, sometimes return a whole
class or stop mid-function. An answer is accepted only when a code block (the answer
itself when it is code that defines the function, a fence inside it being a docstring's;
else the first fenced block that defines the function, or the bare answer when there is
no fence) parses without ERROR or MISSING nodes and defines the function by name — at top level
(kept with the helpers it defines beside it) or inside a class, in which case just that
method is kept, dedented to column 0. Otherwise
the answer is rejected with a reason a user can read: ``no code in the answer``,
``code does not parse: line 3``, ``does not define `foo```.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import tree_sitter

from codequorum.core import parsing, pyast
from codequorum.core.errors import UnknownLanguageError
from codequorum.core.limits import MAX_ANSWER_CHARS, InputLimitError, version_size_problem
from codequorum.core.parsing import normalize_language, parse, to_bytes
from codequorum.ingest.version_helpers import helper_nodes, top_level

if TYPE_CHECKING:
    from codequorum.core.parsing import FunctionInfo

_FENCE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<tag>[^\s`]*)[^\n]*\n"  # opening fence + tag
    r"(?P<body>.*?)"
    r"(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",  # closing fence, or the end of a cut-off answer
    re.DOTALL | re.MULTILINE,
)
# Reasoning models may put drafts in <think> sections before the answer.
_THINKING = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_PY_CODE_START = re.compile(r"^(?:async\s+def|def|class|@|from\s+\S+\s+import|import)\b")
_PY_CODE_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\s*(?:=|\(|\[|:)|if __name__|#|\)|\]|\})")
#: Where JavaScript or TypeScript code in an answer without a fence starts.
_JS_CODE_START = re.compile(
    r"^(?:export\s|async\s|function\b|const\s|let\s|var\s|class\s|import\s|/\*|//)")
#: A chat answer's opening sentence: a word, a space, and no end a line of code has.
_SENTENCE = re.compile(r"^[A-Za-z][\w'’!,]* .*[^;{(,\s]\s*$")
_JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
#: Lines of an answer without a fence tried as its code, at most.
_MAX_BARE_LINES = 400
_NOT_CODE_TAGS = frozenset(
    {"text", "txt", "output", "console", "shell", "sh", "bash", "zsh", "plaintext", "json"}
)


@dataclass(frozen=True)
class ExtractResult:
    """Either ``ok`` with the function's ``code``, or rejected with a ``reason``.

    ``imports`` holds the block's top-level import lines (Python), which the function may
    need to run; ``code`` is the function (with its decorators) and, for a top-level
    function, the helpers the block defines that it reaches
    (:mod:`~codequorum.ingest.version_helpers`).
    """

    ok: bool
    code: str | None = None
    reason: str | None = None
    imports: tuple[str, ...] = ()

    @classmethod
    def accepted(cls, code: str, imports: tuple[str, ...] = ()) -> ExtractResult:
        """An accepted extraction."""
        return cls(ok=True, code=code, imports=imports)

    @classmethod
    def rejected(cls, reason: str) -> ExtractResult:
        """A rejection with its reason."""
        return cls(ok=False, reason=reason)


def extract_function(answer: str, language: str, name: str) -> ExtractResult:
    """The function ``name`` (plain or qualified, e.g. ``Stack.push``) from ``answer``
    (refused unread past :data:`~codequorum.core.limits.MAX_ANSWER_CHARS`)."""
    try:
        lang = normalize_language(language)
    except UnknownLanguageError as exc:
        return ExtractResult.rejected(str(exc))
    if len(answer) > MAX_ANSWER_CHARS:
        return ExtractResult.rejected(f"the answer is {len(answer):,} characters long (at most "
                                      f"{MAX_ANSWER_CHARS:,} are read)")
    whole = _whole_code(without_thinking(answer), lang, name)
    if whole is not None:
        return whole
    blocks = list(_code_blocks(without_thinking(answer), lang))
    if not blocks:
        return ExtractResult.rejected("no code in the answer")
    reasons: list[str] = []
    for block in blocks:
        outcome = _from_block(block, lang, name)
        if outcome.ok:
            return outcome
        reasons.append(outcome.reason or f"does not define `{name}`")
    short = name.rsplit(".", 1)[-1]
    if not _FENCE.search(answer) and short not in answer:
        return ExtractResult.rejected("no code in the answer")  # prose that failed to parse
    # A block that tried and failed to parse says more than one that is about something else.
    parse_errors = [r for r in reasons if r.startswith("code does not parse")]
    return ExtractResult.rejected((parse_errors or reasons)[0])


def _whole_code(text: str, lang: str, name: str) -> ExtractResult | None:
    """``text`` itself when it is code that defines ``name``: a fence inside it is a
    docstring's or a comment's (the fenced ``pycon`` examples mkdocs renders), not an
    answer's block. None otherwise (a JavaScript answer with a fence line parses too, so it
    is read by its blocks)."""
    if not _clean(text, lang) or _fenced_javascript(text, lang):
        return None
    found = _from_block(text, lang, name)
    return found if found.ok else None


def extract_from_code(code: str, language: str, name: str) -> ExtractResult:
    """The function ``name`` from plain source code (a file, a benchmark version): no fences
    or prose to strip, the same checks as :func:`extract_function`."""
    try:
        lang = normalize_language(language)
    except UnknownLanguageError as exc:
        return ExtractResult.rejected(str(exc))
    if not code.strip():
        return ExtractResult.rejected("no code")
    return _from_block(code, lang, name)


def unfenced(text: str, language: str) -> str | None:
    """The code of a version given as a chat answer (prose and a fenced block, as chat
    models answer, or prose and then the code without a fence): the first fenced block of
    ``language`` (or untagged) that parses clean, when ``text`` itself does not (or is
    JavaScript with a fence line); None when
    ``text`` is code already, or no block is. Benchmark completions hold no fences and
    start with code, so what is scored there stays byte for byte."""
    if not is_chat_answer(text):
        return None
    try:
        lang = normalize_language(language)
    except UnknownLanguageError:
        return None
    if version_size_problem(text) is not None or (_clean(text, lang)
                                                  and not _fenced_javascript(text, lang)):
        return None
    for block in _code_blocks(without_thinking(text), lang):
        code = _dedent(block)
        if code.strip() and _clean(code, lang):
            return code.rstrip() + "\n"
    return None


def _fenced_javascript(text: str, lang: str) -> bool:
    """Whether ``text`` is JavaScript or TypeScript with a fence line: JavaScript parses
    an answer that is the block alone, or ``Sure:`` and the block, clean (a label, empty
    templates tagged), where code never starts a line with three backticks unescaped (they
    would close a template); a fence line inside a comment (a JSDoc's example) does not
    count."""
    if lang not in _JS_LANGUAGES or _FENCE.search(text) is None:
        return False
    root = parse(text, lang).root_node
    for match in _FENCE.finditer(text):
        at = len(text[:match.start("fence")].encode("utf-8"))
        node = root.descendant_for_byte_range(at, at + 1)
        if node is None or node.type != "comment":  # a fence in a comment is the comment's
            return True
    return False


def is_chat_answer(text: str) -> bool:
    """Whether ``text`` reads as a chat model's answer rather than code: it holds a fenced
    block, or its first line is a sentence (``Here is...``, ``Sorry, ...``)."""
    fenced = ("```" in text or "~~~" in text) and _FENCE.search(text) is not None
    return fenced or _opens_with_prose(text)


def _opens_with_prose(text: str) -> bool:
    """Whether ``text``'s first line is a sentence, as a chat answer's is (``Here is...``),
    not code: a line at column 0 that no code line of Python or JavaScript starts as."""
    first = next((line for line in without_thinking(text).splitlines() if line.strip()), "")
    return bool(_SENTENCE.match(first)) and not (
        _PY_CODE_START.match(first) or _PY_CODE_LINE.match(first)
        or _JS_CODE_START.match(first))


def _clean(code: str, lang: str) -> bool:
    """Whether ``code`` parses without an error (tree-sitter, and Python's own parser)."""
    return _syntax_problem(code, lang, parse(code, lang).root_node) is None


def without_thinking(answer: str) -> str:
    """``answer`` without its ``<think>`` (``<thinking>``, ``<reasoning>``) sections, in one
    pass: a section that is never closed stays, and does not make the search quadratic."""
    lower = answer.lower()
    parts: list[str] = []
    pos = 0
    unclosed: set[str] = set()
    for opened in _THINKING.finditer(answer):
        tag = opened.group(1).lower()
        if opened.start() < pos or tag in unclosed:
            continue
        end = lower.find(f"</{tag}>", opened.end())
        if end < 0:
            unclosed.add(tag)
            continue
        parts.append(answer[pos : opened.start()])
        pos = end + len(tag) + 3
    parts.append(answer[pos:])
    return "".join(parts)


def function_source(code: str, info: FunctionInfo, language: str = "python") -> str:
    """The full lines of a function in ``code`` (decorators included), dedented to column 0.

    Tree-sitter node text starts at the ``def`` keyword, so a method's first line has no
    indent while its body keeps the class's; whole lines, dedented, compare fairly with
    extracted versions.
    """
    data = to_bytes(code)
    start_byte = _with_decorators(data, info, language)
    line_start = data.rfind(b"\n", 0, start_byte) + 1
    prefix = data[line_start:start_byte]
    start = line_start if not prefix.strip() else start_byte
    indent = prefix[: len(prefix) - len(prefix.lstrip())] if prefix.strip() else b""
    # ``  export function f() {`` in a namespace: its first line indented as its line is
    text = (indent + data[start : info.end_byte]).decode("utf-8", errors="replace")
    return _dedent(text)


def _with_decorators(data: bytes, info: FunctionInfo, language: str) -> int:
    """Where the function starts once its decorators (Python) are counted in."""
    start = int(info.start_byte)
    if normalize_language(language) != "python":
        return start
    node = parse(data, "python").root_node.descendant_for_byte_range(info.start_byte, info.end_byte)
    while node is not None and node.type not in ("function_definition", "decorated_definition"):
        node = node.parent
    if node is not None and node.parent is not None and node.parent.type == "decorated_definition":
        node = node.parent
    return min(start, node.start_byte) if node is not None else start


# --------------------------------------------------------------------------- internals


def _code_blocks(answer: str, lang: str) -> Iterator[str]:
    """Fenced blocks whose tag fits ``lang`` (untagged ones too); else the bare answer."""
    fenced = False
    for match in _FENCE.finditer(answer):
        fenced = True
        tag = match.group("tag").strip().lower()
        if tag and not _tag_fits(tag, lang):
            continue
        body = match.group("body")
        if body.strip():
            yield body
    if fenced:
        return
    bare = _bare_code(answer, lang)
    if bare is not None:
        yield bare


def _tag_fits(tag: str, lang: str) -> bool:
    if tag in _NOT_CODE_TAGS:
        return False
    try:
        return normalize_language(tag) == lang
    except UnknownLanguageError:
        return True  # an unknown tag (e.g. "pycon3"): let parsing decide


def _bare_code(answer: str, lang: str) -> str | None:
    """The code part of an answer without fences (prose before and after dropped)."""
    if not answer.strip():
        return None
    if lang in _JS_LANGUAGES:
        return _bare_js(answer, lang)
    if lang != "python":
        return answer
    lines = answer.splitlines()
    start = next((i for i, line in enumerate(lines) if _PY_CODE_START.match(line.lstrip())), None)
    if start is None:
        return None
    kept: list[str] = []
    for line in lines[start:]:
        if (
            not line.strip()
            or line[0] in " \t"
            or _PY_CODE_START.match(line)
            or _PY_CODE_LINE.match(line)
        ):
            kept.append(line)
        else:
            break
    return "\n".join(kept).rstrip() + "\n"


def _bare_js(answer: str, lang: str) -> str:
    """JavaScript or TypeScript code without a fence: from its first line of code, the
    longest run of lines that parses (the prose after it dropped); the answer as it is
    when no line starts code."""
    lines = answer.splitlines()
    start = next((i for i, line in enumerate(lines) if _JS_CODE_START.match(line)), None)
    if start is None:
        return answer
    end = min(len(lines), start + _MAX_BARE_LINES)
    for stop in range(end, start, -1):
        code = "\n".join(lines[start:stop]).rstrip() + "\n"
        if lines[stop - 1].strip() and _clean(code, lang):
            return code
    return "\n".join(lines[start:]).rstrip() + "\n"


def _from_block(block: str, lang: str, name: str) -> ExtractResult:
    """The function from one block of code; a block over a bound of
    :mod:`codequorum.core.limits` is rejected with the bound."""
    too_big = version_size_problem(block)
    if too_big is not None:
        return ExtractResult.rejected(f"the code is {too_big}")
    try:
        return _function_in(_dedent(block), lang, name)
    except InputLimitError as exc:
        return ExtractResult.rejected(f"the code is {exc}")


#: Languages whose methods stand alone as a class's member, not as a statement: a method
#: given alone (``comparePre (other) { ... }``, as ``export`` writes it) is read in a class.
_CLASS_MEMBERS = frozenset({"javascript", "typescript", "tsx"})


def _function_in(code: str, lang: str, name: str) -> ExtractResult:
    tree = parse(code, lang)
    found = _find(parsing.functions(code, lang), name)
    if _member_given_alone(found, lang, name):
        alone = _method_alone(code, lang, name)
        if alone is not None:
            return alone
    if found is None:
        problem = _syntax_problem(code, lang, tree.root_node)
        if problem is not None:
            return ExtractResult.rejected(_parse_reason(*problem))
        return ExtractResult.rejected(f"does not define `{name}`")
    text = function_source(code, found, lang)
    problem = _syntax_problem(text, lang, parse(text, lang).root_node)
    if problem is not None:
        data = to_bytes(code)
        offset = data[: _with_decorators(data, found, lang)].count(b"\n")
        return ExtractResult.rejected(_parse_reason(problem[0] + offset, problem[1]))
    text = _with_helpers(code, tree, found, lang, text)
    return ExtractResult.accepted(text.rstrip() + "\n", _imports(tree, code, lang))


def _with_helpers(code: str, tree: tree_sitter.Tree, found: FunctionInfo, lang: str,
                  text: str) -> str:
    """``text`` (the function) with the helpers its block defines beside it
    (:mod:`~codequorum.ingest.version_helpers`; a TypeScript namespace's body for a
    function in one), in the block's order; ``text`` alone for a method, or when the
    pieces put together would not parse."""
    data = to_bytes(code)
    block = parsing.namespace_body(tree.root_node, found) or tree.root_node
    own = found.qualified_name.removeprefix(f"{found.namespace}." if found.namespace else "")
    target = top_level(block, _with_decorators(data, found, lang))
    if "." in own or target is None:
        return text
    pieces = [(target.start_byte, text.strip("\n"))]
    for node in helper_nodes(block, target, lang):
        inner = node.child_by_field_name("declaration") if node.type == "export_statement" \
            else None
        held = inner if inner is not None else node
        pieces.append((node.start_byte, _dedent(_text_of(data, held)).strip("\n")))
    if len(pieces) == 1:
        return text
    joined = "\n\n".join(piece for _, piece in sorted(pieces)) + "\n"
    return joined if _clean(joined, lang) else text


def _text_of(data: bytes, node: tree_sitter.Node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", errors="replace")


def _member_given_alone(found: FunctionInfo | None, lang: str, name: str) -> bool:
    """Whether a method's version may be a class member given alone: nothing of its name
    is found, or only a statement of its short name (``double = (n) => n * 2;``, a class
    field's arrow function, which alone reads as an assignment of the arrow)."""
    if lang not in _CLASS_MEMBERS or "." not in name:
        return False
    return found is None or found.qualified_name == name.rpartition(".")[2]


def _method_alone(code: str, lang: str, name: str) -> ExtractResult | None:
    """A JavaScript or TypeScript method given alone, read inside a class of its owner's
    name (its text as given), else as a property of an object of that name (``double: (n)
    => n * 2``: the function, as its module's object holds it); None when the code is not
    one method of that name."""
    owner, _, method = name.rpartition(".")
    short = owner.rpartition(".")[2]
    for wrapped in (f"class {short} {{\n{code}\n}}\n",
                    f"const {short} = {{\n{code.strip().rstrip(';,')}\n}};\n"):
        infos = [i for i in parsing.functions(wrapped, lang) if "." in i.qualified_name]
        if infos and infos[0].name == method and not _first_error(parse(wrapped, lang).root_node):
            return ExtractResult.accepted(
                function_source(wrapped, infos[0], lang).rstrip() + "\n", ())
    return None


def parse_problem(code: str, lang: str) -> tuple[int, str | None] | None:
    """(1-based line, detail) where ``code`` first fails to parse (None: it parses), so a
    command that finds no function, or fewer than the file holds, can say why."""
    return _syntax_problem(code, lang, parse(code, lang).root_node)


def parse_problem_text(problem: tuple[int, str | None]) -> str:
    """``line 3 ('(' was never closed)``: a :func:`parse_problem` in words."""
    line, detail = problem
    return f"line {line}" + (f" ({detail})" if detail else "")


def unparsed_hint(code: str, lang: str) -> str:
    """``; the file does not parse at line 3 (...), which may hide it``: what a command
    adds when it finds no function of a name in a file that does not parse ("" when the
    file parses)."""
    problem = parse_problem(code, lang)
    if problem is None:
        return ""
    return f"; the file does not parse at {parse_problem_text(problem)}, which may hide it"


def _parse_reason(line: int, detail: str | None) -> str:
    return f"code does not parse: line {line}" + (f" ({detail})" if detail else "")


def _syntax_problem(code: str, lang: str, root: tree_sitter.Node) -> tuple[int, str | None] | None:
    """(1-based line, detail) of the first syntax error, or None when the code is clean.

    Tree-sitter is the gate (the metrics read its trees). For Python the interpreter's own
    parser is asked too: it names the line and the problem more precisely, and it catches
    the few things the grammar lets through (an ``elif`` with only a comment for a body).
    """
    error = _first_error(root)
    if lang == "python":
        try:
            pyast.parse(code)
        except SyntaxError as exc:
            return (exc.lineno or 1, exc.msg or None)
        except (ValueError, RecursionError, MemoryError):
            pass
    if error is None:
        return None
    return (error.start_point[0] + 1, None)


def _find(infos: list[FunctionInfo], name: str) -> FunctionInfo | None:
    """The exact qualified name; for a method (``C.m``) also ``m`` alone or in another class.

    A plain name only matches a top-level function, never a nested one or a method.
    """
    for info in infos:
        if info.qualified_name == name:
            return info
    if "." not in name:
        return None
    short = name.rsplit(".", 1)[-1]
    for info in infos:
        if info.qualified_name == short:
            return info
    for info in infos:
        if info.name == short and info.qualified_name.endswith("." + short):
            return info
    return None


def _first_error(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The first ERROR or MISSING node in document order (None when the tree is clean).
    Iterative: it goes down the first child that holds an error, however deep."""
    if not node.has_error:
        return None
    while not (node.is_error or node.is_missing):
        child = next((c for c in node.children if c.has_error), None)
        if child is None:
            return node
        node = child
    return node


def _imports(tree: tree_sitter.Tree, code: str, lang: str) -> tuple[str, ...]:
    if lang != "python":
        return ()
    data = to_bytes(code)
    return tuple(
        data[child.start_byte : child.end_byte].decode("utf-8", errors="replace")
        for child in tree.root_node.children
        if child.type in ("import_statement", "import_from_statement", "future_import_statement")
    )


def _dedent(text: str) -> str:
    return textwrap.dedent(text.replace("\r\n", "\n"))
