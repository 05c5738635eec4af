"""The instances a method's examples build: bindings read, the class's own comment found."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_instances import Instance, binding, class_comment

MODULE = """import { x } from './x';

/** Not this one. */
function helper() {}

/**
 * A stack.
 * @example
 * const s = new Stack();
 */
// and this line too
export class Stack {
  peek() { return 1; }
}

/** A queue. */

class Queue {}
"""


def test_a_binding_of_a_new_instance_keeps_its_class_and_literal_arguments() -> None:
    assert binding("const s = new Stack<number>([1, 2]);") == (
        "s", Instance("Stack", ([1, 2],)))
    assert binding("let t: Tree = new Tree") == ("t", Instance("Tree"))
    assert binding("var s = new Stack(n)") == ("s", Instance("Stack", spoiled=True))
    assert binding("const r = f(2)") == ("r", Instance("", spoiled=True))
    assert binding("s.push(1)") is None


def test_the_comment_right_above_a_class_is_its_own() -> None:
    comment = class_comment(MODULE, "typescript", "Stack")
    assert comment.startswith("/**\n * A stack.") and comment.endswith("// and this line too")
    assert "Not this one" not in comment
    assert class_comment(MODULE, "typescript", "Queue") == ""  # a blank line between
    assert class_comment(MODULE, "javascript", "Missing") == ""
    assert class_comment("class {", "javascript", "Stack") == ""
