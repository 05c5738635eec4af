"""Languages, parsers, functions and their qualified names, syntax errors."""

from __future__ import annotations

import threading

import pytest
import tree_sitter

from codequorum.core.errors import UnknownLanguageError, UserError
from codequorum.core.parsing import (
    LANGUAGES,
    FunctionInfo,
    function_at,
    function_by_name,
    functions,
    get_language,
    get_parser,
    language_from_path,
    member_form,
    normalize_language,
    parse,
    syntax_errors,
)

# --------------------------------------------------------------------- languages


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("Python", "python"),
        ("py", "python"),
        ("js", "javascript"),
        ("jsx", "javascript"),
        ("ts", "typescript"),
        ("tsx", "tsx"),
        ("c++", "cpp"),
        ("cxx", "cpp"),
        ("golang", "go"),
        ("rs", "rust"),
        (" SQL ", "sql"),
        ("java", "java"),
        ("c", "c"),
    ],
)
def test_normalize_language(alias: str, canonical: str) -> None:
    assert normalize_language(alias) == canonical


def test_unknown_language_lists_known_ones() -> None:
    with pytest.raises(UnknownLanguageError) as err:
        normalize_language("cobol")
    message = str(err.value)
    assert "cobol" in message and "\n" not in message
    assert all(lang in message for lang in LANGUAGES)
    assert isinstance(err.value, UserError)


@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("a/b.py", "python"),
        ("x.PYI", "python"),
        ("q.sql", "sql"),
        ("m.mjs", "javascript"),
        ("c.jsx", "javascript"),
        ("t.ts", "typescript"),
        ("v.tsx", "tsx"),
        ("J.java", "java"),
        ("g.go", "go"),
        ("r.rs", "rust"),
        ("h.h", "c"),
        ("k.c", "c"),
        ("k.cc", "cpp"),
        ("k.hpp", "cpp"),
    ],
)
def test_language_from_path(path: str, lang: str) -> None:
    assert language_from_path(path) == lang


def test_unknown_extension() -> None:
    with pytest.raises(UnknownLanguageError, match=r"\.cob"):
        language_from_path("prog.cob")
    with pytest.raises(UnknownLanguageError, match="none"):
        language_from_path("Makefile")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_parses_with_its_pinned_grammar(lang: str) -> None:
    language = get_language(lang)
    assert isinstance(language, tree_sitter.Language)
    tree = parse("x", lang)
    assert tree.root_node.end_byte == 1
    assert get_parser(lang) is get_parser(lang)  # cached in this thread


def test_parsers_are_per_thread() -> None:
    mine = get_parser("python")
    theirs: list[tree_sitter.Parser] = []
    t = threading.Thread(target=lambda: theirs.append(get_parser("python")))
    t.start()
    t.join()
    assert theirs and theirs[0] is not mine


def test_grammars_are_the_pinned_versions() -> None:
    assert parse("def f(): pass", "python").root_node.type == "module"
    assert parse("SELECT 1;", "sql").root_node.type == "program"
    assert parse("<a/>", "tsx").root_node.type == "program"
    assert parse("<a/>", "typescript").root_node.has_error  # TS proper has no JSX


def test_odd_inputs_parse_without_raising() -> None:
    junk = bytes(range(256)) * 64 + b"\xff\xfe\x00"
    for lang in LANGUAGES:
        assert parse("", lang).root_node.end_byte == 0
        tree = parse(junk, lang)
        assert tree.root_node.end_byte == len(junk)
        assert syntax_errors(tree), lang  # junk is reported, not raised
        found = functions(junk, lang)
        assert all(isinstance(f, FunctionInfo) for f in found)
    assert parse("x = '\ud800'", "python").root_node.end_byte > 0  # lone surrogate


def test_large_and_deep_inputs() -> None:
    unit = "def f{i}(a):\n    return [x * 2 for x in a if x]\n\n"
    big = "".join(unit.format(i=i) for i in range(20000))  # ~1 MB
    assert len(big) > 1_000_000
    found = functions(big, "python")
    assert len(found) == 20000
    assert found[-1].qualified_name == "f19999"
    deep = "x = " + "(" * 20000 + "1" + ")" * 20000 + "\n"
    assert syntax_errors(parse(deep, "python")) == []
    nested = "".join("    " * i + f"def f{i}():\n" for i in range(200)) + "    " * 200 + "pass\n"
    names = [f.qualified_name for f in functions(nested, "python")]
    assert names[-1] == ".".join(f"f{i}" for i in range(200))


