"""The shapes of a printed V8 function: its bytecodes, the function, its basic blocks.

Plain data shared by the printout's reader and flow solve (``node_trace``) and the reading of
a generator's resumes (``node_iterators``), so neither has to import the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Bytecode:
    """One printed bytecode: its offset, counted name, source position and operands."""

    offset: int
    name: str
    position: int | None
    rest: str


@dataclass
class Function:
    """One printed function: its bytecodes and handler table ``(start, end, handler)``."""

    name: str
    code: list[Bytecode] = field(default_factory=list)
    handlers: list[tuple[int, int, int]] = field(default_factory=list)

    def positions(self) -> list[int]:
        return [b.position for b in self.code if b.position is not None]


@dataclass
class Block:
    """A basic block: its bytecodes and successors (block indexes)."""

    code: list[Bytecode]
    succ: list[int] = field(default_factory=list)
    handler: int | None = None
    exits: bool = False
    #: Leaves by an exception (a ``throw`` no handler of the function catches).
    throws: bool = False
    counter: bool = False
    #: A generator's resume point (entered through the state switch of block 0).
    resumes: bool = False
    #: A ``finally``'s dispatch (``LdaZero; TestReferenceEqual token; JumpIfFalse``): its
    #: fall-through re-throws what the ``finally`` caught, which only an exception reaches.
    rethrows: bool = False


__all__ = ["Block", "Bytecode", "Function"]
