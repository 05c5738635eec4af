"""The literals a JavaScript test holds in names where it calls the function."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_literals import node_text
from codequorum.behaviour.runtimes.js_local_literals import held_at
from codequorum.core.parsing import parse


def _held(source: str) -> list[tuple[str, dict[str, object]]]:
    root = parse(source, "typescript").root_node
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.type == "call_expression" and node_text(node).startswith("f("):
            out.append((node_text(node), held_at(node)))
        stack.extend(reversed(node.children))
    return out


def test_a_name_holds_the_literal_declared_or_assigned_last_before_the_call() -> None:
    found = _held("const top = 1;\ntest('a', () => {\n  const input = 'a b';\n"
                  "  expect(f(input, top)).toBe('a-b');\n  let n: number = 2 * 3;\n  f(n);\n"
                  "  n = g();\n  f(n, 'later');\n});\n")
    assert found == [("f(input, top)", {"top": 1, "input": "a b"}),
                     ("f(n)", {"top": 1, "input": "a b", "n": 6}),
                     ("f(n, 'later')", {"top": 1, "input": "a b"})]


def test_what_a_loop_or_a_branch_assigns_holds_nothing_and_blocks_do_not_leak() -> None:
    found = _held("test('b', () => {\n  let x = 1;\n  for (let i = 0; i < 3; i++) { x += i; }\n"
                  "  f(x);\n  { const y = 5; f(y, 1); }\n  f(y, 2);\n"
                  "  const { a } = obj;\n  f(a);\n});\n")
    assert found == [("f(x)", {}), ("f(y, 1)", {"y": 5}), ("f(y, 2)", {}), ("f(a)", {})]


def test_an_update_changes_the_name_it_updates_and_nothing_else() -> None:
    """``n++`` and ``o.k++`` inside a loop change ``n`` and ``o``; a test's ``void
    ----...1`` (20,000 nested updates, each read whole once: quadratic before) names none."""
    found = _held("test('a', () => {\n  let n = 1;\n  const o = 2;\n  const s = 'x';\n"
                  "  for (const k of ks) { n++; o.k++; }\n  void " + "-" * 20_000 + "1;\n"
                  "  f(n, o, s);\n});\n")
    assert found == [("f(n, o, s)", {"s": "x"})]
