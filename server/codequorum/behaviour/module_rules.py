"""What running in its module means for a function's analysis, decided statically.

- :func:`outside_names`: the names a version takes from outside itself (its module gives
  them), read from its symbol table (compiled, never run);
- :func:`judge_module`: whether the results of a run stand when the module did not load
  in the sandbox (the versions then ran on their own: their results stand only if none of
  them needs a name from the module), or when a function inside another function uses its
  enclosing function's names (which no run of the module gives);
- :func:`method_inputs`: the inputs a method can run on: each needs the instance it is
  called on, which the docstring's examples give (``Shape(3).area()``); the other inputs
  take the first example's instance; an example run whole makes its own. Without a
  module (benchmark sets) an example's instance cannot be made, so such examples are
  left out, unless the set's versions are whole classes (its function is
  ``Stack.peek_or``: :func:`class_method_inputs`).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import re
import symtable
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from codequorum.behaviour.doctest_examples import class_instances
from codequorum.behaviour.examples import call_label
from codequorum.behaviour.input_plan import InputCase, InputPlan, find_function
from codequorum.behaviour.made_instances import made_instances
from codequorum.core import pyast
from codequorum.core.model import ModuleContext, Receiver
from codequorum.core.words import count

_BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__", "__package__",
                                         "__spec__", "__loader__", "__builtins__",
                                         "__annotations__", "__dict__", "__module__",
                                         "__qualname__", "__class__"}
#: How many of the names a version needs a message lists.
NAMES_SHOWN = 6


class Load(Protocol):
    """How one version's module loaded (:class:`codequorum.behaviour.sandbox.ModuleLoad`)."""

    @property
    def loaded(self) -> bool: ...

    @property
    def detail(self) -> str: ...

    @property
    def ran_alone(self) -> bool: ...

    @property
    def refused(self) -> list[str]: ...


