"""Trees built from text on several threads at once: a thread paused inside CPython's AST
constructor while another builds a tree must not fail with ``SystemError: AST constructor
recursion depth mismatch`` (seen in the language server on toolz's outputs, on 3.11)."""

from __future__ import annotations

import ast
import gc
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codequorum.core import pyast

#: Deep enough that its tree is built across many garbage collections.
DEEP = "[" * 30 + "(1, 2)" + "]" * 30


def _interleaved(read: Callable[[str], Any], pause_at: int) -> list[BaseException]:
    """Thread ``a`` reads ``DEEP`` and, at its ``pause_at``-th garbage collection, waits
    (at most 0.5 s) for thread ``b`` to read it too: the errors either one met."""
    inside, done = threading.Event(), threading.Event()
    errors: list[BaseException] = []
    seen = {"collections": 0}

    def pause(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and threading.current_thread().name == "a":
            seen["collections"] += 1
            if seen["collections"] == pause_at:
                inside.set()
                done.wait(0.5)

    def a() -> None:
        try:
            read(DEEP)
        except SystemError as exc:
            errors.append(exc)
        inside.set()

    def b() -> None:
        inside.wait(5)
        try:
            read(DEEP)
        except SystemError as exc:
            errors.append(exc)
        done.set()

    threshold = gc.get_threshold()
    gc.set_threshold(1)
    gc.callbacks.append(pause)
    try:
        threads = [threading.Thread(target=a, name="a"), threading.Thread(target=b, name="b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        gc.callbacks.remove(pause)
        gc.set_threshold(*threshold)
    return errors


def test_a_tree_read_while_another_thread_reads_one_is_built_whole() -> None:
    for pause_at in (3, 6, 10):
        assert _interleaved(pyast.literal_eval, pause_at) == []
        assert _interleaved(lambda text: pyast.parse(text, mode="eval"), pause_at) == []
    assert pyast.literal_eval(DEEP) == ast.literal_eval(DEEP)
    assert pyast.literal_eval("  {'a': (1, -2.5)}") == {"a": (1, -2.5)}


def test_no_module_of_the_process_builds_a_tree_from_text_but_through_the_lock() -> None:
    root = Path(pyast.__file__).resolve().parent.parent
    direct = re.compile(r"(?<![\w.`])ast\.(parse|literal_eval)\(")
    offenders = [str(path.relative_to(root)) for path in root.rglob("*.py")
                 if "sandbox" not in path.relative_to(root).parts
                 and path.name != "pyast.py"
                 and direct.search(path.read_text(encoding="utf-8"))]
    assert offenders == []
