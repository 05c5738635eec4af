"""Which calls of a JavaScript or TypeScript test file run in a plain state."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_literals import node_text
from codequorum.behaviour.runtimes.js_plain import plain_calls
from codequorum.core.parsing import parse


def _plain(source: str, name: str = "f") -> list[str]:
    root = parse(source, "typescript").root_node
    keys = plain_calls(root, name)
    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "call_expression" and (node.start_byte, node.end_byte) in keys \
                and node_text(node).startswith("f("):
            out.append(node_text(node))
        stack.extend(reversed(node.children))
    return out


def test_calls_before_anything_foreign_are_plain() -> None:
    assert _plain("import { f } from './f';\n"
                  "describe('f', () => {\n"
                  "  it('a', () => {\n    expect(f(1)).toBe(2);\n"
                  "    expect(() => f(NaN)).toThrow();\n    i18n.activate('fr');\n"
                  "    expect(f(3)).toBe('3e');\n  });\n"
                  "  test.each([[1, 2]])('b', (x, y) => { assert.strictEqual(f(x), y); });\n"
                  "});\n") == ["f(1)", "f(NaN)", "f(x)"]


def test_a_set_up_hook_or_a_foreign_call_at_the_top_leaves_nothing_plain() -> None:
    assert _plain("beforeEach(() => { setLocale('fr'); });\n"
                  "test('a', () => { expect(f(1)).toBe(2); });\n") == []
    assert _plain("setLocale('fr');\ntest('a', () => { expect(f(1)).toBe(2); });\n") == []
    assert _plain("const { f } = require('../f');\n"
                  "test('a', t => { t.is(f(1), 2); });\n") == ["f(1)"]


def test_functions_nested_thousands_deep_are_read_without_recursion() -> None:
    source = "test('x', " + "() => " * 3000 + "f(1));"
    assert _plain(source) == ["f(1)"]


def test_a_hook_leaves_out_only_the_tests_of_its_own_block() -> None:
    assert _plain("describe('fr', () => {\n"
                  "  it('a', () => { expect(f(1)).toBe('1er'); });\n"
                  "  beforeEach(() => { setLocale('fr'); });\n"
                  "  describe('inner', () => { it('b', () => { expect(f(2)).toBe('2e'); }); });\n"
                  "});\n"
                  "describe('plain', () => {\n  it('c', () => { expect(f(3)).toBe('3rd'); });\n"
                  "  describe('hooked', () => {\n    beforeAll(() => reset());\n"
                  "    it('d', () => { expect(f(4)).toBe('4th'); });\n  });\n});\n") == ["f(3)"]


def test_any_matcher_on_expect_is_an_assertion_and_changes_nothing() -> None:
    """``expect(f(0)).toBeTruthy()`` and ``expect(x).not.toHaveLength(2)`` leave what comes
    after plain; a method on something else (``store.toBeTruthy()``) does not."""
    assert _plain("test('a', () => {\n  expect(f(0)).toBeTruthy();\n"
                  "  expect(f(1)).not.toHaveLength(2);\n  expect(f(2)).toBe(3);\n"
                  "  store.toBeTruthy();\n  expect(f(4)).toBe(5);\n});\n") == [
        "f(0)", "f(1)", "f(2)"]
