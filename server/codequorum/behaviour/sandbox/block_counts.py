"""Counters compiled into a copy of a 3.11 code object (stdlib only; runs in the child).

The ``counters`` trace mode needs no trace function: CPython 3.11 runs every frame without
its specialising interpreter once ``sys.settrace`` is on, which alone costs 5-10x. Instead
each candidate code object is rewritten, before it runs, into a copy whose every basic
block starts by advancing a counter of its own (``LOAD_CONST <itertools.repeat>;
FOR_ITER; POP_TOP; POP_TOP``: no call, no eval-breaker check, no allocation: a
``repeat(None, sys.maxsize)`` counts down). An instruction's count is
its block's count, as ``settrace-opcodes`` counts opcode events: never RESUME, nothing
before the first RESUME, never the instruction after an EXTENDED_ARG.

A block cut short by an exception counted its instructions after the raising one too.
Every exception reaching a frame is seen once: each handler of the copy, and one added
handler covering everything else (which re-raises), first calls a *fixer* with the
exception. Its traceback's newest entry is this frame's, with the raising offset, when
it was raised here (a re-raise adds none); the fixer records that offset only if this
handler is the one the table gives for it, so a re-raise reaching an outer handler is
not recorded twice. :meth:`Rewrite.counts` subtracts, per recorded offset, what its block
holds after it. The instruction after a YIELD_VALUE starts a block, so a generator
suspended and never resumed counted exactly what ran.

What the copy keeps: names, arguments, flags, first line and every original
instruction's location (tracebacks and ``f_lineno`` read the same); what differs: its
bytes, its constants (the counters and fixers are appended), its stack size and
exception table.
"""

from __future__ import annotations

import itertools
import opcode
import sys
from types import CodeType, TracebackType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: 3.11's bytecode only; on other versions the module loads (the child loads it on every
#: interpreter) but is not used.
AVAILABLE = sys.version_info[:2] == (3, 11)
_OP = opcode.opmap
_CACHES: list[int] = opcode._inline_cache_entries if AVAILABLE else []  # type: ignore[attr-defined]
_EXT = opcode.EXTENDED_ARG
_JUMPS = frozenset(opcode.hasjrel)
_BACKWARD = frozenset(o for o in _JUMPS if "BACKWARD" in opcode.opname[o])
_ENDS = frozenset(_OP[n] for n in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "YIELD_VALUE",
                                   "JUMP_FORWARD", "JUMP_BACKWARD",
                                   "JUMP_BACKWARD_NO_INTERRUPT") if n in _OP)
#: First halves of 3.11's superinstructions whose second half (a LOAD_FAST) may raise.
_PAIRED = frozenset(_OP[n] for n in ("LOAD_FAST", "STORE_FAST", "LOAD_CONST") if n in _OP)
_TRACEBACK: Any = BaseException.__dict__["__traceback__"]  # the descriptor itself
#: Stack entries the added code needs at most (the fixer's call: NULL, fixer, exception).
EXTRA_STACK = 3
_TIMES = sys.maxsize  # a counter's turns
_ZEROS = bytes(2 * max(_CACHES, default=0))


class _Ins:
    """One original instruction (its EXTENDED_ARG prefixes merged in)."""

    __slots__ = ("arg", "at", "end", "op", "start", "target")

    def __init__(self, start: int, at: int, op: int, arg: int, end: int) -> None:
        self.start, self.at, self.op, self.arg, self.end = start, at, op, arg, end
        self.target = -1
        if op in _JUMPS:
            self.target = at + 2 + 2 * (-arg if op in _BACKWARD else arg)


def decode(raw: bytes) -> list[_Ins]:
    """The instructions of 3.11 bytes, EXTENDED_ARG merged into the one it extends."""
    out: list[_Ins] = []
    offset = start = extended = 0
    while offset < len(raw):
        op = raw[offset]
        arg = raw[offset + 1] | extended
        end = offset + 2 + 2 * _CACHES[op]
        if op == _EXT:
            extended = arg << 8
        else:
            out.append(_Ins(start, offset, op, arg, end))
            extended = 0
            start = end
        offset = end
    return out


