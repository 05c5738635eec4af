"""Static opcode counting, standard library only.

The one implementation of the counting rule: imported by :mod:`codequorum.metrics.opcodes`
in this process, and run as a program (its own source, under ``-I -S``) by other CPython
versions, where it reads a JSON list of code strings on stdin and writes a JSON list of
counts (``null`` for text that does not compile) on stdout. Code is compiled, never run.
"""

from __future__ import annotations

import ast
import dis
import json
import sys
import types
from collections.abc import Iterator


def walk_code(root: types.CodeType) -> Iterator[types.CodeType]:
    """Breadth-first over ``root`` and the code objects nested in ``co_consts``."""
    queue = [root]
    seen = {id(root)}
    while queue:
        co = queue.pop(0)
        for const in co.co_consts:
            if isinstance(const, types.CodeType) and id(const) not in seen:
                queue.append(const)
                seen.add(id(const))
        yield co


def code_object_counts(root: types.CodeType) -> dict[str, int]:
    """Opcode name -> count over ``root`` and every nested code object (base opcodes)."""
    counts: dict[str, int] = {}
    for co in walk_code(root):
        for ins in dis.get_instructions(co):
            name = dis.opname[ins.opcode]
            counts[name] = counts.get(name, 0) + 1
    return counts


def source_counts(src: str) -> dict[str, int] | None:
    """Counts of ``src`` compiled as a module, or ``None`` when it does not compile."""
    try:
        root = compile(ast.parse(src, filename="<candidate>"), "<candidate>", "exec")
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    return code_object_counts(root)


def main() -> None:
    """JSON list of code strings on stdin -> JSON list of counts on stdout."""
    json.dump([source_counts(s) for s in json.load(sys.stdin)], sys.stdout)


if __name__ == "__main__":
    main()