# --------------------------------------------------------------------- syntax errors


def test_syntax_errors() -> None:
    assert syntax_errors(parse("def f(x):\n    return x\n", "python")) == []
    errs = syntax_errors(parse("def f(:\n    return (1\n", "python"))
    kinds = [k for _, _, k in errs]
    assert "error" in kinds
    assert any(k.startswith("missing ") for k in kinds)
    for start, end, _ in errs:
        assert start <= end
        assert all(isinstance(v, int) for v in (*start, *end))
    missing = syntax_errors(parse("int f() { return 1 }", "c"))
    assert missing == [((0, 18), (0, 18), "missing ;")]


# --------------------------------------------------------------------- functions

PY = '''import x

@dec
def outer(a):
    """Doc line.

    More.
    """
    def inner():
        return 1
    return inner

class K:
    def m(self):
        \'\'\'M doc\'\'\'
        def helper(): pass
    async def am(self): pass
    class N:
        def deep(self): pass
'''


def names(code: str, lang: str) -> list[tuple[str, str]]:
    return [(f.qualified_name, f.kind) for f in functions(code, lang)]


def test_python_functions() -> None:
    found = functions(PY, "python")
    assert [(f.qualified_name, f.kind) for f in found] == [
        ("outer", "function"),
        ("outer.inner", "function"),
        ("K.m", "method"),
        ("K.m.helper", "function"),
        ("K.am", "method"),
        ("K.N.deep", "method"),
    ]
    outer = found[0]
    assert outer.name == "outer"
    assert outer.signature == "def outer(a):"
    assert outer.docstring == "Doc line.\n\nMore."
    assert outer.start_point == (3, 0)  # the decorator is not part of it
    assert outer.name_start_point == (3, 4) and outer.name_end_point == (3, 9)
    assert outer.body_start_point == (4, 4)
    assert outer.end_point == (10, 16)
    assert outer.text == PY[outer.start_byte : outer.end_byte]
    assert outer.text.startswith("def outer(a):") and outer.text.endswith("return inner")
    assert found[1].docstring is None
    assert found[2].docstring == "M doc"
    assert found[4].signature == "async def am(self):"


def test_function_at_and_by_name() -> None:
    assert function_at(PY, "python", 9, 10) is not None
    assert function_at(PY, "python", 9, 10).qualified_name == "outer.inner"  # type: ignore[union-attr]
    assert function_at(PY, "python", 10, 4).qualified_name == "outer"  # type: ignore[union-attr]
    assert function_at(PY, "python", 0, 3) is None
    assert function_at(PY, "python", 12, 3) is None  # class line, no function
    # end of the function still counts as inside
    end = functions(PY, "python")[0].end_point
    assert function_at(PY, "python", *end).qualified_name == "outer"  # type: ignore[union-attr]
    assert function_by_name(PY, "python", "K.m.helper").start_point == (15, 8)  # type: ignore[union-attr]
    assert function_by_name(PY, "python", "deep").qualified_name == "K.N.deep"  # type: ignore[union-attr]
    assert function_by_name(PY, "python", "nope") is None


def test_byte_columns_after_multibyte_text() -> None:
    code = "s = 'é'; \ndef f(): pass\nclass Ü:\n    def ü(self): pass\n"
    found = functions(code, "python")
    assert [f.qualified_name for f in found] == ["f", "Ü.ü"]
    m = found[1]
    raw = code.encode()
    line = raw.split(b"\n")[3]
    assert m.name_start_point == (3, line.index("ü".encode()))
    assert function_at(code, "python", 3, m.name_start_point[1]) == m


