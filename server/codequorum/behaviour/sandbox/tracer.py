"""Opcode counts of the candidate's own code objects (stdlib only; runs in the child).

Four mechanisms with identical counts:

- ``counters`` (3.11, the default there): no trace function at all; each candidate code
  object runs as a copy with a counter at the start of every basic block, its counts
  multiplied out by each block's static opcodes (``block_counts.py``). Switching
  ``sys.settrace`` on alone costs 3.11 its specialising interpreter (5-10x).

- ``monitoring`` (3.12+): ``sys.monitoring`` INSTRUCTION events, enabled with
  ``set_local_events`` on the candidate's code objects only, so harness and library code
  run at full speed. The callback does one dict lookup and one list increment.
- ``settrace`` (3.11, or forced): ``sys.settrace``; the global trace function gives only
  frames of candidate code objects a local tracer. On 3.11 it counts whole straight runs
  (:class:`RunTable`): while a frame executes runs, only *line* events fire, each adding
  one entry for the run that must follow it (corrections for a branch's side not taken,
  an instruction without a line, an exception that cut a run short are applied per
  event). Where no run is known (yields, re-raises, branches no event tells apart) the
  frame counts opcode events one by one until one lands where a run starts. On 3.12+ it
  counts per opcode, as ``settrace-opcodes`` does.
- ``settrace-opcodes``: ``f_trace_opcodes`` in candidate frames and ``counts[f_lasti]``
  per opcode event: the reference the run counting is tested against, and the bench's
  baseline.

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

MODES = ("monitoring", "settrace", "settrace-opcodes", "counters")
_TOOL_NAME = "codequorum-tracer"


def default_mode() -> str:
    """``monitoring`` where ``sys.monitoring`` exists, ``counters`` on 3.11, else
    ``settrace``."""
    if hasattr(sys, "monitoring"):
        return "monitoring"
    return "counters" if sys.version_info[:2] == (3, 11) else "settrace"


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


# straight runs (3.11) ------------------------------------------------------------
#: 3.11's line events: a *line* event fires before an instruction whose line differs from
#: the previous instruction's, or that a backward jump reached (never on a line of None,
#: never on the instruction after EXTENDED_ARG, and after the first RESUME always).
LINE_RUNS = sys.version_info[:2] == (3, 11)
END = -1  # the run ends here: each successor starts with a trace event
NO_RUN = -2  # no run is known from here: counted per opcode
MAX_FIX = 256  # the longest correction kept (a branch skipping more has no run)
MIN_SWITCH = 3  # the shortest run an opcode event switches to (else events flip-flop)
_OP = opcode.opmap
#: Leave the frame or its instruction stream with no event that says where: yields and
#: re-raises (a bare ``raise`` re-raises too, see :func:`_step`).
_NO_EVENT_EXITS = frozenset(
    _OP[name] for name in ("YIELD_VALUE", "SEND", "RESUME", "RERAISE", "RETURN_GENERATOR",
                           "END_ASYNC_FOR") if name in _OP
)
_UNCONDITIONAL = frozenset(
    _OP[name] for name in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT")
    if name in _OP
)
_JUMPS = frozenset(opcode.hasjrel)
_EXITS = frozenset((_OP["RETURN_VALUE"], _OP["RAISE_VARARGS"]))


#: A correction applied once per event: signed offsets, +o counts o once more, -o once less.
Fix = tuple[int, ...]
#: An edge a run may leave by: (from, to, how it goes on there: ``event``, ``connector``
#: or ``return`` (a tail ending the frame), the edge is a branch's side the run did not
#: assume).
Edge = tuple[int, int, str, bool]


class RunTable:
    """One 3.11 code object's straight runs.

    ``links[o]``: the offset executed after ``o`` without a trace event in between (at a
    branch with an event on one side only: the other side, assumed), :data:`END`
    or :data:`NO_RUN`; ``counted[o]``: an opcode event fires at ``o``; ``straight[o]``: a
    run is known from ``o``; ``start_of[o]``: the instruction holding byte ``o`` (an
    exception event may point at a CALL's last cache entry). A line event at ``o`` reached
    while a run was being counted applies ``fixes[o]``: the run's assumed part that the
    branch did not take, minus, and a *connector* passed on the way, plus (an instruction
    without a line, which fires no event: a loop's closing jump). ``raised[c]``: the same
    when connector ``c`` raised. ``returns[r]``: the same at the 'return' event of ``r``
    when a branch with no event on either side skipped to a *tail* (constants loaded, then
    RETURN_VALUE at ``r``: a comprehension's end) while a run was being counted.
    """

    def __init__(self, code: CodeType) -> None:
        shape = _Shape(code)
        self.links = [NO_RUN] * shape.size
        self.counted = bytearray(shape.size)
        self.start_of = list(range(shape.size))
        edges: list[Edge] = []
        for off, op, arg, end in reversed(shape.instructions):
            self.start_of[off:end] = [off] * (end - off)
            if off > shape.first:
                self.counted[off] = off not in shape.after_ext and op != _OP["RESUME"]
                if shape.lines[off] != -1:
                    self.links[off] = _step(shape, off, op, arg, end, edges)
        self._propagate()
        self.fixes: dict[int, Fix] = {}
        self.raised: dict[int, Fix] = {}
        self.tails: dict[int, list[tuple[tuple[int, ...], Fix]]] = {}
        for off in self._settle(shape, edges):
            self.links[off] = NO_RUN
        self._propagate()
        self.returns = self._settle_returns(shape)
        self._propagate()
        for ret, arrivals in self.tails.items():  # tails that only dropped runs lead to
            if all(self.links[o] == NO_RUN for sources, _fix in arrivals for o in sources):
                self.returns.pop(ret, None)
        self.straight = bytearray(link != NO_RUN for link in self.links)
        self.landing = bytearray(shape.size)
        for off, fix in self.fixes.items():
            self.landing[off] = bool(fix)

    def run(self, offset: int) -> list[int]:
        """The counted offsets of the run from ``offset`` (which it includes)."""
        out: list[int] = []
        while offset >= 0:
            if self.counted[offset]:
                out.append(offset)
            offset = self.links[offset]
        return out

    def _skipped(self, source: int, lengths: list[int]) -> Fix | None:
        """Minus the run after ``source``: what its branch's other side skips; None when
        longer than :data:`MAX_FIX` (a correction is applied per event: kept short)."""
        if lengths[self.links[source]] > MAX_FIX:
            return None
        return tuple(-o for o in self.run(self.links[source]))

    def lengths(self) -> list[int]:
        """Offset -> how many opcodes its run counts (links go forward)."""
        lengths = [0] * (len(self.links) + 2)  # END and NO_RUN index the last two: 0
        for off in range(len(self.links) - 1, -1, -1):
            if self.links[off] != NO_RUN:
                lengths[off] = self.counted[off] + lengths[self.links[off]]
        return lengths

    def _propagate(self) -> None:
        """No run from an offset whose run goes on to one with none (links go forward)."""
        links = self.links
        for off in range(len(links) - 1, -1, -1):
            if links[off] >= 0 and links[links[off]] == NO_RUN:
                links[off] = NO_RUN

    def _settle(self, shape: _Shape, edges: list[Edge]) -> set[int]:
        """Each landing's and connector's correction; the offsets whose edges disagree
        with one another on it (their runs are dropped)."""
        bad: set[int] = set()
        into: dict[int, list[tuple[tuple[int, ...], Fix]]] = {}
        landings: dict[int, list[tuple[tuple[int, ...], Fix]]] = {}
        lengths = self.lengths()
        for source, to, how, assumed in edges:
            if self.links[source] == NO_RUN:
                continue
            fix = self._skipped(source, lengths) if assumed else ()
            if fix is None:
                bad.add(source)
                continue
            if how == "return":
                tail = shape.return_tail(to)
                counted = tuple(o for o in tail if self.counted[o])
                self.tails.setdefault(tail[-1], []).append(((source,), (*fix, *counted)))
            else:
                (into if how == "connector" else landings).setdefault(to, []).append(
                    ((source,), fix))
        for connector, arrivals in into.items():
            base = _agreed(arrivals, bad)
            own = (*base, connector) if self.counted[connector] else base
            self.raised[connector] = own
            sources = tuple(o for srcs, _f in arrivals for o in srcs)
            landings.setdefault(shape.exit_of(connector), []).append((sources, own))
        for landing, arrivals in landings.items():
            self.fixes[landing] = _agreed(arrivals, bad)
        return bad


    def _settle_returns(self, shape: _Shape) -> dict[int, Fix]:
        """Each tail's correction at its 'return' event, where a run being counted can reach
        the tail only through the branches that skip it (else those lose their runs)."""
        out: dict[int, Fix] = {}
        linked: dict[int, list[int]] = {}
        for off, to in enumerate(self.links):
            if to >= 0:
                linked.setdefault(to, []).append(off)
        for ret, arrivals in self.tails.items():
            members = {o for _s, fix in arrivals for o in fix if o > 0}
            fix = _agreed(arrivals, set())
            if fix and not shape.handled and not _reached(shape, members, linked):
                out[ret] = fix
                continue
            for sources, _fix in arrivals:
                for source in sources:
                    self.links[source] = NO_RUN
        return out

def _reached(shape: _Shape, members: set[int], linked: dict[int, list[int]]) -> bool:
    """Whether a line event or a run (``linked``: offset -> offsets linked to it) may
    reach one of ``members`` other than through them."""
    if members & shape.event_targets():
        return True
    return any(off not in members for to in members for off in linked.get(to, ()))


def _agreed(arrivals: list[tuple[tuple[int, ...], Fix]], bad: set[int]) -> Fix:
    """The one correction all ``arrivals`` agree on; if they differ, none, and the
    sources of every non-empty one go to ``bad``."""
    fixes = {fix for _srcs, fix in arrivals}
    if len(fixes) == 1:
        return fixes.pop()
    for sources, fix in arrivals:
        if fix:
            bad.update(sources)
    return ()


class _Shape:
    """A 3.11 code object's instructions and lines, as the run analysis reads them."""

    def __init__(self, code: CodeType) -> None:
        self.instructions = _decode_311(code)
        self.size = len(code.co_code) + 2
        self.lines = _lines(code, self.size)
        self.by_offset = {i[0]: i for i in self.instructions}
        resumes = (o for o, op, _a, _e in self.instructions if op == _OP["RESUME"])
        self.first = next(resumes, self.size)
        self.after_ext = {e for _o, op, _a, e in self.instructions if op == opcode.EXTENDED_ARG}
        self.handled = bool(code.co_exceptiontable)
        self._events: set[int] | None = None

    def event_targets(self) -> set[int]:
        """Every offset a line event may fire at: after RESUME, and wherever an edge
        from any instruction fires one."""
        if self._events is None:
            self._events = {self.first + 2}
            for off, op, arg, end in self.instructions:
                ways = [] if op in _UNCONDITIONAL or op in _EXITS else [end]
                if op in _JUMPS:
                    ways.append(_target(off, op, arg))
                for to in ways:
                    if self.arrival(to, off) == "event":
                        self._events.add(to)
        return self._events

    def arrival(self, to: int, off: int) -> str:
        """How going from ``off`` to ``to`` goes on: ``event`` (a line event fires at
        ``to``), ``link`` (no event: the run goes on), ``connector`` (no event at ``to``,
        which has no line) or ``none`` (no way to count it)."""
        if to >= self.size - 2 or to <= self.first or to == off:
            return "none"  # a jump to itself (`while True: pass`) fires no line event
        if to in self.after_ext:
            return "link"  # never traced: runs on with the EXTENDED_ARG before it
        line = self.lines[to]
        if line == -1:
            return "connector" if self.exit_of(to) >= 0 else "none"
        if to < off or line != self.lines[off]:
            return "event"
        return "link"

    def exit_of(self, connector: int) -> int:
        """Where a connector (one instruction without a line) goes, which then starts with
        a line event; -1 if it cannot serve as one."""
        _o, op, arg, end = self.by_offset[connector]
        if op in _UNCONDITIONAL:
            to = _target(connector, op, arg)
        elif op in _JUMPS or op in _NO_EVENT_EXITS or op in _EXITS:
            return -1
        else:
            to = end
        if to >= self.size - 2 or to in self.after_ext or self.lines[to] == -1:
            return -1
        return to


    def return_tail(self, start: int) -> list[int]:
        """The offsets from ``start`` to a RETURN_VALUE on its line if only constants are
        loaded on the way (nothing that may raise), else none."""
        tail: list[int] = []
        off = start
        while off in self.by_offset and self.lines[off] == self.lines[start]:
            _o, op, _a, end = self.by_offset[off]
            tail.append(off)
            if op == _OP["RETURN_VALUE"]:
                return tail
            if op not in (_OP["LOAD_CONST"], _OP["NOP"]):
                return []
            off = end
        return []


def _target(off: int, op: int, arg: int) -> int:
    """A relative jump's target on 3.11."""
    return off + 2 + 2 * (-arg if "BACKWARD" in opcode.opname[op] else arg)


def _step(shape: _Shape, off: int, op: int, arg: int, end: int, edges: list[Edge]) -> int:
    """Where a run goes after the instruction at ``off``: the next offset reached with no
    trace event, :data:`END` if every way on starts with one (each such edge is added to
    ``edges``), :data:`NO_RUN` if neither."""
    if op in _NO_EVENT_EXITS or (op == _OP["RAISE_VARARGS"] and arg == 0):
        return NO_RUN
    if op in _EXITS:
        return END  # a 'return' ends the frame; a raise gives an 'exception' event
    ways = []
    if op not in _UNCONDITIONAL:
        ways.append(end)
    if op in _JUMPS:
        ways.append(_target(off, op, arg))
    kinds = [shape.arrival(to, off) for to in ways]
    if "none" in kinds:
        return NO_RUN
    if "link" not in kinds:
        edges.extend((off, to, kind, False) for to, kind in zip(ways, kinds, strict=True))
        return END
    if len(ways) == 1:
        return ways[0]
    if kinds.count("link") == 1:  # assume the side without an event
        assumed = kinds.index("link")
        edges.append((off, ways[1 - assumed], kinds[1 - assumed], True))
        return ways[assumed]
    for assumed in (0, 1):  # no event either way: one side may end the frame at once
        if shape.return_tail(ways[1 - assumed]):
            edges.append((off, ways[1 - assumed], "return", True))
            return ways[assumed]
    return NO_RUN


def _decode_311(code: CodeType) -> list[tuple[int, int, int, int]]:
    """(offset, base opcode, argument with EXTENDED_ARG, end offset after the caches)."""
    caches: list[int] = opcode._inline_cache_entries  # type: ignore[attr-defined]
    raw = code.co_code
    out = []
    offset = extended = 0
    while offset < len(raw):
        op = raw[offset]
        arg = raw[offset + 1] | extended
        extended = arg << 8 if op == opcode.EXTENDED_ARG else 0
        end = offset + 2 + 2 * caches[op]
        out.append((offset, op, arg, end))
        offset = end
    return out


def _lines(code: CodeType, size: int) -> list[int]:
    """Byte offset -> line (-1 where it has none)."""
    lines = [-1] * size
    for start, end, line in code.co_lines():
        if line is not None:
            lines[start:end] = [line] * (end - start)
    return lines


class OpcodeTracer:
    """Counts executed instructions of registered code objects between start and stop."""

    def __init__(self, mode: str | None = None, blocks: Any = None) -> None:
        """``blocks``: the ``block_counts`` module (the child loads it by path)."""
        self.mode = mode or default_mode()
        if self.mode not in MODES:
            raise ValueError(f"unknown trace mode {self.mode!r}")
        if self.mode == "monitoring" and not hasattr(sys, "monitoring"):
            raise RuntimeError("sys.monitoring needs Python 3.12+")
        if self.mode == "counters":
            if sys.version_info[:2] != (3, 11):
                raise RuntimeError("counters are compiled into 3.11 bytecode only")
            if blocks is None:
                from codequorum.behaviour.sandbox import block_counts as blocks
        self._blocks = blocks
        # counters: each rewrite with its per-offset counts and its snapshot at start()
        self._rewrites: list[tuple[Any, list[int], list[int]]] = []
        self._uncounted = False
        # Keyed by id(): hashing a code object hashes its constants and names, far too
        # slow for a per-instruction callback, and two equal code objects (a version
        # compiled on its own and again in its module) are two places to count. The code
        # objects are kept alive with their counters, so their ids stay theirs.
        self._counts: dict[int, tuple[CodeType, list[int]]] = {}
        self._by_id: dict[int, list[int]] = {}
        self._tables: dict[int, list[str]] = {}
        self._locals: dict[int, Any] = {}
        # settrace on 3.11: entries of straight runs per offset, and the offsets where an
        # exception event cut a run short (see RunTable).
        self._line_runs = self.mode == "settrace" and LINE_RUNS
        self._runs: dict[int, tuple[RunTable, _RunCounts]] = {}
        self._tool: int | None = None
        self._global: Any = None
        self._active = False

    # registration ----------------------------------------------------------------
    def register(self, code: CodeType) -> CodeType:
        """Count ``code`` and every code object nested in it; returns the code to run
        (under ``counters`` its instrumented copy, else ``code``)."""
        if self.mode == "counters":
            return self._instrument(code)
        for co in code_objects(code):
            if id(co) in self._counts:
                continue
            arr = [0] * (len(co.co_code) + 2)
            self._counts[id(co)] = (co, arr)
            self._by_id[id(co)] = arr
            if self._line_runs:
                table = RunTable(co)
                counts = _RunCounts(len(arr))
                self._runs[id(co)] = (table, counts)
                self._locals[id(co)] = _make_run_tracer(arr, counts, table)
            else:
                self._locals[id(co)] = _make_local_tracer(arr)
        return code

    def _instrument(self, code: CodeType) -> CodeType:
        """The counted copy of ``code``; ``code`` itself if it cannot be rewritten (its
        counts are then missing, never wrong: :meth:`stop` says tracing broke)."""
        try:
            copy, rewrites = self._blocks.instrument(code)
        except Exception:  # a code shape the rewriter does not know: no counts
            self._uncounted = True
            return code
        for rewrite in rewrites:
            arr = [0] * (len(rewrite.original.co_code) + 2)
            self._counts[id(rewrite.original)] = (rewrite.original, arr)
            self._rewrites.append((rewrite, arr, rewrite.snapshot()))
        return copy  # type: ignore[no-any-return]

    # start / stop ----------------------------------------------------------------
    def start(self) -> None:
        """Begin counting (idempotent)."""
        if self._active:
            return
        self._active = True
        if self.mode == "counters":
            self._rewrites = [(rw, arr, rw.snapshot()) for rw, arr, _ in self._rewrites]
            for rw, _arr, _before in self._rewrites:
                rw.active[0] = True
        elif self.mode == "monitoring":
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
        if self.mode == "counters":
            intact = not self._uncounted
            for rw, arr, before in self._rewrites:
                rw.active[0] = False
                rw.counts(before, rw.snapshot(), arr)
                intact = intact and not rw.exhausted()
            return intact
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
        for key, (table, counts) in self._runs.items():
            counts.add_to(table, self._counts[key][1])
        for key, (co, arr) in self._counts.items():
            if any(arr):
                self._add_names(key, co, arr, out)
        return out

    def _add_names(self, key: int, co: CodeType, arr: list[int], out: dict[str, int]) -> None:
        """Add one code object's counts to ``out`` by opname and reset them."""
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = opname_table(co)
        for off, n in enumerate(arr):
            if n:
                name = table[off] if off < len(table) else "?"
                out[name] = out.get(name, 0) + n
                arr[off] = 0


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


class _RunCounts:
    """Per offset of one code object: runs started, landings reached while counting runs
    (their corrections are due), exceptions that cut a run short, returns through a tail
    the run did not count."""

    def __init__(self, size: int) -> None:
        self.starts = [0] * size
        self.joins = [0] * size
        self.stops = [0] * size
        self.ends = [0] * size

    def add_to(self, table: RunTable, arr: list[int]) -> None:
        """Add what the runs counted to ``arr`` (per offset) and reset."""
        for offset, n in enumerate(self.starts):
            if n:
                for at in table.run(offset):
                    arr[at] += n
                self.starts[offset] = 0
        for offset, n in enumerate(self.joins):
            if n:
                _apply(table.fixes[offset], n, arr)
                self.joins[offset] = 0
        for offset, n in enumerate(self.ends):
            if n:
                _apply(table.returns[offset], n, arr)
                self.ends[offset] = 0
        for offset, n in enumerate(self.stops):
            if n:
                at = table.start_of[offset]
                fix = table.raised.get(at)
                if fix is None:
                    fix = tuple(-o for o in table.run(at)[1:])
                _apply(fix, n, arr)
                self.stops[offset] = 0


def _apply(fix: Fix, n: int, arr: list[int]) -> None:
    for signed in fix:
        if signed > 0:
            arr[signed] += n
        else:
            arr[-signed] -= n


def _make_run_tracer(arr: list[int], counts: _RunCounts, table: RunTable) -> Any:
    """The local tracer counting straight runs. A frame is in one of two modes: a run
    being counted (line events on, opcode events off) or opcodes counted one by one (the
    reverse, so code without runs costs what one event per opcode costs). An opcode event
    where a run of at least :data:`MIN_SWITCH` opcodes starts switches to runs; a line
    event where none starts, or an exception event, switches back. CPython reads both
    flags after the callback, for the same instruction."""
    starts, joins, stops, ends = counts.starts, counts.joins, counts.stops, counts.ends
    # per offset: 1 a run starts here, 2 a landing with a correction, 4 a tail's return
    marks = bytearray(a | b << 1 for a, b in zip(table.straight, table.landing, strict=True))
    for ret in table.returns:
        marks[ret] |= 4
    lengths = table.lengths()
    switch = bytearray(s and n >= MIN_SWITCH for s, n in zip(table.straight, lengths,
                                                              strict=False))

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            at = frame.f_lasti
            if switch[at]:
                starts[at] += 1
                frame.f_trace_opcodes = False
                frame.f_trace_lines = True
            else:
                arr[at] += 1
        elif event == "line":
            at = frame.f_lasti
            mark = marks[at] & 3
            if mark == 1:
                starts[at] += 1
            elif mark == 0:
                frame.f_trace_lines = False
                frame.f_trace_opcodes = True
            else:
                _land(frame, at, mark, starts, joins)
        elif event == "exception" and not frame.f_trace_opcodes:
            stops[frame.f_lasti] += 1  # the run stopped here; count the rest one by one
            frame.f_trace_lines = False
            frame.f_trace_opcodes = True
        elif event == "return" and marks[frame.f_lasti] & 4 and not frame.f_trace_opcodes:
            ends[frame.f_lasti] += 1  # left through a tail the run did not count
        return local

    return local


def _land(frame: Any, at: int, mark: int, starts: list[int], joins: list[int]) -> None:
    """A line event (a run was being counted) at a landing: its correction is due."""
    joins[at] += 1
    if mark & 1:
        starts[at] += 1
    else:
        frame.f_trace_lines = False
        frame.f_trace_opcodes = True


def _make_global_tracer(locals_by_id: dict[int, Any]) -> Any:
    get = locals_by_id.get

    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        local = get(id(frame.f_code))
        if local is not None:
            # 3.12+ only switches opcode events on when f_trace is already set.
            frame.f_trace = local
            # Counted one by one until an opcode event where a run starts (a resumed
            # generator continues its line: no line event would say where).
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