def outside_names(code: str) -> frozenset[str]:
    """Global names ``code`` reads that neither it (at its top level) nor the builtins
    define: the names its module has to give. Empty when the code does not compile."""
    try:
        top = symtable.symtable(code, "<candidate>", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return frozenset()
    defined = {s.get_name() for s in top.get_symbols()
               if s.is_assigned() or s.is_imported() or s.is_namespace()}
    used: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for sym in table.get_symbols():
            if not sym.is_referenced():
                continue
            if table is top or sym.is_global() or (
                    table.get_type() == "class" and not sym.is_assigned()
                    and not sym.is_parameter()):
                used.add(sym.get_name())
    return frozenset(used - defined - _BUILTINS)


def module_names(source: str) -> frozenset[str] | None:
    """The names the module's top level binds; None when they cannot be known (it does
    not parse, or it imports ``*``)."""
    try:
        tree = pyast.parse(source)
        top = symtable.symtable(source, "<module>", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
           for n in tree.body):
        return None
    names = {s.get_name() for s in top.get_symbols()
             if s.is_assigned() or s.is_imported() or s.is_namespace()}
    tables = list(top.get_children())
    while tables:  # ``global G`` then ``G = ...`` in a function binds it too
        table = tables.pop()
        tables.extend(table.get_children())
        names.update(s.get_name() for s in table.get_symbols()
                     if s.is_declared_global() and s.is_assigned())
    return frozenset(names)


@dataclass(frozen=True)
class ModuleJudgement:
    """What a run in the module leaves standing.

    ``keep``: the versions' results stand; ``problem``: what the note on the function says
    (None when the run went as asked); ``notes`` for the report (the view left something
    out, the module's top level was refused something).
    """

    keep: bool
    problem: str | None = None
    notes: tuple[str, ...] = ()


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")


def judge_module(context: ModuleContext, loads: Sequence[Load | None], codes: Sequence[str],
                 outside: Callable[[str], frozenset[str]] = outside_names) -> ModuleJudgement:
    """Whether the results of running ``codes`` in ``context`` stand, given how the module
    loaded for each (None: not known, e.g. a version with a syntax error); ``outside``: the
    names a version of this language takes from its module."""
    notes = list(context.notes)
    refused = sorted({what for load in loads if load is not None for what in load.refused})
    if refused:
        notes.append(f"the module's top level was refused in the sandbox: {', '.join(refused)}")
    absent = sorted({load.detail for load in loads
                     if load is not None and load.loaded and load.detail})
    notes.extend(absent[:1])  # the module loaded without packages the sandbox does not hold
    needed = sorted(set().union(*(outside(code) for code in codes)))
    failed = [load for load in loads if load is not None and not load.loaded]
    if failed:
        return _failed_load(context, failed, needed, tuple(notes))
    if context.kind == "nested":
        return _nested(context, needed, tuple(notes))
    return ModuleJudgement(keep=True, notes=tuple(notes))


#: ``No module named 'x'`` as ``ModuleNotFoundError`` words it.
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


def import_hint(detail: str) -> str:
    """Why an import failed in the sandbox, after its message: a standard-library module
    the sandbox's interpreter lacks (the portable sandbox's CPython for WASI has no
    ``ssl``, ``_bz2``, ``pwd``...), else that the sandbox holds only the standard library
    and the workspace's own modules."""
    if "ModuleNotFoundError" not in detail and "ImportError" not in detail:
        return ""
    found = _NO_MODULE.search(detail)
    name = found.group(1) if found else ""
    if name and name.partition(".")[0] in sys.stdlib_module_names:
        return (f" (`{name}` is in the standard library, but not in this sandbox's "
                "interpreter: the portable sandbox's CPython for WASI has no ssl, bz2, lzma, "
                "multiprocessing, mmap, fcntl, pwd, grp, resource, termios, curses or "
                "readline; the strict sandbox has them)")
    return (" (the sandbox holds the standard library, the workspace's own modules and the "
            "pure-Python packages of its .venv, venv or env only)")


def _failed_load(context: ModuleContext, failed: Sequence[Load], needed: Sequence[str],
                 notes: tuple[str, ...]) -> ModuleJudgement:
    """The module did not load: the versions ran on their own (if the child said so); their
    results stand when none of them needs the module."""
    detail = failed[0].detail
    why = f"the module `{context.name}` did not load in the sandbox: {detail}{import_hint(detail)}"
    alone = all(load.ran_alone for load in failed)
    if alone and not needed and context.kind != "method":
        return ModuleJudgement(keep=True, notes=notes, problem=(
            f"{why}; the versions ran without it (none of them uses a name from it)"))
    if context.kind == "method":
        reason = "a method needs its class"
    elif needed:
        reason = f"the versions use {_listed(needed)} from it"
    else:
        reason = "the versions could not run without it"
    return ModuleJudgement(keep=False, notes=notes, problem=f"not run: {why}; {reason}")


def runs_alone_after(context: ModuleContext, load: Load, needed: frozenset[str]) -> bool:
    """Whether a version whose module did not load, and whose child did not run it alone
    itself (a JavaScript child does not), is run again alone: a function (not a method,
    which needs its class) that needs no name from its module (``needed``), as a Python
    child runs it."""
    return not load.loaded and not load.ran_alone and context.kind != "method" and not needed


def _nested(context: ModuleContext, needed: Sequence[str],
            notes: tuple[str, ...]) -> ModuleJudgement:
    """A function inside another function ran in its module's globals: its results stand
    unless the versions use names only the enclosing function gives."""
    known = module_names(context.source)
    enclosing = [] if known is None else [n for n in needed if n not in known]
    outer = context.qualified_name.rpartition(".")[0]
    if enclosing:
        return ModuleJudgement(keep=False, notes=notes, problem=(
            f"not run: `{context.qualified_name}` is defined inside `{outer}` and the versions "
            f"use its names ({_listed(enclosing)}), which only a call of `{outer}` gives"))
    return ModuleJudgement(keep=True, notes=(
        *notes, f"`{context.qualified_name}` ran in its module's globals, outside `{outer}`"))


# --------------------------------------------------------------------------- methods


def method_inputs(plan: InputPlan, context: ModuleContext | None,
                  instance: bool) -> InputPlan:
    """The inputs of ``plan`` that can run where the function is.

    A method (``context.kind == "method"``) whose first parameter is its instance
    (``instance``) is called on one (:func:`on_instances`). Elsewhere, inputs with a
    receiver (an example that calls a method of some instance) are left out.
    """
    owner = context.owner if context is not None else None
    if context is None or owner is None:
        kept = [c for c in plan.cases if c.test.receiver is None]
        return plan if len(kept) == len(plan.cases) else dataclasses.replace(plan, cases=kept)
    if context.qualified_name.rpartition(".")[2] == "__init__":
        return as_constructions(plan, owner)
    if not instance:
        return plan
    return on_instances(plan, owner, context.qualified_name, context.source)


def as_constructions(plan: InputPlan, owner: str) -> InputPlan:
    """An ``__init__``'s inputs named as what runs: ``__init__(3, 1)`` is ``Range(3, 1)``
    (its class is called; the instance made is the value), none on an instance."""
    cases = [dataclasses.replace(c, label=_constructed(c.label, owner),
                                 test=dataclasses.replace(c.test,
                                                          name=_constructed(c.test.name, owner)))
             for c in plan.cases if c.test.receiver is None]
    return dataclasses.replace(plan, cases=cases)


def _constructed(label: str, owner: str) -> str:
    for called in ("__init__(", f"{owner}.__init__("):
        if label.startswith(called):
            return f"{owner}({label.removeprefix(called)}"
    return label


def class_method_inputs(plan: InputPlan, texts: Sequence[str]) -> InputPlan:
    """The inputs of a method run alone (``Stack.peek_or`` of a set whose versions are
    whole classes): on instances (:func:`on_instances`) of its class as the first of
    ``texts`` (the prompt, the current code, the versions) that defines it writes it;
    a static or class method as it is."""
    entry = plan.entry_point or ""
    for text in texts:
        fn = find_function(text, entry)
        if fn is not None:
            if fn.name == "__init__":
                return as_constructions(plan, entry.rpartition(".")[0])
            if not takes_instance(fn):
                return plan
            return on_instances(plan, entry.rpartition(".")[0], entry, text)
    return plan


def takes_instance(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the method ``fn`` is called on an instance: its first parameter is
    ``self`` and no decorator makes it static or a class method. An ``__init__`` is not:
    its class is called (``Range(3, 1)``), and what it made is its value."""
    first = [*fn.args.posonlyargs, *fn.args.args][:1]
    plain = not any(ast.unparse(d).rpartition(".")[2] in ("staticmethod", "classmethod")
                    for d in fn.decorator_list)
    return plain and bool(first) and first[0].arg == "self" and fn.name != "__init__"


def on_instances(plan: InputPlan, owner: str, qualified: str, source: str) -> InputPlan:
    """The inputs of the method ``qualified`` of the class ``owner`` (in the module text
    ``source``), each on an instance: inputs without a receiver take the first example's
    instance, else the instances its class's other examples make (in turn), else
    instances made without an example (:func:`made_instances`), or are left out (with a
    note) when none can be made. Beside an example's instance, those the class's fillers
    filled run too: an example's is often empty (``Stack()``)."""
    made = next((c.test.receiver for c in plan.cases
                 if c.test.receiver is not None and c.test.receiver.call), None)
    receivers = [made] if made is not None else _class_receivers(source, owner)
    notes = list(plan.notes)
    without = made_instances(source, owner, qualified.rpartition(".")[2])
    if not receivers and without:  # no example makes one: made without one
        receivers = without
        filled = (f", and {count(len(receivers) - 1, 'instance')} that its own methods filled"
                  if len(receivers) > 1 else "")
        notes.append(f"`{qualified}` runs on instances made without an "
                     f"example: `{receivers[0].label()}`{filled}")
    elif receivers and len(without) > 1:  # an example's instance, and filled ones
        receivers = [*receivers, *without[1:]]
        notes.append(f"`{qualified}` runs on the examples' instances and on "
                     f"{count(len(without) - 1, 'instance')} that its own methods filled")
    cases: list[InputCase] = []
    dropped = 0
    for case in plan.cases:
        if case.test.receiver is not None or case.test.kind == "example":
            cases.append(case)
        elif receivers:
            cases.append(_on(case, receivers[len(cases) % len(receivers)]))
        else:
            dropped += 1
    if dropped:
        method = qualified.rpartition(".")[2]
        notes.append(f"`{qualified}` is a method: its inputs need an example that makes its "
                     f"instance (`>>> {owner}(...).{method}(...)`); "
                     f"{dropped} input{'s' if dropped != 1 else ''} left out")
    return dataclasses.replace(plan, cases=cases, notes=notes)


def _class_receivers(source: str, owner: str) -> list[Receiver]:
    """The instances the examples of the method's class make, as receivers."""
    return [Receiver(owner, source=text) for text in class_instances(source, owner)]


def _on(case: InputCase, receiver: Receiver) -> InputCase:
    """``case`` called on ``receiver``'s instance, labelled so."""
    test = case.test
    name = case.label.partition("(")[0].rpartition(".")[2] or "f"
    label = f"{receiver.label()}.{call_label(name, test.args, test.kwargs)}"
    named = label if test.name == case.label else test.name
    return dataclasses.replace(case, test=dataclasses.replace(test, receiver=receiver,
                                                              name=named), label=label)


__all__ = [
    "ModuleJudgement",
    "class_method_inputs",
    "judge_module",
    "method_inputs",
    "module_names",
    "on_instances",
    "outside_names",
    "takes_instance",
]