def test_javascript_functions() -> None:
    code = """// doc a
// doc b
function f(a) { return 1 }
class K { m(x) { return x } static s() {} #p() {} }
const g = (a) => a + 1, h = 2;
const single = async (a) => { return a };
var obj = { om() {}, pk: function() {}, ar: () => 1 };
a.b.c = function() {};
/** exported */
export const e = async function named() {};
class F { fld = () => 1; }
[1].map(x => x);
function outer() { function inner() {} const arrow = () => 0; }
"""
    assert names(code, "javascript") == [
        ("f", "function"),
        ("K.m", "method"),
        ("K.s", "method"),
        ("K.#p", "method"),
        ("g", "function"),
        ("single", "function"),
        ("obj.om", "method"),
        ("obj.pk", "method"),
        ("obj.ar", "method"),
        ("a.b.c", "function"),
        ("e", "function"),
        ("F.fld", "method"),
        ("outer", "function"),
        ("outer.inner", "function"),
        ("outer.arrow", "function"),
    ]
    found = {f.qualified_name: f for f in functions(code, "javascript")}
    assert found["f"].docstring == "doc a\ndoc b"
    assert found["e"].docstring == "exported"
    assert found["single"].text == "const single = async (a) => { return a };"
    assert found["single"].signature == "const single = async (a) =>"
    assert found["g"].text == "g = (a) => a + 1"  # two declarators: just this one
    assert found["K.m"].docstring is None


def test_an_overloaded_typescript_function_s_doc_holds_its_signatures_comments() -> None:
    """remeda writes each form's JSDoc (and its ``@example``) above its overload signature,
    none above the implementation: the implementation's doc holds them, in order."""
    code = ("/** Data first.\n * @example concat([1], [2]) // [1, 2] */\n"
            "export function concat(a: number[], b: number[]): number[];\n"
            "// data last\nexport function concat(b: number[]): (a: number[]) => number[];\n"
            "export function concat(...args: unknown[]): unknown { return args; }\n"
            "/** Other. */\nfunction other(): void;\nfunction g(): void {}\n")
    found = {f.name: f for f in functions(code, "typescript")}
    assert found["concat"].docstring == ("Data first.\n@example concat([1], [2]) // [1, 2]"
                                         "\n\ndata last")
    assert found["g"].docstring is None


def test_typescript_and_tsx_functions() -> None:
    ts = "abstract class A { abstract f(): void; g(x: number): string { return '' } }\n"
    ts += "function h<T>(t: T): T { return t }\n"
    assert names(ts, "typescript") == [("A.g", "method"), ("h", "function")]
    assert functions(ts, "typescript")[1].signature == "function h<T>(t: T): T"
    tsx = "const C = (p: P) => <div>{p.x}</div>;\nfunction D() { return <span/> }\n"
    assert names(tsx, "tsx") == [("C", "function"), ("D", "function")]


def test_typescript_namespaces_name_their_functions() -> None:
    ts = """export namespace Text {
  /** @example slugify("Hello World") // => "hello-world" */
  export function slugify(s: string): string { return s.toLowerCase(); }
  export namespace Inner { export const f = (x: number) => x; }
}
namespace A.B { export function g() { return 1 } export class K { m() { return 2 } } }
module M { function h() { function inner() {} } }
declare namespace D { function d(): void; }
declare module "pkg" { function q() {} }
"""
    assert names(ts, "typescript") == [
        ("Text.slugify", "function"),
        ("Text.Inner.f", "function"),
        ("A.B.g", "function"),
        ("A.B.K.m", "method"),
        ("M.h", "function"),
        ("M.h.inner", "function"),
        ("q", "function"),
    ]
    found = function_by_name(ts, "typescript", "Text.slugify")
    assert found is not None
    assert found.docstring == '@example slugify("Hello World") // => "hello-world"'
    assert function_at(ts, "typescript", 2, 20) == found
    assert function_by_name(ts, "typescript", "slugify") == found
    spaces = {f.qualified_name: f.namespace for f in functions(ts, "typescript")}
    assert spaces == {"Text.slugify": "Text", "Text.Inner.f": "Text.Inner", "A.B.g": "A.B",
                      "A.B.K.m": "A.B", "M.h": "M", "M.h.inner": "M", "q": ""}
    assert names("namespace N { const o = { m() {} }; }", "tsx") == [("N.o.m", "method")]


