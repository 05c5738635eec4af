"""What a run in its module leaves standing, and the inputs a method runs on."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from codequorum.behaviour.input_plan import InputCase, InputPlan, find_function
from codequorum.behaviour.module_rules import (
    class_method_inputs,
    import_hint,
    judge_module,
    method_inputs,
    module_names,
    outside_names,
    runs_alone_after,
    takes_instance,
)
from codequorum.core.model import ModuleContext, Receiver
from codequorum.core.model import TestCase as Case


@dataclass
class Load:
    loaded: bool
    detail: str = ""
    ran_alone: bool = False
    refused: list[str] = field(default_factory=list)


def ctx(kind: str = "function", qualified_name: str = "f", source: str = "",
        notes: tuple[str, ...] = ()) -> ModuleContext:
    return ModuleContext("app", "app.py", qualified_name, kind,  # type: ignore[arg-type]
                         (("app.py", source),), ("",), notes)


def test_outside_names_are_what_the_module_has_to_give() -> None:
    code = ("import json\n"
            "def helper(x):\n    return x\n"
            "@cache\n"
            "def f(text, n=LIMIT):\n"
            "    total = [UNITS[u] for u in re.findall('x', text)]\n"
            "    def inner():\n        return total, Path\n"
            "    return helper(len(total)) + f(n) + len(json.dumps(self_check))\n")
    assert outside_names(code) == {"cache", "LIMIT", "UNITS", "re", "Path", "self_check"}
    assert outside_names("def f(x):\n    return sorted(x, key=abs)\n") == frozenset()
    assert outside_names("def f(:\n") == frozenset()
    method = "def area(self):\n    return super().area() + self.side * Square.unit()\n"
    assert outside_names(method) == {"Square"}


def test_module_names() -> None:
    source = ("import re\nfrom bisect import insort as put\nX = 1\nfor i in range(2):\n    pass\n"
              "class C:\n    pass\ndef f():\n    global G\n    G = 1\n")
    assert module_names(source) == frozenset({"re", "put", "X", "i", "C", "f", "G"})
    assert module_names("from os.path import *\n") is None
    assert module_names("def f(:\n") is None


def test_a_module_that_loaded_keeps_the_results_and_says_what_was_refused() -> None:
    judged = judge_module(ctx(notes=("big.py left out",)),
                          [Load(True, refused=["network"]), None], ["def f():\n    return re\n"])
    assert judged.keep and judged.problem is None
    assert judged.notes == ("big.py left out",
                            "the module's top level was refused in the sandbox: network")


def test_a_module_that_loaded_without_packages_the_sandbox_lacks_says_which_once() -> None:
    lacks = "packages not in the sandbox (a use of them raises): @angular/core"
    judged = judge_module(ctx(), [Load(True, lacks), Load(True, lacks), Load(True)],
                          ["def f():\n    return 1\n"] * 3)
    assert judged.keep and judged.problem is None
    assert judged.notes == (lacks,)


def test_versions_that_need_nothing_from_a_module_that_did_not_load_stand() -> None:
    failed = Load(False, "its top level raised ModuleNotFoundError: No module named 'numpy'",
                  ran_alone=True)
    judged = judge_module(ctx(), [failed, failed], ["def f(x):\n    return x\n"] * 2)
    assert judged.keep
    assert judged.problem == (
        "the module `app` did not load in the sandbox: its top level raised "
        "ModuleNotFoundError: No module named 'numpy' (the sandbox holds the standard library, "
        "the workspace's own modules and the pure-Python packages of its .venv, venv or env only); "
        "the versions ran without it (none of them uses a name from it)")


@pytest.mark.parametrize(("kind", "load", "needed", "again"), [
    ("function", Load(False, "raised"), frozenset(), True),
    ("nested", Load(False, "raised"), frozenset(), True),
    ("function", Load(False, "raised"), frozenset({"LIMIT"}), False),  # it needs the module
    ("method", Load(False, "raised"), frozenset(), False),  # it needs its class
    ("function", Load(False, "raised", ran_alone=True), frozenset(), False),  # it did already
    ("function", Load(True), frozenset(), False),
])
def test_a_version_runs_again_alone_only_where_its_results_could_stand(
        kind: str, load: Load, needed: frozenset[str], again: bool) -> None:
    assert runs_alone_after(ctx(kind), load, needed) is again


def test_judging_takes_the_language_s_outside_names() -> None:
    js = ["function f(x) { return x + LIMIT; }"]
    loads = [Load(False, "its top level raised Error: no", ran_alone=True)]
    assert judge_module(ctx(), loads, js).keep  # Python's reading finds no name in it
    judged = judge_module(ctx(), loads, js, lambda _code: frozenset({"LIMIT"}))
    assert not judged.keep
    assert judged.problem is not None and judged.problem.endswith("the versions use LIMIT from it")


@pytest.mark.parametrize(
    ("kind", "codes", "loads", "reason"),
    [
        ("function", ["def f(x):\n    return re.sub('a', '', x)\n", "def f(x):\n    return x\n"],
         [Load(False, "its top level raised ValueError: no", ran_alone=True)] * 2,
         "the versions use re from it"),
        ("method", ["def f(self):\n    return 1\n"],
         [Load(False, "its top level raised ValueError: no", ran_alone=True)],
         "a method needs its class"),
        ("function", ["def f(x):\n    return x\n"],
         [Load(False, "the run ended while its top level ran: timeout")],
         "the versions could not run without it"),
    ],
)
def test_versions_that_need_a_module_that_did_not_load_are_not_judged(
        kind: str, codes: list[str], loads: list[Load], reason: str) -> None:
    judged = judge_module(ctx(kind), loads, codes)
    assert not judged.keep
    assert judged.problem is not None
    assert judged.problem.startswith("not run: the module `app` did not load in the sandbox: ")
    assert judged.problem.endswith(f"; {reason}")


def test_a_nested_function_that_uses_its_enclosing_names() -> None:
    source = "K = 1\ndef outer(y):\n    def inner(x):\n        return x + y\n    return inner\n"
    context = ctx("nested", "outer.inner", source)
    uses_y = judge_module(context, [Load(True)], ["def inner(x):\n    return x + y + K\n"])
    assert not uses_y.keep
    assert uses_y.problem == ("not run: `outer.inner` is defined inside `outer` and the "
                              "versions use its names (y), which only a call of `outer` gives")
    uses_k = judge_module(context, [Load(True)], ["def inner(x):\n    return x + K\n"])
    assert uses_k.keep and uses_k.problem is None
    assert uses_k.notes == ("`outer.inner` ran in its module's globals, outside `outer`",)


def case(label: str, source: str = "hypothesis", receiver: Receiver | None = None,
         args: tuple[object, ...] = ()) -> InputCase:
    test = Case("call", args=args, name=label, receiver=receiver)
    return InputCase(test, source, False, label)  # type: ignore[arg-type]


def test_a_methods_inputs_are_called_on_the_first_examples_instance() -> None:
    made = Receiver("Square", (3,))
    plan = InputPlan("area", [case("Square(3).area(2)", "doctest", made, (2,)),
                              case("area(5)", args=(5,)),
                              case("area(8)", "scaling", args=(8,))])
    out = method_inputs(plan, ctx("method", "Square.area"), instance=True)
    assert [(c.label, c.test.receiver, c.test.name) for c in out.cases] == [
        ("Square(3).area(2)", made, "Square(3).area(2)"),
        ("Square(3).area(5)", made, "Square(3).area(5)"),
        ("Square(3).area(8)", made, "Square(3).area(8)"),
    ]
    assert method_inputs(plan, ctx("method", "Square.area"), instance=False) is plan


SQUARE = '''class Square:
    """A square.

    >>> Square(3).side
    3
    >>> s = Square(side=int("4"))
    """

    def grow(self, k):
        """>>> Square(2 + 1).grow(2)
        >>> Square(helper(1)).grow(1)
        >>> Square(3).grow(9)
        """

    def area(self, unit):
        return self.side ** 2
'''


def test_a_method_without_examples_takes_the_instances_its_class_builds_in_turn() -> None:
    plan = InputPlan("area", [case("area(5)", args=(5,)), case("area(6)", args=(6,)),
                              case("area(7)", args=(7,)), case("area(8)", args=(8,))])
    out = method_inputs(plan, ctx("method", "Square.area", SQUARE), instance=True)
    # literal and builtin-only constructions, distinct; one naming a helper is left
    assert [c.label for c in out.cases] == [
        "Square(3).area(5)", "Square(side=int('4')).area(6)", "Square(2 + 1).area(7)",
        "Square(3).area(8)"]
    assert out.cases[1].test.receiver == Receiver("Square", source="Square(side=int('4'))")
    assert out.notes == []


def test_a_method_without_an_example_instance_has_no_inputs_to_guess() -> None:
    plan = InputPlan("area", [case("area(5)", args=(5,))])
    out = method_inputs(plan, ctx("method", "Square.area"), instance=True)
    assert out.cases == []
    assert out.notes == ["`Square.area` is a method: its inputs need an example that makes "
                         "its instance (`>>> Square(...).area(...)`); 1 input left out"]


def test_examples_on_an_instance_need_a_module() -> None:
    plan = InputPlan("area", [case("Square(3).area()", "doctest", Receiver("Square", (3,))),
                              case("area(5)", args=(5,))])
    for context in (None, ctx("function", "area")):
        assert [c.label for c in method_inputs(plan, context, instance=True).cases] == ["area(5)"]
    plain = InputPlan("f", [case("f(1)", args=(1,))])
    assert method_inputs(plain, None, instance=False) is plain


STACK = '''class Stack:
    def __init__(self):
        self.items = []

    def push(self, x: int) -> None:
        self.items.append(x)

    def peek_or(self, fallback: int) -> int:
        return self.items[-1] if self.items else fallback

    @staticmethod
    def empty_size() -> int:
        return 0
'''
FILLED = "[(stack := Stack()), stack.push(1), stack.push(-3), stack.push(7)][0]"


def test_a_method_of_a_whole_class_runs_on_instances_made_and_filled() -> None:
    plan = InputPlan("Stack.peek_or", [case(f"Stack.peek_or({k})", args=(k,))
                                       for k in (0, 1, 2)])
    out = class_method_inputs(plan, ["def other(): pass\n", STACK])
    assert [c.label for c in out.cases] == [
        "Stack().peek_or(0)", f"{FILLED}.peek_or(1)",
        "[(stack := Stack()), stack.push(42), stack.push(0), stack.push(2)][0].peek_or(2)"]
    assert out.cases[1].test.receiver == Receiver("Stack", source=FILLED)
    assert out.notes == ["`Stack.peek_or` runs on instances made without an example: "
                         "`Stack()`, and 2 instances that its own methods filled"]
    static = InputPlan("Stack.empty_size", [case("Stack.empty_size()")])
    assert class_method_inputs(static, [STACK]) is static  # called on the class
    assert class_method_inputs(plan, ["def peek_or(x): pass\n"]) is plan  # no class


def test_an_examples_bare_instance_is_joined_by_filled_ones() -> None:
    plan = InputPlan("peek_or", [case("Stack().peek_or(3)", "doctest", Receiver("Stack"),
                                      (3,)), case("peek_or(5)", args=(5,))])
    out = method_inputs(plan, ctx("method", "Stack.peek_or", STACK), instance=True)
    assert [c.label for c in out.cases] == ["Stack().peek_or(3)", f"{FILLED}.peek_or(5)"]
    assert out.notes == ["`Stack.peek_or` runs on the examples' instances and on 2 "
                         "instances that its own methods filled"]


@pytest.mark.parametrize(("name", "expected"), [
    ("Stack.peek_or", True), ("Stack.empty_size", False), ("Stack.__init__", False)])
def test_takes_instance(name: str, expected: bool) -> None:
    fn = find_function(STACK, name)
    assert fn is not None and takes_instance(fn) is expected


@pytest.mark.parametrize(("detail", "hint"), [
    ("its top level raised ModuleNotFoundError: No module named '_bz2'",
     " (`_bz2` is in the standard library, but not in this sandbox's interpreter: the "
     "portable sandbox's CPython for WASI has no ssl, bz2, lzma, multiprocessing, mmap, "
     "fcntl, pwd, grp, resource, termios, curses or readline; the strict sandbox has them)"),
    ("its top level raised ModuleNotFoundError: No module named 'numpy.linalg'",
     " (the sandbox holds the standard library, the workspace's own modules and the "
     "pure-Python packages of its .venv, venv or env only)"),
    ("its top level raised ValueError: no", ""),
])
def test_an_import_that_failed_says_whether_the_sandbox_or_the_workspace_lacks_it(
        detail: str, hint: str) -> None:
    assert import_hint(detail) == hint


def test_an_init_is_called_through_its_class_and_its_inputs_are_named_so() -> None:
    fn = find_function("class Range:\n    def __init__(self, a, b):\n        self.a = a\n",
                       "Range.__init__")
    assert fn is not None and not takes_instance(fn)
    plan = InputPlan("__init__", cases=[
        InputCase(Case("call", args=(3, 1), name="__init__(3, 1)"), "hypothesis", False,
                  "__init__(3, 1)"),
        InputCase(Case("call", args=(2,), name="Range.__init__(2)"), "hypothesis", False,
                  "Range.__init__(2)"),
        InputCase(Case("call", args=(1,), name="r.__init__(1)",
                       receiver=Receiver("Range", (0, 0))), "doctest", False, "r.__init__(1)"),
    ])
    made = method_inputs(plan, ctx("method", "Range.__init__"), instance=False)
    assert [c.label for c in made.cases] == ["Range(3, 1)", "Range(2)"]
    assert [c.test.name for c in made.cases] == ["Range(3, 1)", "Range(2)"]
    assert all(c.test.receiver is None for c in made.cases)
