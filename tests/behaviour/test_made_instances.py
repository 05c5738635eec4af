"""Instances a Python method runs on when no example makes one: a bare one and ones its
class's own methods filled, read from the module; then run in the real sandbox."""

from __future__ import annotations

from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.made_instances import made_instances
from codequorum.core.model import Receiver
from tests.behaviour.test_dynamic_analysis import in_module

STACK = '''class Stack:
    """A last-in first-out stack."""

    def __init__(self, items=None):
        self.items = list(items or [])

    def push(self, item: int) -> None:
        self.items.append(item)

    def rename(self, name):
        self.name = name

    def clear(self) -> None:
        self.items = []

    @property
    def size(self) -> int:
        return len(self.items)

    def extend(self, more: list[int]) -> None:
        self.items.extend(more)

    def peek_or(self, fallback: int) -> int:
        return self.items[-1] if self.items else fallback
'''
BOTTOM = ("def peek_or(self, fallback: int) -> int:\n"
          "        return self.items[0] if self.items else fallback\n")
TOP = ("def peek_or(self, fallback: int) -> int:\n"
       "        return self.items[len(self.items) - 1] if len(self.items) > 0 else fallback\n")


def test_a_bare_instance_and_two_its_fillers_filled() -> None:
    made = made_instances(STACK, "Stack", "peek_or")
    # push (-> None) and rename (no return, uses self: an int, none written); not clear()
    # without parameters, nor the property; extend is a third filler: two are called
    assert made == [
        Receiver("Stack"),
        Receiver("Stack", source="[(stack := Stack()), stack.push(1), stack.push(-3), "
                 "stack.push(7), stack.rename(1), stack.rename(-3), stack.rename(7)][0]"),
        Receiver("Stack", source="[(stack := Stack()), stack.push(42), stack.push(0), "
                 "stack.push(2), stack.rename(42), stack.rename(0), stack.rename(2)][0]")]
    assert "push" not in (made_instances(STACK, "Stack", "push")[1].source or "push")


def test_a_class_that_needs_values_is_made_with_values_of_their_types() -> None:
    typed = "class P:\n    def __init__(self, x: int, name: str, k=2):\n        self.x = x\n"
    assert made_instances(typed, "P", "f") == [Receiver("P", (1, "hello"))]
    # another type: its edge values that are literals; no written type: not made
    assert made_instances(typed.replace("x: int", "x: list[int]"), "P", "f") == [
        Receiver("P", ([], "hello"))]
    assert made_instances(typed.replace("x: int", "x: dict[str, int]"), "P", "f") == [
        Receiver("P", ({}, "hello"))]
    assert made_instances(typed.replace("x: int", "x: float"), "P", "f") == [
        Receiver("P", (1.5, "hello"))]
    assert made_instances(typed.replace("x: int", "x"), "P", "f") == []
    assert made_instances(typed.replace("k=2", "*, k"), "P", "f") == []
    fielded = "from dataclasses import dataclass\n@dataclass\nclass D:\n    x: int\n"
    assert made_instances(fielded, "D", "f") == [Receiver("D", (1,))]
    filled = made_instances(typed + "    def add(self, y: int) -> None:\n"
                            "        self.x += y\n", "P", "f")
    assert [r.source for r in filled[1:]] == [
        "[(p := P(1, 'hello')), p.add(1), p.add(-3), p.add(7)][0]",
        "[(p := P(42, '')), p.add(42), p.add(0), p.add(2)][0]"]
    assert made_instances(fielded.replace("x: int", "x: int = 0"), "D", "f") == [
        Receiver("D")]
    assert made_instances(fielded.replace("x: int", "x: Widget"), "D", "f") == []
    assert made_instances("class T(NamedTuple):\n    x: int\n", "T", "f") == []
    assert made_instances("class A:\n    class B:\n        pass\n", "A.B", "f") == [
        Receiver("A.B")]
    assert made_instances("class A:\n    pass\n", "Missing", "f") == []
    assert made_instances("def (:\n", "A", "f") == []


def test_versions_that_read_the_wrong_end_part_on_a_filled_instance(tmp_path: Path) -> None:
    ss = in_module(tmp_path, STACK, [TOP, BOTTOM], "Stack.peek_or", "method")
    report = run_dynamic(ss, DynamicOptions(jobs=2))
    assert report.rules.module_problem is None
    labels = [i["label"] for i in report.inputs]
    assert labels[0].startswith("Stack().peek_or(")
    assert labels[1].startswith("[(stack := Stack()), stack.push(1), stack.push(-3), ")
    assert report.output_clusters == [[0, 2], [1]]  # the current code is the last
    assert any("runs on instances made without an example: `Stack()`, and 2 instances "
               "that its own methods filled" in n for n in report.notes)


COUNTER = '''class Counter:
    def __init__(self):
        self.count = 0

    def increment(self, by: int = 1) -> int:
        """Adds ``by`` and gives the new count."""
        self.count += by
        return self.count

    def peek(self) -> int:
        return self.count
'''
#: Stores one more, not ``by`` more: the same as the right one on a fresh counter.
OFF_BY_BY = ("def increment(self, by: int = 1) -> int:\n"
             "        old = self.count\n        self.count += 1\n        return old + by\n")


def test_a_method_that_changes_its_instance_runs_after_one_call_of_its_own() -> None:
    assert made_instances(COUNTER, "Counter", "increment") == [
        Receiver("Counter"),
        Receiver("Counter", source="[(counter := Counter()), counter.increment(7)][0]")]
    assert made_instances(COUNTER, "Counter", "peek") == [Receiver("Counter")]  # reads only
    assert made_instances(COUNTER.replace("by: int = 1", "label: str"), "Counter",
                          "increment")[1].source == \
        "[(counter := Counter()), counter.increment('x y')][0]"
    nested = COUNTER.replace("        self.count += by\n",
                             "        def inner(self):\n            self.count += by\n")
    assert made_instances(nested, "Counter", "increment") == [Receiver("Counter")]


def test_a_version_that_stores_the_wrong_state_parts_after_one_call(tmp_path: Path) -> None:
    right = COUNTER[COUNTER.index("def increment"):COUNTER.index("    def peek")]
    ss = in_module(tmp_path, COUNTER, [right, OFF_BY_BY], "Counter.increment", "method")
    report = run_dynamic(ss, DynamicOptions(jobs=2))
    labels = [i["label"] for i in report.inputs]
    once = [k for k, label in enumerate(labels) if label.startswith(
        "[(counter := Counter()), counter.increment(7)][0].increment(")]
    assert once and report.output_clusters == [[0, 2], [1]]
    assert all(report.outcomes[0][k] == report.outcomes[2][k] for k in range(len(labels)))
    assert any(report.outcomes[1][k] != report.outcomes[0][k] for k in once)
