"""What a JavaScript or TypeScript test file's assertions say calls give."""

from __future__ import annotations

from codequorum.behaviour.expectations import Expectation
from codequorum.behaviour.runtimes.js_expectations import JsStated, expectations, key
from codequorum.behaviour.runtimes.js_literals import node_text
from codequorum.core.parsing import parse


def _stated(source: str, grammar: str = "typescript") -> dict[str, JsStated]:
    """What the assertions of ``source`` state, by the text of the call they state it of."""
    root = parse(source, grammar).root_node
    calls: dict[tuple[int, int], str] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            calls[key(node)] = node_text(node)
        stack.extend(node.children)
    return {calls[k]: v for k, v in expectations(root).items()}


def _said(source: str, grammar: str = "typescript") -> dict[str, Expectation]:
    resolved = {k: v.resolve() for k, v in _stated(source, grammar).items()}
    return {k: v for k, v in resolved.items() if v is not None}


def _shaped(source: str) -> dict[str, tuple[tuple[str, str] | None, Expectation | None]]:
    return {k: (v.shape, v.resolve()) for k, v in _stated(source, "javascript").items()}


def test_jest_equalities_give_expected_values() -> None:
    said = _said("expect(f(1)).toBe(2);\nexpect(f('a')).toEqual(['a']);\n"
                 "expect(f(3)).toStrictEqual({ b: 1 });\nexpect(await f(4)).toBe(true);\n"
                 "expect(f(5)).toBeNull();\nexpect(f(6)).toBeUndefined();\n")
    assert said["f(1)"] == Expectation(2) and said["f('a')"] == Expectation(["a"])
    assert said["f(3)"] == Expectation({"$": "object", "v": [["b", 1]]})
    assert said["f(4)"] == Expectation(True) and said["f(5)"] == Expectation(None)
    assert said["f(6)"] == Expectation({"$": "undefined"})
    assert set(said) == {"f(1)", "f('a')", "f(3)", "f(4)", "f(5)", "f(6)"}


def test_nan_is_expected_as_nan() -> None:
    said = _said("expect(f(0)).toBeNaN();")
    assert said == {"f(0)": Expectation({"$": "number", "v": "NaN"})}


def test_what_says_nothing_is_left_out() -> None:
    said = _said("expect(f(1)).not.toBe(2);\nexpect(f(2)).toBe(x);\nexpect(f(3)).toBeNaN(1);\n"
                 "expect(f(4)).toMatchSnapshot();\nexpect(g(f(5))).toBe(1);\n"
                 "expect(() => f(6)).not.toThrow();\nexpect(() => { f(7); f(8); }).toThrow();\n")
    assert said == {"g(f(5))": Expectation(1)}


#: How ``toMatch`` tests: a string is a part of the value, as Jest reads it; else a pattern.
MATCH = "((p, v) => (typeof p === 'string' ? v.includes(p) : p.test(v)))"


def test_other_matchers_say_their_value_through_an_expression_of_it() -> None:
    """``toHaveLength(2)``: ``(f(1)).length`` is 2; ``toBeTruthy()``, ``assert.ok`` and
    ``assert(...)``: ``!!(...)`` is true; a comparison, ``toContain``, ``toBeCloseTo``,
    ``toMatch`` and ``toBeDefined`` likewise (the matcher's argument written in)."""
    source = ("expect(f(1)).toHaveLength(2);\nexpect(f(2)).toBeTruthy();\n"
              "expect(f(3)).toBeFalsy();\nexpect(f(4)).toContain('a');\n"
              "expect(f(5)).toBeGreaterThan(1);\nexpect(f(6)).toBeCloseTo(0.3, 5);\n"
              "expect(f(7)).toMatch(/^a+$/);\nexpect(f(8)).toMatch('b');\n"
              "expect(f(9)).toBeDefined();\nassert.ok(f(10));\nassert(f(11));\n")
    shaped = _shaped(source)
    true = Expectation(True)
    assert shaped == {
        "f(1)": (("(", ").length"), Expectation(2)), "f(2)": (("!!(", ")"), true),
        "f(3)": (("!!(", ")"), Expectation(False)), "f(4)": (("(", ").includes('a')"), true),
        "f(5)": (("(", ") > (1)"), true),
        "f(6)": (("Math.abs((", ") - (0.3)) < Math.pow(10, -(5)) / 2"), true),
        "f(7)": ((f"{MATCH}(/^a+$/, ", ")"), true), "f(8)": ((f"{MATCH}('b', ", ")"), true),
        "f(9)": (("(", ") !== undefined"), true), "f(10)": (("!!(", ")"), true),
        "f(11)": (("!!(", ")"), true)}


def test_a_function_that_must_throw_names_its_class() -> None:
    said = _said("expect(() => format(NaN)).toThrow();\n"
                 "expect(() => { parse(''); }).toThrowError(TypeError);\n"
                 "expect(function () { parse('x') }).to.throw('bad');\n"
                 "assert.throws(() => ms(-1), RangeError);\n"
                 "expect(() => chunk([1], 0)).toThrowErrorMatchingInlineSnapshot(`[Error]`);\n")
    assert said == {"format(NaN)": Expectation(raises=""), "chunk([1], 0)": Expectation(raises=""),
                    "parse('')": Expectation(raises="TypeError"),
                    "parse('x')": Expectation(raises=""),
                    "ms(-1)": Expectation(raises="RangeError")}


