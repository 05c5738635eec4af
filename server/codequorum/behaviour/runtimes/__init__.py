"""Behaviour runtimes: what it takes to run the versions of one language.

One :class:`Runtime` per language whose versions can run in the sandbox: how its
interpreter starts (flags, whole environment), what bubblewrap binds of it, the script a
child runs, the probe of the sandbox, static opcode counts, where test inputs and examples
come from, the module view a version runs in, and how a returned value prints alike.
Every "does this language run" question is :func:`runtime_for`. Entries: CPython
(``cpython.py``), JavaScript and TypeScript on Node (``node.py``).
"""

from __future__ import annotations

from codequorum.behaviour.runtimes.runtime import Runtime


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


__all__ = ["RUNTIMES", "runtime_for", "runtime_names"]
