"""A repository's JavaScript files are hostile input to the reading of a function's inputs:
a test file or a JSDoc example holding a literal nested thousands deep, or thousands of
calls, costs that input (bounded), never the others, and never a crash."""

from __future__ import annotations

from codequorum.behaviour.callers import MAX_CALLS, MAX_FOUND
from codequorum.behaviour.runtimes.js_callers import literal_calls
from codequorum.behaviour.runtimes.js_inputs import collect_js_inputs, examples
from codequorum.core.model import ModuleContext, Version, VersionSet

DEEP = "f(" + "[" * 5000 + "]" * 5000 + ")"


def _context(callers: tuple[tuple[str, str], ...]) -> ModuleContext:
    return ModuleContext(name="m.js", path="m.js", qualified_name="f", kind="function",
                         files=(("m.js", "export function f(x) { return x; }\n"),), roots=(),
                         callers=callers)


def test_a_literal_nested_thousands_deep_is_no_input_and_the_others_stay() -> None:
    context = _context((("test/deep.test.js", f"{DEEP}\nf(1)\n{{{DEEP}}}\nf('a')\n"),))
    assert [c.args for c in literal_calls(context, "f")] == [(1,), ("a",)]
    assert examples(f"/** @example {DEEP} // => 1\n * @example f(2) // => 2\n */", "f") == [
        ((2,), 2, True)]
    vs = VersionSet(task_id="t", versions=[Version(code="function f(x) { return x; }")],
                    language="javascript", entry_point="f", module=context)
    vs.prompt = f"@example {DEEP}\n=> 3"
    labels = [c.label for c in collect_js_inputs(vs, scaling=False).cases]
    assert labels == ["f(1)", 'f("a")']


def test_thousands_of_calls_give_a_bounded_number_of_inputs() -> None:
    many = "\n".join(f"f({i});" for i in range(20_000))
    calls = literal_calls(_context((("test.js", many),)), "f")
    # The first MAX_FOUND distinct calls are read, then MAX_CALLS of them spread evenly.
    step = (MAX_FOUND - 1) / (MAX_CALLS - 1)
    assert [c.args for c in calls] == [(round(k * step),) for k in range(MAX_CALLS)]
    assert calls[-1].args == (MAX_FOUND - 1,)