def test_chai_and_node_assert_read_their_chains() -> None:
    said = _said("expect(f(1)).to.equal(2);\nexpect(f(2)).to.deep.equal([1]);\n"
                 "expect(f(3)).to.be.eql('c');\nassert.strictEqual(f(4), 4);\n"
                 "assert.deepStrictEqual([5], f(5));\nt.is(f(6), 'six');\n"
                 "assert.strict.equal(f(7), 7);\nassert.notStrictEqual(f(8), 8);\n", "javascript")
    assert said == {"f(1)": Expectation(2), "f(2)": Expectation([1]), "f(3)": Expectation("c"),
                    "f(4)": Expectation(4), "f(5)": Expectation([5]), "f(6)": Expectation("six"),
                    "f(7)": Expectation(7)}


def test_the_expected_value_is_read_with_a_rows_bindings() -> None:
    root = parse("expect(add(a, b)).toBe(want);", "javascript").root_node
    [stated] = expectations(root).values()
    assert stated.resolve() is None
    assert stated.resolve({"want": 3}) == Expectation(3)


def test_a_name_holding_a_calls_result_is_that_call() -> None:
    said = _said("test('a', () => {\n  const result = f(2);\n  expect(result).toBe(4);\n"
                 "  let other = await f(3);\n  other.push(1);\n  expect(other).toEqual([1]);\n"
                 "  const value = f(4);\n  assert.strictEqual(value, 'x');\n"
                 "  expect(value).not.toBeNull();\n});\n"
                 "test('b', () => { expect(result).toBe(9); });\n")
    assert said == {"f(2)": Expectation(4), "f(4)": Expectation("x")}


def test_a_copy_of_the_result_is_the_result() -> None:
    """``structuredClone(f(x))`` compared says what ``f(x)`` gives; another wrapper does not."""
    said = _said("assert.deepStrictEqual(structuredClone(f(1)), [1]);\n"
                 "expect(structuredClone(structuredClone(f(2)))).toEqual({ a: 2 });\n"
                 "expect(JSON.stringify(f(3))).toBe('3');\n"
                 "expect(structuredClone(f(4), opts)).toEqual(4);\n", "javascript")
    assert said["f(1)"] == Expectation([1])
    assert said["f(2)"] == Expectation({"$": "object", "v": [["a", 2]]})
    assert "f(3)" not in said and "f(4)" not in said
    assert said["JSON.stringify(f(3))"] == Expectation("3")


def test_chai_s_properties_and_methods_say_what_jest_s_matchers_say() -> None:
    """``expect(f(1)).to.be.true``, ``.to.be.null``, ``.to.be.ok``, ``.to.have.lengthOf(2)``,
    ``.to.include('a')``, ``.to.be.above(3)``, ``.to.be.closeTo(1, 0.1)``; a chain with
    ``not`` says nothing; a name holding the result is the call."""
    source = ("expect(f(1)).to.be.true;\nexpect(f(2)).to.be.null;\nexpect(f(3)).to.be.ok;\n"
              "expect(f(4)).to.have.lengthOf(2);\nexpect(f(5)).to.include('a');\n"
              "expect(f(6)).to.be.above(3);\nexpect(f(7)).to.be.closeTo(1, 0.1);\n"
              "expect(f(8)).to.not.be.true;\n"
              "test('x', () => {\n  const r = f(9);\n  expect(r).to.be.false;\n});\n")
    said = _shaped(source)
    true = Expectation(True)
    assert said == {
        "f(1)": (None, true), "f(2)": (None, Expectation(None)), "f(3)": (("!!(", ")"), true),
        "f(4)": (("(", ").length"), Expectation(2)), "f(5)": (("(", ").includes('a')"), true),
        "f(6)": (("(", ") > (3)"), true),
        "f(7)": (("Math.abs((", ") - (1)) <= (0.1)"), true), "f(9)": (None, Expectation(False))}


def test_an_inline_snapshot_that_reads_back_as_a_literal_is_the_expected_value() -> None:
    """Jest's and Vitest's ``toMatchInlineSnapshot``: a string, ``null``, an array or a
    plain object as Jest prints them (indented to the call, trailing commas); a class's
    instance (``Foo {``) and a substitution say nothing."""
    said = _said("test('x', () => {\n  expect(f(1)).toMatchInlineSnapshot(`\"a-b\"`);\n"
                 "  expect(f(2)).toMatchInlineSnapshot(`\n    [\n      1,\n      \"two\",\n"
                 "    ]\n  `);\n  expect(f(3)).toMatchInlineSnapshot(`\n    {\n      \"a\": 1,\n"
                 "    }\n  `);\n  expect(f(4)).toMatchInlineSnapshot(`\n    Foo {\n"
                 "      \"a\": 1,\n    }\n  `);\n  expect(f(5)).toMatchInlineSnapshot(`null`);\n"
                 "  expect(f(6)).toMatchInlineSnapshot(`${x}`);\n});\n", "javascript")
    assert said == {"f(1)": Expectation("a-b"), "f(2)": Expectation([1, "two"]),
                    "f(3)": Expectation({"$": "object", "v": [["a", 1]]}),
                    "f(5)": Expectation(None)}