def test_java_functions() -> None:
    code = """class A {
  /** Adds one. */
  @Override public int f(int x) { return x + 1; }
  A() {}
  interface I { void g(); default void h() {} }
}
"""
    assert names(code, "java") == [("A.f", "method"), ("A.A", "method"), ("A.I.h", "method")]
    f = functions(code, "java")[0]
    assert f.docstring == "Adds one."
    assert f.signature == "@Override public int f(int x)"


def test_go_functions() -> None:
    code = "package m\n// Doc\n// more\nfunc (t *T[K]) M(a int) int { return a }\nfunc F() {}\n"
    found = functions(code, "go")
    assert [(f.qualified_name, f.kind) for f in found] == [("T.M", "method"), ("F", "function")]
    assert found[0].docstring == "Doc\nmore"
    assert found[0].name_start_point == (3, 15)
    assert found[1].docstring is None


def test_rust_functions() -> None:
    code = """/// doc
#[inline]
fn f() { fn nested() {} }
impl<T> Foo<T> { fn m(&self) {} }
impl Tr for crate::Bar { fn n() {} }
trait Q { fn d() {} fn e(); }
"""
    assert names(code, "rust") == [
        ("f", "function"),
        ("f.nested", "function"),
        ("Foo.m", "method"),
        ("Bar.n", "method"),
        ("Q.d", "method"),
    ]
    assert functions(code, "rust")[0].docstring == "doc"


def test_c_and_cpp_functions() -> None:
    c = "/* C doc */\nstatic int *pf(void) { return 0; }\n"
    c += "int main(void) { return 0; }\nint g(void);\n"
    found = functions(c, "c")
    assert [(f.qualified_name, f.kind) for f in found] == [("pf", "function"), ("main", "function")]
    assert found[0].docstring == "C doc"
    assert found[0].signature == "static int *pf(void)"
    cpp = """int A::m(int a) const { return a; }
class B { void in() {} ~B() {} };
B::~B() {}
template<class T> T g(T t) { return t; }
"""
    assert names(cpp, "cpp") == [
        ("A.m", "method"),
        ("B.in", "method"),
        ("B.~B", "method"),
        ("B.~B", "method"),
        ("g", "function"),
    ]
    assert functions(cpp, "cpp")[0].name == "m"


def test_sql_functions() -> None:
    code = (
        "-- adds\nCREATE FUNCTION add(a integer) RETURNS integer AS $$ SELECT a $$ LANGUAGE sql;\n"
    )
    found = functions(code, "sql")
    assert [(f.qualified_name, f.kind) for f in found] == [("add", "function")]
    assert found[0].docstring == "adds"


def test_functions_in_broken_code() -> None:
    code = "def ok(a):\n    return a\n\ndef broken(:\n    pass\n\ndef later():\n    return (1\n"
    got = [f.qualified_name for f in functions(code, "python")]
    assert "ok" in got and "later" in got
    assert function_at(code, "python", 1, 5).qualified_name == "ok"  # type: ignore[union-attr]


def test_nesting_is_told_without_recursion() -> None:
    from codequorum.core.parsing import nests_deeper

    flat = parse("def f(x):\n" + "    x = x + 1\n" * 5000, "python")
    assert not nests_deeper(flat, 20)
    chain = parse("def f():\n    return 1" + " + 1" * 100_000 + "\n", "python")
    assert nests_deeper(chain, 500) and not nests_deeper(chain, 200_000)
    nested = parse("x = " + "(" * 30 + "1" + ")" * 30 + "\n", "python")
    depth = 4 + 30  # module, expression statement, assignment, then the parentheses
    assert not nests_deeper(nested, depth + 2) and nests_deeper(nested, depth - 2)