def _varint(value: int) -> bytes:
    """A location table's varint: 6-bit chunks, the least significant first."""
    out = bytearray()
    while value >= 64:
        out.append(64 | (value & 63))
        value >>= 6
    out.append(value)
    return bytes(out)


def _table_varint(value: int) -> bytes:
    """An exception table's varint: 6-bit chunks, the most significant first."""
    chunks = [value & 63]
    value >>= 6
    while value:
        chunks.append(64 | (value & 63))
        value >>= 6
    return bytes(reversed(chunks))


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    byte = data[pos]
    value = byte & 63
    pos += 1
    while byte & 64:
        byte = data[pos]
        pos += 1
        value = value << 6 | (byte & 63)
    return value, pos


def exception_entries(code: CodeType) -> list[tuple[int, int, int, int, bool]]:
    """(start, end, target, depth, lasti) per entry, byte offsets, ``end`` exclusive."""
    data, pos, out = code.co_exceptiontable, 0, []
    while pos < len(data):
        start, pos = _read_varint(data, pos)
        size, pos = _read_varint(data, pos)
        target, pos = _read_varint(data, pos)
        dl, pos = _read_varint(data, pos)
        out.append((2 * start, 2 * (start + size), 2 * target, dl >> 1, bool(dl & 1)))
    return out


