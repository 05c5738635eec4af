"""Opcode counts of the candidate's own code objects (stdlib only; runs in the child).

Two mechanisms with identical counts on 3.12+:

- ``monitoring`` (3.12+): ``sys.monitoring`` INSTRUCTION events, enabled with
  ``set_local_events`` on the candidate's code objects only, so harness and library code
  run at full speed. The callback does one dict lookup and one list increment.
- ``settrace`` (3.11, or forced): ``sys.settrace``; the global trace function turns on
  ``f_trace_opcodes`` only in frames of candidate code objects and returns a per-code
  local tracer that increments ``counts[f_lasti]``.

Counts are kept per (code object, byte offset) and mapped to base opnames (as ``dis``
shows them: no CACHE, no specialised or instrumented names) once per :meth:`take`.
"""

from __future__ import annotations

import opcode
import sys
from types import CodeType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MODES = ("monitoring", "settrace")
_TOOL_NAME = "codequorum-tracer"


def default_mode() -> str:
    """``monitoring`` where ``sys.monitoring`` exists, else ``settrace``."""
    return "monitoring" if hasattr(sys, "monitoring") else "settrace"


def code_objects(code: CodeType) -> list[CodeType]:
    """``code`` and every code object nested in its constants, depth first."""
    out: list[CodeType] = []
    stack = [code]
    seen: set[int] = set()
    while stack:
        co = stack.pop()
        if id(co) in seen:
            continue
        seen.add(id(co))
        out.append(co)
        stack.extend(c for c in reversed(co.co_consts) if isinstance(c, CodeType))
    return out


def opname_table(code: CodeType) -> list[str]:
    """Byte offset -> base opname for one code object (``?`` where no instruction starts)."""
    if sys.version_info[:2] == (3, 11):
        return _opname_table_311(code)
    import dis  # its ``collections`` would be a sixth of a portable guest's start

    table = ["?"] * (len(code.co_code) + 2)
    for ins in dis.get_instructions(code):
        table[ins.offset] = ins.opname
    return table


def _opname_table_311(code: CodeType) -> list[str]:
    """``dis.get_instructions``'s offsets and names on 3.11, from ``opcode`` alone: there
    ``co_code`` holds base opcodes, each followed by its inline CACHE entries."""
    names = opcode.opname
    caches: list[int] = opcode._inline_cache_entries  # type: ignore[attr-defined]
    raw = code.co_code
    table = ["?"] * (len(raw) + 2)
    offset = 0
    while offset < len(raw):
        op = raw[offset]
        table[offset] = names[op]
        offset += 2 + 2 * caches[op]
    return table


