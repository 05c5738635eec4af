"""The Node runtime: JavaScript and TypeScript versions run in a sandboxed Node.

Two entries of the registry, :data:`JAVASCRIPT` and :data:`TYPESCRIPT` (its versions are
type-stripped in this process first: ``ts_strip.py``), sharing everything else: the
sandboxed run (``node_sandbox.py``), static counts of V8's Ignition bytecode compiled in
that sandbox and never run (:func:`static_counts`), inputs from examples, TypeScript types
and the model (``js_inputs.py``), the canonical form of values (``js_values.py``), and the
module a version runs in (its view: ``ingest/js_module_view.py``; the version in its place:
``js_modules.py``).

Static counts: the harness compiles each version with ``--no-lazy --print-bytecode``
(``node_harness/harness.js``); :func:`bytecode_counts` reads the printout: the mnemonic
of every bytecode, ``.Wide``/``.ExtraWide`` taken off and ``Star0`` ... ``Star15`` as
``Star``. A known probe compiled first must give known counts, else the printout is not
understood and no figure is given. Counts depend on V8, so on Node's major: compare
versions counted by one Node only (the report names it).

V8 prints names raw, so a name holding a line feed could write bytecodes of its choosing
into the printout: each version is compiled with every line break its literals make
turned into a tab or space of the same length (``js_names.inert``: the same bytecodes, and
no name breaks a line); only the code of each function is read (its constants never), and
a version whose part of the printout still has a header that is not whole gets no counts,
the others keep theirs. The markers between parts carry a random name chosen per run,
which a version, compiled and never run, cannot know.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from codequorum.behaviour.runtimes import (
    js_inputs,
    js_modules,
    js_names,
    js_outside,
    js_values,
    node_sandbox,
)
from codequorum.behaviour.runtimes.js_tests import version_entry
from codequorum.behaviour.runtimes.node_trace import (
    HEADER_START,
    Function,
    TamperedPrintout,
    mnemonic,
    parse_functions,
)
from codequorum.behaviour.runtimes.runtime import Runtime
from codequorum.behaviour.runtimes.ts_strip import (
    NotStrippable,
    decorators,
    package_imports,
    script_form,
    strip_types,
)
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import CandidateResult
from codequorum.core.errors import SandboxUnavailableError
from codequorum.core.limits import InputLimitError
from codequorum.core.model import ModuleContext, TestCase
from codequorum.core.parsing import member_form
from codequorum.generate.input_language import json_inputs
from codequorum.generate.prompting import display_name
from codequorum.ingest.js_module_view import js_module_view

PROBE = "function __codequorum_probe(a, b) { return a + b; }"
#: The probe's own function, as every supported V8 prints it.
PROBE_COUNTS = {"Ldar": 1, "Add": 1, "Return": 1}
log = logging.getLogger(__name__)
COUNT_LIMITS = Limits(wall_seconds=60, cpu_seconds=60, memory_mb=1024)


class PrintoutChangedError(SandboxUnavailableError):
    """V8's bytecode printout is not as this reader knows it: no static counts."""


def split_printout(text: str, marker: str) -> list[list[Function] | None]:
    """The printout -> per compiled script, its functions, split at the marker functions
    (``<marker>_<i>``, each preceded by its own script's top level, left out); None for a
    script whose part a name wrote into (its headers are not whole): that script only."""
    chunks: list[list[str]] = [[]]
    for line in text.split("\n"):
        if line.startswith(f"{HEADER_START} {marker}_"):
            chunks.append([])
        else:
            chunks[-1].append(line)
    parts: list[list[Function] | None] = []
    for chunk in chunks[:-1]:
        try:
            functions = parse_functions("\n".join(chunk), strict=False)
        except TamperedPrintout as err:
            log.warning("static counts of a version left out: a name wrote into V8's "
                        "printout (%s)", str(err)[:80])
            parts.append(None)
            continue
        parts.append(functions[:-1])
    return parts


def _total(functions: Sequence[Function]) -> dict[str, int]:
    total: dict[str, int] = {}
    for fn in functions:
        for b in fn.code:
            total[b.name] = total.get(b.name, 0) + 1
    return total