def _encode_entries(entries: list[tuple[int, int, int, int, bool]]) -> bytes:
    out = bytearray()
    for start, end, target, depth, lasti in entries:
        first = _table_varint(start // 2)
        out.append(first[0] | 128)  # the first byte of an entry is marked
        out += first[1:]
        out += _table_varint((end - start) // 2) + _table_varint(target // 2)
        out += _table_varint(depth << 1 | int(lasti))
    return bytes(out)


def _svarint(value: int) -> bytes:
    return _varint((-value) << 1 | 1 if value < 0 else value << 1)


def _locations(units: list[tuple[Any, ...]], first_line: int) -> bytes:
    """A 3.11 location table: one entry per run of up to 8 code units of one position."""
    out = bytearray()
    line = first_line
    i = 0
    while i < len(units):
        pos = units[i]
        n = 1
        while n < 8 and i + n < len(units) and units[i + n] == pos:
            n += 1
        start, end_line, col, end_col = pos
        if start is None:
            out.append(128 | 15 << 3 | (n - 1))
        elif end_line is None or col is None or end_col is None:
            out.append(128 | 13 << 3 | (n - 1))
            out += _svarint(start - line)
            line = start
        else:
            out.append(128 | 14 << 3 | (n - 1))
            out += _svarint(start - line) + _varint(end_line - start)
            out += _varint(col + 1) + _varint(end_col + 1)
            line = start
        i += n
    return bytes(out)


class Rewrite:
    """One code object's instrumented copy and how to read its counts.

    ``blocks[b]``: the original offsets block ``b`` counts; ``cut_after[o]``: at an
    exception raised at byte ``o`` of the copy, its block and how many of its opcodes ran
    (the rest were counted but did not run).
    """

    def __init__(self, code: CodeType, children: dict[int, CodeType]) -> None:
        self.original = code
        ins = decode(code.co_code)
        self.counters: list[Any] = []
        self.cuts: dict[int, int] = {}
        self.active = [False]
        self._wheres: dict[int, list[Any]] = {}
        self.cut_after: dict[int, tuple[int, int]] = {}
        self.second: dict[int, tuple[int, str | None]] = {}
        first = next((i for i, x in enumerate(ins) if x.op == _OP["RESUME"]), len(ins) - 1)
        entries = exception_entries(code)
        leaders, handlers = _leaders(ins, first, entries)
        self.blocks = _blocks(ins, first, leaders)
        self.code = self._assemble(code, ins, first, leaders, handlers, entries, children)

    # counts ------------------------------------------------------------------------
    def snapshot(self) -> list[int]:
        """Each block's count so far."""
        return [_TIMES - c.__length_hint__() for c in self.counters]

    def exhausted(self) -> bool:
        """Whether a counter ran out (``sys.maxsize`` turns of one block): it counts no
        more, so counts are missing from then on."""
        return any(c.__length_hint__() == 0 for c in self.counters)

    def counts(self, before: list[int], after: list[int], arr: list[int]) -> None:
        """Add to ``arr`` (per original offset) what ran between two snapshots, less the
        parts of blocks that exceptions cut short (recorded while active); resets those."""
        for block, (a, b) in enumerate(zip(before, after, strict=True)):
            n = b - a
            if n:
                for off in self.blocks[block]:
                    arr[off] += n
        for at, n in list(self.cuts.items()):
            if type(at) is int and type(n) is int:  # a version may write here
                block, done = self.cut_after.get(at, (-1, 0))
                for off in self.blocks[block][done:] if block >= 0 else ():
                    arr[off] -= n
        self.cuts.clear()

    # assembly ----------------------------------------------------------------------
    def _assemble(self, code: CodeType, ins: list[_Ins], first: int, leaders: set[int],
                  handlers: set[int], entries: list[tuple[int, int, int, int, bool]],
                  children: dict[int, CodeType]) -> CodeType:
        consts = [children.get(id(c), c) if isinstance(c, CodeType) else c
                  for c in code.co_consts]
        block_of = {o: b for b, o in enumerate(sorted(leaders))}
        self.counters = [itertools.repeat(None, _TIMES) for _ in block_of]
        counter_at = {o: len(consts) + b for o, b in block_of.items()}
        consts += self.counters
        fixer_at: dict[int, int] = {}
        for target in [*sorted(handlers), -1]:  # -1: the added handler
            fixer_at[target] = len(consts)
            consts.append(self._fixer(target))
        positions = list(code.co_positions())
        program = _Program(ins, first, counter_at, fixer_at, positions)
        raw = program.assemble()
        self._map_cuts(program)
        table = program.table(entries)
        handler_of = [-1] * (len(raw) // 2)
        for start, end, target, _depth, _lasti in table:
            handler_of[start // 2:end // 2] = [target] * ((end - start) // 2)
        frozen = tuple(handler_of)
        for handler, where in self._wheres.items():
            target = program.catch_all if handler < 0 else program.head[program.starts[handler]]
            where[:] = [frozen, target]
        return code.replace(
            co_code=raw, co_consts=tuple(consts), co_stacksize=_stack_size(code),
            co_exceptiontable=_encode_entries(table),
            co_linetable=_locations(program.units, code.co_firstlineno))

    def _map_cuts(self, program: _Program) -> None:
        """``cut_after``: per byte of the copy holding an original instruction or a block
        counter, (block, k): the block counted its opcodes from the k-th on but an
        exception there stops it before them ((-1, 0): nothing counted yet)."""
        block, done = -1, 0
        for kind, start, begin, end in program.layout:
            if kind == "lead":
                block, done = -1, 0
            elif kind == "counter":
                block, done = program.counter_of[start], 0
            elif kind == "ins" and block >= 0 and done < len(self.blocks[block]) \
                    and self.blocks[block][done] == start:
                done += 1
            for byte in range(begin, end, 2):
                self.cut_after[byte] = (block, done)
        self._where_specialised(program)

    def _where_specialised(self, program: _Program) -> None:
        """Where the specialising interpreter reports a raise one instruction early (the
        opcode events see the instructions unspecialised): a PRECALL specialised to make
        the call itself raises at the PRECALL, a CALL to opcode events; of a pair run as
        one superinstruction (``LOAD_FAST__LOAD_FAST``...), the second LOAD_FAST's unbound
        local raises at the first (``second``: first's byte -> second's, first's name)."""
        ins = [(start, begin) for kind, start, begin, _e in program.layout if kind == "ins"]
        adjacent = {a[0]: b for a, b in itertools.pairwise(ins)}
        ends = {start: end for kind, start, _b, end in program.layout if kind == "ins"}
        names = self.original.co_varnames
        for start, begin in ins:
            op, arg = program.op_of[start]
            after = adjacent.get(start)
            if after is None or ends[start] != after[1]:
                continue  # a counter between them: never one superinstruction
            if op == _OP["PRECALL"]:
                for byte in range(begin, ends[start], 2):
                    self.cut_after[byte] = self.cut_after[after[1]]
            elif op in _PAIRED and program.op_of[after[0]][0] == _OP["LOAD_FAST"]:
                first = names[arg] if op == _OP["LOAD_FAST"] else None
                self.second[begin] = (after[1], first)

    def _fixer(self, handler: int) -> Any:
        """The call at handler ``handler`` of the copy (-1: the added one): records where
        the exception was raised if it was raised in this frame and sent here. It holds
        only what it needs (a version can reach it through its constants)."""
        cuts, active, get_frame = self.cuts, self.active, sys._getframe
        tb_of, tb_type, base = _TRACEBACK.__get__, TracebackType, BaseException
        second, unbound = self.second, UnboundLocalError
        where: list[Any] = [(), -1]  # the copy's handler per code unit, this one's target
        self._wheres[handler] = where

        def fix(exc: object) -> None:
            if not active[0] or not isinstance(exc, base):
                return
            tb = tb_of(exc)
            if type(tb) is not tb_type or tb.tb_frame is not get_frame(1):
                return
            at, (handler_of, mine) = tb.tb_lasti, where
            if 0 <= at < 2 * len(handler_of) and handler_of[at // 2] == mine:
                if at in second and isinstance(exc, unbound):
                    at = _which_unbound(at, second[at], exc)
                cuts[at] = cuts.get(at, 0) + 1

        return fix


def _stack_size(code: CodeType) -> int:
    """The copy's stack: a fixer's call on top of what the original needed at a handler
    (its entry included), and the added handler's: the exception and that call."""
    return max(code.co_stacksize, 1) + EXTRA_STACK


def _which_unbound(at: int, pair: tuple[int, str | None], exc: BaseException) -> int:
    """Where an unbound local raised in a superinstruction: at its first half if that
    loads the local the message names, else at its second."""
    second, first = pair
    named = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
    return at if first is not None and f"'{first}'" in named else second


def _leaders(ins: list[_Ins], first: int, entries: list[tuple[int, int, int, int, bool]]
             ) -> tuple[set[int], set[int]]:
    """Offsets (instruction starts) where blocks begin, and the handlers' targets."""
    leaders = {ins[first + 1].start} if first + 1 < len(ins) else set()
    starts = {x.at: x.start for x in ins}
    for i, x in enumerate(ins[first + 1:], start=first + 1):
        if x.target >= 0:
            leaders.add(starts.get(x.target, x.target))
        if (x.op in _JUMPS or x.op in _ENDS) and i + 1 < len(ins):
            leaders.add(ins[i + 1].start)
        if x.op == _OP["RESUME"]:
            leaders.add(x.start)
    handlers = {starts.get(t, t) for _s, _e, t, _d, _l in entries}
    leaders |= handlers
    return {o for o in leaders if o > ins[first].start}, handlers


def _blocks(ins: list[_Ins], first: int, leaders: set[int]) -> list[list[int]]:
    """Per block (in order of their leaders), the original offsets it counts: opcode events
    fire at every instruction after the first RESUME but RESUME, and at an EXTENDED_ARG
    rather than at the instruction it extends."""
    blocks: list[list[int]] = []
    for x in ins[first + 1:]:
        if x.start in leaders:
            blocks.append([])
        if blocks and x.op != _OP["RESUME"]:
            blocks[-1].append(x.start)
    return blocks


class _Program:
    """The copy's instructions: what is inserted where, the jumps' new arguments."""

    def __init__(self, ins: list[_Ins], first: int, counter_at: dict[int, int],
                 fixer_at: dict[int, int], positions: list[tuple[Any, ...]]) -> None:
        self.ins, self.first = ins, first
        self.counter_const = counter_at
        self.fixer_const = fixer_at
        self.positions = positions
        starts = sorted(counter_at)
        self.counter_of = {o: b for b, o in enumerate(starts)}
        self.layout: list[tuple[str, int, int, int]] = []
        self.op_of = {x.start: (x.op, x.arg) for x in ins}
        self.head: dict[int, int] = {}  # original start -> first byte of what precedes it
        self.jump_to: dict[int, int] = {}  # original start -> where jumps land (the counter)
        self.units: list[tuple[Any, ...]] = []
        self.starts = {x.at: x.start for x in ins}
        self.starts.update((x.start, x.start) for x in ins)
        self.catch_all = self.catch_all_fixed = 0
        self.failed: dict[int, int] = {}

    def assemble(self) -> bytes:
        """The bytes of the copy (jump arguments settled with their EXTENDED_ARG sizes)."""
        # code units with argument prefixes: known but for jumps, which grow as needed
        sizes = {x.start: 1 if x.target >= 0 else _units_for(x.arg) for x in self.ins}
        while True:
            raw, grew = self._emit(sizes)
            if not grew:
                return raw

    def _emit(self, sizes: dict[int, int]) -> tuple[bytes, bool]:
        out = bytearray()
        units: list[tuple[Any, ...]] = []
        jumps: list[tuple[_Ins, int]] = []
        self.layout = []
        for x in self.ins:
            pos = self.positions[x.at // 2] if x.at // 2 < len(self.positions) else (None,) * 4
            self.head[x.start] = len(out)
            if x.start in self.counter_const:
                self.layout.append(("lead", x.start, len(out), len(out)))
            if x.start in self.fixer_const:
                self._add("fixer", x.start, out, _fixer_call, units, self.fixer_const[x.start],
                          pos)
            self.jump_to[x.start] = len(out)
            # a RESUME stays right after its YIELD_VALUE (how a generator is seen to
            # delegate): its block's counter follows it
            late = x.op == _OP["RESUME"]
            if x.start in self.counter_const and not late:
                self._add("counter", x.start, out, _counter, units, self.counter_const[x.start],
                          pos)
            begin = len(out)
            if x.target >= 0:
                jumps.append((x, begin))  # its argument is filled in below
            _put(out, units, x.op, x.arg if x.target < 0 else 0, pos, sizes[x.start])
            self.layout.append(("ins", x.start, begin, len(out)))
            if x.start in self.counter_const and late:
                self._add("counter", x.start, out, _counter, units, self.counter_const[x.start],
                          pos)
        self.catch_all = len(out)
        last = units[-1] if units else (None,) * 4  # the lines read as the original's
        _fixer_call(out, units, self.fixer_const[-1], last)
        self.catch_all_fixed = len(out)
        _put(out, units, _OP["RERAISE"], 0, last, 1)
        self._failed_fixers(out, units, last)
        grew = False
        for x, at in jumps:
            target = self.jump_to[self._start_of(x.target)]
            after = at + 2 * sizes[x.start]
            arg = (after - target if x.op in _BACKWARD else target - after) // 2
            need = _units_for(arg)
            if need > sizes[x.start]:
                sizes[x.start] = need
                grew = True
            elif not grew:
                _patch(out, at, x.op, arg, sizes[x.start])
        self.units = units
        return bytes(out), grew

    def _add(self, kind: str, start: int, out: bytearray, emit: Any, *args: Any) -> None:
        begin = len(out)
        emit(out, *args)
        self.layout.append((kind, start, begin, len(out)))

    def _start_of(self, offset: int) -> int:
        return self.starts[offset]

    def _failed_fixers(self, out: bytearray, units: list[tuple[Any, ...]],
                       last: tuple[Any, ...]) -> None:
        """Where a fixer's own call raised (a RecursionError at the deepest frame, a
        signal): that exception is dropped and the handler goes on as without the fixer,
        to the version's handler or re-raising (``failed``: the stubs' offsets)."""
        self.failed = {-1: len(out)}
        _put(out, units, _OP["POP_TOP"], 0, last)
        _put(out, units, _OP["RERAISE"], 0, last)
        for kind, start, _begin, _end in self.layout:
            if kind == "fixer":
                self.failed[start] = len(out)
                _put(out, units, _OP["POP_TOP"], 0, last)
                _jump_back(out, units, self.jump_to[start], last)

    def table(self, entries: list[tuple[int, int, int, int, bool]]
              ) -> list[tuple[int, int, int, int, bool]]:
        """The copy's exception table: each entry moved (a handler's fixer call outside
        every range), the gaps from the first block on sent to the added handler."""
        end_of_code = self.catch_all
        moved = []
        depth_at: dict[int, int] = {}
        for start, end, target, depth, lasti in entries:
            s = self.jump_to[self._start_of(start)]
            e = self.head[self._start_of(end)] if end < self.ins[-1].end else end_of_code
            if e > s:
                moved.append((s, e, self.head[self._start_of(target)], depth, lasti))
            depth_at[self._start_of(target)] = depth + lasti + 1  # the exception kept
        for kind, start, begin, end in self.layout:
            if kind == "fixer":
                moved.append((begin, end, self.failed[start], depth_at[start], False))
        moved.sort()
        out: list[tuple[int, int, int, int, bool]] = []
        pos = self.head[self.ins[self.first + 1].start] if self.first + 1 < len(self.ins) \
            else end_of_code
        for s, e, t, d, lasti in moved:
            if s > pos:
                out.append((pos, s, self.catch_all, 0, False))
            out.append((s, e, t, d, lasti))
            pos = max(pos, e)
        if pos < end_of_code:
            out.append((pos, end_of_code, self.catch_all, 0, False))
        out.append((self.catch_all, self.catch_all_fixed, self.failed[-1], 1, False))
        return out


def _units_for(arg: int) -> int:
    return 1 + (arg > 0xFF) + (arg > 0xFFFF) + (arg > 0xFFFFFF)


def _put(out: bytearray, units: list[tuple[Any, ...]], op: int, arg: int,
         pos: tuple[Any, ...], size: int = 0) -> None:
    if arg > 0xFF or size > 1:
        size = max(size, _units_for(arg))
        for shift in range(size - 1, 0, -1):
            out += bytes((_EXT, (arg >> (8 * shift)) & 0xFF))
    else:
        size = 1
    caches = _CACHES[op]
    out += bytes((op, arg & 0xFF))
    if caches:
        out += _ZEROS[:2 * caches]
    units.extend([pos] * (size + caches))


def _patch(out: bytearray, at: int, op: int, arg: int, size: int) -> None:
    for i, shift in enumerate(range(size - 1, 0, -1)):
        out[at + 2 * i:at + 2 * i + 2] = bytes((_EXT, (arg >> (8 * shift)) & 0xFF))
    out[at + 2 * (size - 1):at + 2 * size] = bytes((op, arg & 0xFF))


def _jump_back(out: bytearray, units: list[tuple[Any, ...]], target: int,
               pos: tuple[Any, ...]) -> None:
    """A backward jump to ``target`` with no eval-breaker check."""
    size = 1
    while _units_for((len(out) + 2 * size - target) // 2) > size:
        size += 1
    _put(out, units, _OP["JUMP_BACKWARD_NO_INTERRUPT"], (len(out) + 2 * size - target) // 2,
         pos, size)


def _counter(out: bytearray, units: list[tuple[Any, ...]], const: int,
             pos: tuple[Any, ...]) -> None:
    """``next(counter)`` without a call; if it ever runs out, FOR_ITER jumps past both
    POP_TOPs (it has popped the counter itself)."""
    _put(out, units, _OP["LOAD_CONST"], const, pos)
    _put(out, units, _OP["FOR_ITER"], 2, pos)
    _put(out, units, _OP["POP_TOP"], 0, pos)
    _put(out, units, _OP["POP_TOP"], 0, pos)


def _fixer_call(out: bytearray, units: list[tuple[Any, ...]], const: int,
                pos: tuple[Any, ...]) -> None:
    """``fixer(exception)`` with the exception left on the stack."""
    _put(out, units, _OP["PUSH_NULL"], 0, pos)
    _put(out, units, _OP["LOAD_CONST"], const, pos)
    _put(out, units, _OP["COPY"], 3, pos)
    _put(out, units, _OP["PRECALL"], 1, pos)
    _put(out, units, _OP["CALL"], 1, pos)
    _put(out, units, _OP["POP_TOP"], 0, pos)


def instrument(code: CodeType) -> tuple[CodeType, list[Rewrite]]:
    """The instrumented copy of ``code`` (nested code objects too) and every rewrite."""
    rewrites: list[Rewrite] = []

    def walk(co: CodeType) -> CodeType:
        children = {id(c): walk(c) for c in co.co_consts if isinstance(c, CodeType)}
        rewrite = Rewrite(co, children)
        rewrites.append(rewrite)
        return rewrite.code

    return walk(code), rewrites
