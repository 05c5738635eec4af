"""Behaviour runtimes: what it takes to run the versions of one language.

One :class:`Runtime` per language whose versions can run in the sandbox: how its
interpreter starts (flags, whole environment), what bubblewrap binds of it, the script a
child runs, the probe of the sandbox, static opcode counts, where test inputs and examples
come from, the module view a version runs in, and how a returned value prints alike.
Every "does this language run" question is :func:`runtime_for`. Entries: CPython
(``cpython.py``), JavaScript and TypeScript on Node (``node.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codequorum.generate.input_language import InputLanguage


@dataclass(frozen=True)
class Runtime:
    """How versions of one language run, each part pointing at the code that does it."""

    #: The language's name in sample sets and documents (``"python"``).
    language: str
    #: How the language is named in words shown to people (``"Python"``: the one table
    #: of :func:`codequorum.generate.prompting.display_name`, which the prompts use too).
    name: str
    #: Interpreter flags of every sandboxed start.
    flags: tuple[str, ...]
    #: The whole environment of a sandboxed interpreter: ``(path, home, tmp)`` -> env.
    environment: Callable[..., dict[str, str]]
    #: What bubblewrap binds read-only of an interpreter (its binary and prefixes).
    layout: Callable[[str], Any]
    #: The script a sandboxed child runs.
    child_script: Path
    #: The sandbox probe: ``(interpreter, sandbox, view)`` -> the layers found, or None.
    probe: Callable[..., Any]
    #: Static opcode counts per version under an interpreter (None: this process's).
    static_counts: Callable[[Sequence[str], str | None], list[dict[str, int] | None]]
    #: The test inputs of a set (docstring examples, published tests, generated inputs).
    test_inputs: Callable[..., Any]
    #: The docstring examples of a function, as test cases.
    examples: Callable[..., Any]
    #: The module a version runs in (its file, imports and helpers).
    module_view: Callable[..., Any]
    #: How a returned value's repr prints alike (equal values, one key).
    canonical: Callable[[str | None], str | None]
    #: True when a model may propose inputs (asked as :attr:`inputs` says).
    proposed_inputs: bool
    #: Runs one version's tests in the sandbox (``sandbox.run_candidate``'s arguments).
    run: Callable[..., Any]
    #: ``(interpreter, sandbox, view)``: raises when versions cannot run here, saying why.
    require: Callable[..., None]
    #: True when a function's examples live in the comment above it, outside its code
    #: (the editor passes that comment as the set's prompt).
    comment_examples: bool
    #: True when versions run in their function's module (its imports, its class).
    modules: bool
    #: The syntax error a version would report, found in this process (None: none found).
    compile_error: Callable[[str], str | None]
    #: How the model is asked for inputs of this language (its words, fence and literal).
    inputs: InputLanguage
    #: What this runtime's runs do not measure, as a report's note ("": they measure all).
    unmeasured: str = ""


def _registered() -> dict[str, Runtime]:
    from codequorum.behaviour.runtimes.cpython import CPYTHON
    from codequorum.behaviour.runtimes.node import JAVASCRIPT, TYPESCRIPT

    return {r.language: r for r in (CPYTHON, JAVASCRIPT, TYPESCRIPT)}


#: Every runtime, by language.
RUNTIMES: dict[str, Runtime] = _registered()


def runtime_for(language: str | None) -> Runtime | None:
    """The runtime of ``language``; None when its versions cannot run."""
    return RUNTIMES.get(language) if language is not None else None


def runtime_names() -> str:
    """The languages that run, in words (``"Python, JavaScript and TypeScript"``)."""
    names = [r.name for r in RUNTIMES.values()]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


__all__ = ["RUNTIMES", "Runtime", "runtime_for", "runtime_names"]