def bytecode_counts(text: str, marker: str, n: int) -> list[dict[str, int] | None]:
    """Counts per compiled script (the probe first; None for a script whose printout a name
    wrote into); :class:`PrintoutChangedError` when the printout does not look as expected
    (the probe's counts differ, or the parts do not match ``n``): the figures are left out,
    never guessed."""
    parts = split_printout(text, marker)
    if len(parts) != n:
        raise PrintoutChangedError(f"V8's bytecode printout was not understood ({len(parts)} "
                                   f"parts for {n} scripts): no static counts from this Node")
    probe = _total([f for f in parts[0] or [] if f.name == "__codequorum_probe"])
    if probe != PROBE_COUNTS:
        raise PrintoutChangedError(f"V8's bytecode printout changed (probe counted {probe}): "
                                   "no static counts from this Node")
    return [None if part is None else _total(part) for part in parts]


def _javascript(code: str, typescript: bool) -> str | None:
    """The script Node compiles: types stripped (TypeScript), module syntax made a script;
    None when the TypeScript is more than types."""
    if typescript:
        try:
            code = strip_types(code)
        except NotStrippable:
            return None
    try:
        return js_names.inert(script_form(code))
    except InputLimitError:
        return None  # past the parse limits: no counts


_count_lock = threading.Lock()
#: Counts of versions seen (a language server sees the same versions again), bounded.
_count_cache: OrderedDict[tuple[str, bool], dict[str, int] | None] = OrderedDict()
COUNT_CACHE_SIZE = 4096


def _compiled_form(source: str | None) -> str | None:
    """``source`` as the harness compiles it: as it is when it parses, else wrapped as a
    member (``member_form``: a method alone in a class) where that parses, so that a
    method alone has static counts too."""
    if source is None:
        return None
    try:
        return member_form(source, "javascript") or source
    except InputLimitError:
        return source


def _static_counts(codes: Sequence[str], typescript: bool,
                   node: node_sandbox.NodeBinary | None = None) -> list[dict[str, int] | None]:
    """Static bytecode counts per version (None: it does not compile or strip), under
    ``node`` (default: the one that runs versions; counts of one Node only are cached)."""
    sources = [_compiled_form(_javascript(c, typescript)) for c in codes]
    if node is not None:
        return _count(sources, typescript, node)
    todo = sorted({s for s in sources if s is not None and (s, typescript) not in _count_cache})
    if todo:
        counted = _count(todo, typescript, None)
        with _count_lock:
            for source, counts in zip(todo, counted, strict=True):
                _count_cache[(source, typescript)] = counts
    with _count_lock:
        found = {s: _count_cache.get((s, typescript)) for s in sources if s is not None}
        while len(_count_cache) > COUNT_CACHE_SIZE:
            _count_cache.popitem(last=False)
    return [None if s is None or found[s] is None else dict(found[s] or {}) for s in sources]


def _count(sources: Sequence[str | None], typescript: bool,
           node: node_sandbox.NodeBinary | None) -> list[dict[str, int] | None]:
    """One sandboxed compile of every source (the probe first); None where it failed."""
    todo = [s for s in sources if s is not None]
    out: list[dict[str, int] | None] = [None] * len(sources)
    if todo:
        child, result = node_sandbox.compile_counts_run([PROBE, *todo], COUNT_LIMITS, node)
        done = next((m for m in child.messages if m.get("type") == "done"), None)
        if result.status != "ok" or done is None:
            raise SandboxUnavailableError(f"static counts under Node: {result.status} "
                                          f"{result.detail}".strip())
        counts = bytecode_counts(child.stdout_text.decode("utf-8", "replace"),
                                 str(done.get("marker", "")), len(todo) + 1)
        compiled = done.get("compiled")
        at = [i for i, s in enumerate(sources) if s is not None]
        for k, i in enumerate(at):
            ok = isinstance(compiled, list) and k + 1 < len(compiled) and compiled[k + 1]
            out[i] = counts[k + 1] if ok else None
    return out


def static_counts_js(codes: Sequence[str], interpreter: str | None = None
                     ) -> list[dict[str, int] | None]:
    """:func:`_static_counts` of JavaScript versions (``interpreter`` is Python's: unused)."""
    return _static_counts(codes, False)


def static_counts_ts(codes: Sequence[str], interpreter: str | None = None
                     ) -> list[dict[str, int] | None]:
    """:func:`_static_counts` of TypeScript versions, types stripped first."""
    return _static_counts(codes, True)