def test_parse_versions_keeps_small_trees_and_names_every_bad_version() -> None:
    from codequorum.core.limits import InputLimitError
    from codequorum.core.parsing import parse_versions

    small, large = "def f():\n    return 1\n", "def f(x):\n" + "    x = x + 1\n" * 2000
    trees = parse_versions([small, large, small], "python", keep_nodes=1000, keep_total=10**6)
    assert trees[0] is trees[2] and trees[0] is not None and trees[1] is None
    deep = "def f():\n    return " + "[" * 600 + "]" * 600 + "\n"
    huge = "x = 1\n" * 200_000
    with pytest.raises(InputLimitError) as refused:
        parse_versions([small, deep, huge, deep], "python", keep_nodes=0, keep_total=0)
    assert str(refused.value) == "not scored: version 3 is 1.1 MB of code (at most 1 MB)"
    with pytest.raises(InputLimitError) as refused:
        parse_versions([small, deep, small], "python", keep_nodes=0, keep_total=0)
    assert str(refused.value) == ("not scored: version 2 is nested more than 500 levels "
                                  "deep (the limit)")


#: A module over the size parsed without a deadline, as zod's ``src/v4/core/util.ts``
#: (48 KB) is, whose imports the JavaScript module view reads by their nodes' text.
_BIG_MODULE = ('import { globalConfig } from "./core.js";\n'
               + "".join(f"export function f{i}(x: number): number {{\n  return x + {i};\n}}\n"
                         for i in range(400)))


def test_a_tree_parsed_under_a_deadline_gives_its_nodes_text() -> None:
    """Reading a node's ``text`` in a tree parsed through a callback crashed the process
    (``check --dynamic`` on a TypeScript file over 8 KB ended with SIGSEGV); run in a
    child process, so a crash is a failure here, not the end of the test run."""
    import subprocess
    import sys

    from codequorum.core.parsing import QUICK_PARSE_BYTES

    assert len(_BIG_MODULE) > QUICK_PARSE_BYTES
    script = ("import sys\n"
              "from codequorum.core.parsing import parse\n"
              "from codequorum.ingest.js_module_view import specifiers\n"
              "text = sys.stdin.read()\n"
              "node = parse(text, 'typescript').root_node.children[0]\n"
              "print(node.text.decode(), specifiers(text, 'typescript'))\n")
    done = subprocess.run([sys.executable, "-c", script], input=_BIG_MODULE,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == ('import { globalConfig } from "./core.js"; '
                                   "['./core.js']")


def test_the_comment_above_a_property_or_an_assignment_is_its_functions_docstring() -> None:
    """``double: (n) => n * 2`` in an object and ``exports.pad2 = function ...``: the
    comment stands above the property or the statement, not above the function."""
    src = ("export const utils = {\n  /** @example utils.double(3) // => 6 */\n"
           "  double: (n) => n * 2,\n};\n/** Pads. */\n"
           "exports.pad2 = function (n) { return n; };\n")
    assert [(f.qualified_name, f.docstring) for f in functions(src, "javascript")] == [
        ("utils.double", "@example utils.double(3) // => 6"), ("exports.pad2", "Pads.")]


def test_the_comment_above_a_declaration_wrapping_the_function_in_calls_is_its_own() -> None:
    """Ramda's ``var add = _curry2(function add(a, b) {...})`` and React's ``export const
    Button = memo(forwardRef(function Button(...) {...}))``: the comment above the
    declaration is the function's when the declaration gives it its own name; a callback
    named otherwise (``reduce(function sum ...)``) gets none."""
    src = ("/** Adds.\n * R.add(2, 3); //=> 5 */\nvar add = _curry2(function add(a, b) {\n"
           "  return a + b;\n});\n/** A button. */\nexport const Button = memo(forwardRef("
           "function Button(props, ref) {\n  return props.label;\n}));\n/** The sum. */\n"
           "const total = items.reduce(function sum(a, b) { return a + b; }, 0);\n")
    assert [(f.qualified_name, f.docstring) for f in functions(src, "javascript")] == [
        ("add", "Adds.\nR.add(2, 3); //=> 5"), ("Button", "A button."), ("sum", None)]


def test_a_member_given_alone_reads_in_a_class_or_an_object() -> None:
    assert member_form("bump(by) { return by; }", "javascript") == (
        "(class __CodequorumVersion {\nbump(by) { return by; }\n})")
    assert member_form("n: 1, double: (n: number) => n * 2", "typescript") == (
        "({\nn: 1, double: (n: number) => n * 2\n})")
    assert member_form("function f() {}", "javascript") is None  # parses alone
    assert member_form("bump(by { return by; }", "javascript") is None  # broken either way
    assert member_form("def f(:", "python") is None
