"""The cases of a table-driven JavaScript test."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_each import MAX_CASES, case_bindings
from codequorum.behaviour.runtimes.js_literals import node_text
from codequorum.core.parsing import parse


def _bindings(source: str, grammar: str = "typescript") -> dict[str, list[dict[str, object]]]:
    root = parse(source, grammar).root_node
    texts: dict[tuple[int, int], str] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            texts[(node.start_byte, node.end_byte)] = node_text(node)
        stack.extend(node.children)
    return {texts[k]: v for k, v in case_bindings(root).items() if texts[k].startswith("add")}


def test_array_rows_bind_the_parameters_in_order() -> None:
    found = _bindings("test.each([[1, 1, 2], [2, 3, 5], [x, 1, 1]])('add(%i, %i)', "
                      "(a, b, want) => {\n  expect(add(a, b)).toBe(want);\n});\n")
    assert found == {"add(a, b)": [{"a": 1, "b": 1, "want": 2}, {"a": 2, "b": 3, "want": 5},
                                   {"b": 1, "want": 1}]}


def test_object_rows_bind_a_destructured_parameter_and_single_values_one() -> None:
    found = _bindings(
        "it.each([{ a: 1, b: 2, want: 3 }, { 'a': 0, b: 0, want: 0 }])('adds', "
        "({ a, b, want }) => expect(add(a, b)).toBe(want));\n"
        "describe.each([4, 5])('n %i', function (n) { it('x', () => { add(n, n); }); });\n")
    assert found == {"add(a, b)": [{"a": 1, "b": 2, "want": 3}, {"a": 0, "b": 0, "want": 0}],
                     "add(n, n)": [{"n": 4}, {"n": 5}]}


def test_a_skipped_table_binds_nothing() -> None:
    assert _bindings("test.skip.each([[1, 2]])('x', (a, b) => add(a, b));\n"
                     "test('plain', () => add(1, 2));\n") == {}


def test_a_tagged_template_table_binds_by_its_header() -> None:
    found = _bindings("test.each`\n  a    | b    | want\n  ${1} | ${2} | ${3}\n"
                      "  ${'x'} | ${y} | ${'z'}\n`('$a + $b', ({ a, b, want }) => {\n"
                      "  expect(add(a, b)).toBe(want);\n});\n"
                      "test.each`\n  a | b\n  ${1}\n`('broken', ({ a, b }) => add(a, b, 0));\n"
                      "test.each`\n  a | b\n  ${1} | ${2}\n`('spread', (a, b) => add(a, b, 1));\n")
    assert found == {"add(a, b)": [{"a": 1, "b": 2, "want": 3}, {"a": "x", "want": "z"}],
                     "add(a, b, 0)": []}


def test_rows_are_bounded() -> None:
    rows = ", ".join(f"[{i}]" for i in range(MAX_CASES + 10))
    found = _bindings(f"test.each([{rows}])('x', (a) => add(a));", "javascript")
    assert len(found["add(a)"]) == MAX_CASES


def test_a_named_table_a_for_of_loop_and_for_each_give_rows() -> None:
    found = _bindings(
        "const CASES = [[1, 2], [3, 4]];\n"
        "test.each(CASES)('add', (a, want) => { expect(add(a, 1)).toBe(want); });\n"
        "test('loop', () => {\n  for (const [n, want] of CASES) expect(add(n, 2)).toBe(want);\n"
        "  for (const k in CASES) add(k, 3);\n"
        "  [{ x: 5 }, { x: 6 }].forEach(({ x }) => add(x, 4));\n"
        "  CASES.forEach((row) => add(row, 5));\n});\n")
    assert found == {
        "add(a, 1)": [{"a": 1, "want": 2}, {"a": 3, "want": 4}],
        "add(n, 2)": [{"n": 1, "want": 2}, {"n": 3, "want": 4}],
        "add(x, 4)": [{"x": 5}, {"x": 6}],
        "add(row, 5)": [{"row": [1, 2]}, {"row": [3, 4]}]}


def test_an_object_table_in_a_describe_gives_a_row_per_key_with_its_value() -> None:
    """ufo's tests: ``const tests = {input: output}`` inside a ``describe``, then ``for
    (const input in tests)``; and a list of rows read by their keys (``t.input``)."""
    found = _bindings(
        "describe('add', () => {\n  const tests = { 'a': 'A', '1': 'one' };\n"
        "  for (const input in tests) {\n"
        "    test(input, () => expect(add(input)).toBe(tests[input]));\n"
        "  }\n  const rows = [{ input: 1, out: 2 }, { input: 3, out: 4 }];\n"
        "  for (const t of rows) expect(add(t.input, 0)).toBe(t.out);\n});\n")
    table = {"$": "object", "v": [["1", "one"], ["a", "A"]]}
    assert found == {
        "add(input)": [{"input": "1", "tests": table}, {"input": "a", "tests": table}],
        "add(t.input, 0)": [{"t": {"$": "object", "v": [["input", 1], ["out", 2]]}},
                            {"t": {"$": "object", "v": [["input", 3], ["out", 4]]}}]}


def test_a_table_name_is_the_declaration_nearest_around_the_test() -> None:
    """ufo's tests declare ``const tests`` in each ``describe``: each loop reads its own;
    a name the file's top declares is shadowed inside; a block that declares it twice
    names none."""
    found = _bindings(
        "const CASES = [[0]];\nfor (const [n] of CASES) add(n, 0);\n"
        "describe('a', () => { const CASES = [[1]]; for (const [n] of CASES) add(n, 1); });\n"
        "describe('b', () => { const CASES = [[2]]; for (const [n] of CASES) add(n, 2); });\n"
        "describe('c', () => { var T = [[3]]; var T = [[4]]; for (const [n] of T) add(n, 3); });\n")
    assert found == {"add(n, 0)": [{"n": 0}], "add(n, 1)": [{"n": 1}], "add(n, 2)": [{"n": 2}]}