class OpcodeTracer:
    """Counts executed instructions of registered code objects between start and stop."""

    def __init__(self, mode: str | None = None) -> None:
        self.mode = mode or default_mode()
        if self.mode not in MODES:
            raise ValueError(f"unknown trace mode {self.mode!r}")
        if self.mode == "monitoring" and not hasattr(sys, "monitoring"):
            raise RuntimeError("sys.monitoring needs Python 3.12+")
        # Keyed by id(): hashing a code object hashes its constants and names, far too
        # slow for a per-instruction callback, and two equal code objects (a version
        # compiled on its own and again in its module) are two places to count. The code
        # objects are kept alive with their counters, so their ids stay theirs.
        self._counts: dict[int, tuple[CodeType, list[int]]] = {}
        self._by_id: dict[int, list[int]] = {}
        self._tables: dict[int, list[str]] = {}
        self._locals: dict[int, Any] = {}
        self._tool: int | None = None
        self._global: Any = None
        self._active = False

    # registration ----------------------------------------------------------------
    def register(self, code: CodeType) -> None:
        """Count ``code`` and every code object nested in it."""
        for co in code_objects(code):
            if id(co) in self._counts:
                continue
            arr = [0] * (len(co.co_code) + 2)
            self._counts[id(co)] = (co, arr)
            self._by_id[id(co)] = arr
            self._locals[id(co)] = _make_local_tracer(arr)

    # start / stop ----------------------------------------------------------------
    def start(self) -> None:
        """Begin counting (idempotent)."""
        if self._active:
            return
        self._active = True
        if self.mode == "monitoring":
            mon: Any = sys.monitoring  # type: ignore[attr-defined]
            if self._tool is not None and mon.get_tool(self._tool) != _TOOL_NAME:
                self._tool = None  # freed or taken over since the last test: claim anew
            if self._tool is None:
                self._tool = _claim_tool_id()
                mon.register_callback(
                    self._tool, mon.events.INSTRUCTION, _make_callback(self._by_id)
                )
            for co, _arr in self._counts.values():
                mon.set_local_events(self._tool, co, mon.events.INSTRUCTION)
        else:
            # 3.12.0-3.12.x turn opcode events on at settrace() time only if some frame
            # has asked for them already (the interpreter's f_opcode_trace_set flag).
            here = sys._getframe()
            here.f_trace_opcodes = True
            self._global = _make_global_tracer(self._locals)
            sys.settrace(self._global)
            here.f_trace_opcodes = False

    def stop(self) -> bool:
        """Stop counting (idempotent); False if counting had been switched off meanwhile.

        Under ``settrace`` that happens when the trace function raised (CPython then
        unsets it, e.g. on a RecursionError) or someone else called ``sys.settrace``;
        under ``monitoring`` when the tool id was freed or taken over.
        """
        if not self._active:
            return True
        self._active = False
        if self.mode == "monitoring":
            mon: Any = sys.monitoring  # type: ignore[attr-defined]
            assert self._tool is not None
            intact = mon.get_tool(self._tool) == _TOOL_NAME
            if intact:
                for co, _arr in self._counts.values():
                    mon.set_local_events(self._tool, co, 0)
            return bool(intact)
        intact = sys.gettrace() is self._global
        sys.settrace(None)
        return intact

    def close(self) -> None:
        """Stop and release the monitoring tool id."""
        self.stop()
        if self._tool is not None:
            mon: Any = sys.monitoring  # type: ignore[attr-defined]
            if mon.get_tool(self._tool) == _TOOL_NAME:
                mon.register_callback(self._tool, mon.events.INSTRUCTION, None)
                mon.free_tool_id(self._tool)
            self._tool = None

    # results ---------------------------------------------------------------------
    def take(self) -> dict[str, int]:
        """Opname counts since the last take; resets the counters."""
        out: dict[str, int] = {}
        for key, (co, arr) in self._counts.items():
            table = None
            for off, n in enumerate(arr):
                if n:
                    if table is None:
                        table = self._tables.get(key)
                        if table is None:
                            table = self._tables[key] = opname_table(co)
                    name = table[off] if off < len(table) else "?"
                    out[name] = out.get(name, 0) + n
                    arr[off] = 0
        return out


def _make_callback(by_id: dict[int, list[int]]) -> Any:
    """The INSTRUCTION callback: remembers the last code object's counters."""
    last_code: Any = None
    last_arr: list[int] = []

    def on_instruction(code: CodeType, offset: int) -> None:
        nonlocal last_code, last_arr
        if code is not last_code:
            last_arr = by_id[id(code)]
            last_code = code
        last_arr[offset] += 1

    return on_instruction


def _make_local_tracer(arr: list[int]) -> Any:
    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            arr[frame.f_lasti] += 1
        return local

    return local


def _make_global_tracer(locals_by_id: dict[int, Any]) -> Any:
    get = locals_by_id.get

    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        local = get(id(frame.f_code))
        if local is not None:
            # 3.12+ only switches opcode events on when f_trace is already set.
            frame.f_trace = local
            frame.f_trace_lines = False
            frame.f_trace_opcodes = True
        return local

    return global_trace


def _claim_tool_id() -> int:
    mon: Any = sys.monitoring  # type: ignore[attr-defined]
    for tool in (4, 3, 2, 1, 5, 0):
        if mon.get_tool(tool) is None:
            mon.use_tool_id(tool, _TOOL_NAME)
            return tool
    raise RuntimeError("no free sys.monitoring tool id")
