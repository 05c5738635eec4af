"""Examples that call the function inside code of their own: what they call, the source
the harness runs, the names they read (no run: tree-sitter only)."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_example_code import (
    MAX_SETUP,
    MAX_SOURCE_CHARS,
    Setup,
    binding,
    calls,
    example_source,
    incomplete,
    one_statement,
    reads,
    reads_one,
    top_level_names,
    without_namespace,
)


def test_an_expression_calls_the_function_by_name_or_on_a_namespace() -> None:
    assert calls("[...chunks([1, 2, 3], 2)]", "chunks", "javascript")
    assert calls("add(5)(10)", "add", "javascript")
    assert calls("pipe(xs, filter((x) => x > 1))", "filter", "javascript")
    assert calls("Text.slugify(s)", "slugify", "typescript")
    assert not calls("obj.method().slugify", "slugify", "javascript")  # a read, no call
    assert not calls("return add(1)", "add", "javascript")  # a statement, not an expression
    assert not calls("add(1); add(2)", "add", "javascript")  # two statements
    assert not calls("other(1)", "add", "javascript")


def test_the_source_declares_the_setup_and_returns_the_value() -> None:
    got = example_source("allPass(12, fns)", ["const fns = [(x) => x > 3];"], "javascript")
    assert got == ("(function () {\nconst fns = [(x) => x > 3];\nreturn (\nallPass(12, fns)\n"
                   ");\n});\n")
    assert example_source("(await load(1)).size", [], "javascript") == (
        "(async function () {\nreturn (\n(await load(1)).size\n);\n});\n")


def test_typescript_casts_are_stripped_and_run_time_typescript_refused() -> None:
    got = example_source('defaultTo("hello" as string | undefined, "world")', [], "typescript")
    assert got is not None and " as " not in got and '"hello"' in got
    assert reads(got) == {"defaultTo"}
    assert example_source("f(", [], "javascript") is None
    assert example_source("f(" + "1, " * MAX_SOURCE_CHARS + ")", [], "javascript") is None


def test_the_names_read_leave_out_globals_declarations_and_parameters() -> None:
    source = example_source("groupBy(items, (item) => Math.floor(item.n / k))",
                            ["const items = [{ n: 1 }];"], "javascript")
    assert source is not None and reads(source) == {"groupBy", "k"}


def test_declarations_and_assignments_bind_names_and_top_level_names() -> None:
    assert binding("const fns = [isEven, isPositive];", "javascript") == (
        ["fns"], "[isEven, isPositive]", True)
    assert binding("let n: number = 3", "typescript") == (["n"], "3", True)
    assert binding("result = toFilled(array, '*', 1, 4);", "javascript") == (
        ["result"], "toFilled(array, '*', 1, 4)", False)
    assert binding("const [a, b] = split(s);", "javascript") == (["a", "b"], "split(s)", True)
    assert binding("const a = 1, b = 2;", "javascript") == (["a", "b"], "", True)
    assert binding("f(1)", "javascript") is None
    assert binding("o.x = 1", "javascript") == ([], "", False)  # goes with ``o``
    assert binding("function Point(x) { this.x = x; }", "javascript") == (["Point"], "", True)
    assert binding("f().x = 1", "javascript") is None
    assert binding("const a = 1; f(a)", "javascript") is None
    module = ("import { identity } from './identity';\nexport enum Color { Red }\n"
              "export const label = (c: Color) => 'x';\nfunction helper() {}\n")
    assert top_level_names([module], "typescript") == {"identity", "Color", "label", "helper"}
    assert top_level_names(["function f() {}\nconst g = 1;", "function f() {}"],
                           "javascript") == {"f"}
    assert top_level_names([], "javascript") == frozenset()


def test_a_name_holding_the_functions_value_is_read() -> None:
    assert reads_one("console.log(result.length)", {"result"}, "javascript")
    assert not reads_one("other.length", {"result"}, "javascript")
    assert not reads_one("result", set(), "javascript")


def test_a_name_declared_again_replaces_its_declaration_and_a_call_is_kept() -> None:
    """es-toolkit's ``zipObject`` declares ``keys2`` twice in one example: the run takes
    the nearest declaration, as a reader does (both would not compile), and leaves out the
    lines that used the earlier one; an assignment keeps the declaration before it."""
    setup = Setup("zipObject", "javascript")
    for line in ["const keys2 = ['a', 'b', 'c'];", "const result2 = zipObject(keys2, [1]);",
                 "const keys2 = ['a', 'b'];", "result2 = zipObject(keys2, [2]);"]:
        bound = binding(line, "javascript")
        assert bound is not None
        setup.add(line, bound)
    assert setup.texts("result2") == ["const keys2 = ['a', 'b'];",
                                      "result2 = zipObject(keys2, [2]);"]
    assert setup.kept == {"result2": "zipObject(keys2, [2])"}


def test_an_examples_setup_keeps_its_nearest_lines() -> None:
    setup = Setup("f", "javascript")
    for k in range(MAX_SETUP + 8):
        line = f"const a{k} = {k};"
        bound = binding(line, "javascript")
        assert bound is not None
        setup.add(line, bound)
    last = MAX_SETUP + 7
    every = "[" + ", ".join(f"a{k}" for k in range(last + 1)) + "]"
    assert len(setup.texts(every)) == MAX_SETUP
    assert setup.texts(every)[-1] == f"const a{last} = {last};"


def test_the_setup_an_expression_gets_is_what_it_reads_and_so_on_back() -> None:
    """lodash's ``has`` example declares ``other`` with another function of the library:
    an example reading only ``object`` runs without it; a property set on a name goes with
    the name; a call of the function alone is a step a name it passed shows later."""
    setup = Setup("pullAll", "javascript")
    for line in ["var object = { 'a': 1 };", "var other = _.create(object);",
                 "function Box(v) { this.v = v; }", "Box.prototype.get = function () {};",
                 "var box = new Box(object);", "var array = ['a', 'b', 'a'];"]:
        bound = binding(line, "javascript")
        assert bound is not None
        setup.add(line, bound)
    assert setup.texts("has(object, 'a')") == ["var object = { 'a': 1 };"]
    assert setup.texts("box.get()") == [
        "var object = { 'a': 1 };", "function Box(v) { this.v = v; }",
        "Box.prototype.get = function () {};", "var box = new Box(object);"]
    setup.step("pullAll(array, ['a'])")
    setup.step("other(array)")  # not the function: no step
    assert setup.texts("array") == ["var array = ['a', 'b', 'a'];", "pullAll(array, ['a']);"]
    assert setup.kept == {"array": "pullAll(array, ['a']); array"}


def test_a_call_on_a_namespace_the_run_does_not_give_calls_the_function() -> None:
    assert without_namespace("_.chunk(['a', 'b'], 2)", "chunk", "javascript", {"chunk"}) == \
        "chunk(['a', 'b'], 2)"
    assert without_namespace("var t = R.add(R.add(1, 2), 3);", "add", "javascript",
                             {"add"}) == "var t = add(add(1, 2), 3);"
    # the module's own namespace, another function of the library, a read: as written
    assert without_namespace("utils.slug(s)", "slug", "javascript", {"slug", "utils"}) == \
        "utils.slug(s)"
    assert without_namespace("_.negate(_.identity)", "chunk", "javascript", {"chunk"}) == \
        "_.negate(_.identity)"
    assert without_namespace("R.add", "add", "javascript", {"add"}) == "R.add"
    assert without_namespace("a.b.add(1)", "add", "javascript", {"add"}) == "a.b.add(1)"


def test_a_statement_begun_on_one_line_is_incomplete() -> None:
    assert incomplete("var users = [", "javascript")
    assert incomplete("{ 'user': 'barney' },", "javascript")
    assert not incomplete("var users = [\n{ 'user': 'barney' }\n];", "javascript")
    assert not incomplete("_.chunk(['a'], 2); // => [['a']]", "javascript")
    assert one_statement("var users = [\n{ 'user': 'barney' }, // first\n];", "javascript")
    assert not one_statement("Alternatively:\nconst xs = ['a'];", "javascript")  # prose
    assert not one_statement("var a = 1;\nvar b = 2;", "javascript")