def _run(typescript: bool) -> Any:
    def run(code: str, tests: Sequence[TestCase], entry_point: str | None,
            *args: Any, module: ModuleContext | None = None,
            **kwargs: Any) -> CandidateResult:
        named = module.qualified_name if module is not None else entry_point or ""
        code = js_modules.with_private_caller(code, named)  # ``#m`` reached from outside
        source = _javascript(code, typescript)
        if source is None:
            index = kwargs.get("index", args[2] if len(args) > 2 else 0)
            return CandidateResult(int(index), "syntax-error",
                                   "SyntaxError: TypeScript that is more than types")
        in_module = None if module is None else (module, js_modules.module_message(
            module, code, "typescript" if typescript else "javascript"))
        if module is not None:  # found where it is: a method on its class or object
            entry_point = module.qualified_name
        elif entry_point:  # ``strLen`` where the set calls ``strlen``
            entry_point = version_entry(code, entry_point,
                                        "typescript" if typescript else "javascript")
        if len(args) > 1 and any(s is not None for s in kwargs.get("series") or ()):
            args = (args[0], True, *args[2:])  # growth rests on executed bytecodes
        result = node_sandbox.run_node_candidate(source, tests, entry_point, *args,
                                                 module=in_module, **kwargs)
        if module is None:
            result = _imports_told(result, package_imports(
                code, "typescript" if typescript else "javascript"))
        return _with_decorators(result, decorators(code) if typescript else [])
    return run


#: ``X is not defined``, as V8 words a read of a name nothing declares.
_UNDEFINED = re.compile(r"([\w$]+) is not defined")


def _imports_told(result: CandidateResult, imports: dict[str, str]) -> CandidateResult:
    """``result`` with each ``ReferenceError`` for a name the version imports from a
    package told as what it is: a version run alone has no packages (in its workspace,
    its module's view gives them), not the version's mistake."""
    for outcome in result.tests if imports else ():
        m = _UNDEFINED.fullmatch(outcome.exc_message or "")
        if outcome.exc_type == "ReferenceError" and m is not None and m.group(1) in imports:
            outcome.exc_message = (f"{outcome.exc_message} (imported from "
                                   f"`{imports[m.group(1)]}`: a version run alone has no "
                                   "packages)")
    return result


def _with_decorators(result: CandidateResult, left_out: Sequence[str]) -> CandidateResult:
    """``result`` with the decorators the run left out named first in its detail."""
    if not left_out:
        return result
    words = "decorators left out (the version ran undecorated): " + ", ".join(left_out)
    return dataclasses.replace(result, detail=f"{words}; {result.detail}" if result.detail
                               else words)


def require(interpreter: str | None = None, sandbox: str = "strict", view: bool = False) -> None:
    """Versions of JavaScript run only in the strict Node sandbox; else say why not."""
    if sandbox != "strict":
        raise SandboxUnavailableError("JavaScript and TypeScript versions run only in the "
                                      "strict sandbox (bubblewrap, namespaces, seccomp)")
    node_sandbox.require()


def probed(interpreter: str | None = None, sandbox: str = "strict", view: bool = False) -> Any:
    """The cached probe, or None when none was made (nothing is started)."""
    return node_sandbox.probed()


def version() -> str:
    """``node <version>`` of the Node that runs versions (empty when there is none)."""
    found = node_sandbox.find_node()
    return f"node {found.version}" if found is not None else ""


def _no_layout(_interpreter: str) -> Any:
    return node_sandbox.find_node()


def _entry(language: str, typescript: bool) -> Runtime:
    name = display_name(language)
    return Runtime(
        language=language, name=name, flags=(), environment=lambda *a: {},
        layout=_no_layout, child_script=node_sandbox.HARNESS / "harness.js", probe=probed,
        static_counts=static_counts_ts if typescript else static_counts_js,
        test_inputs=js_inputs.collect_js_inputs, examples=js_inputs.examples,
        module_view=js_module_view, canonical=js_values.canonical, proposed_inputs=True,
        run=_run(typescript), require=require, modules=True, comment_examples=True,
        compile_error=lambda code: None, inputs=json_inputs(name, language),
        outside_names=lambda code: js_outside.outside_names(code, language),
        shown=js_values.shown_text, version=lambda _interpreter: version(),
        instances_alone=True,
    )


JAVASCRIPT = _entry("javascript", False)
TYPESCRIPT = _entry("typescript", True)

__all__ = ["JAVASCRIPT", "TYPESCRIPT", "bytecode_counts", "mnemonic", "split_printout",
           "static_counts_js", "static_counts_ts", "version"]
