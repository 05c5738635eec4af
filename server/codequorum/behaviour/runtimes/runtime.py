"""The :class:`Runtime` type: what it takes to run the versions of one language. Its own
module, so the entries (``cpython.py``, ``node.py``) import it without importing the
package that registers them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codequorum.core.values import shown_output
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
    #: The names a version takes from outside itself (its module gives them): a version
    #: whose module did not load stands alone only when it needs none.
    outside_names: Callable[[str], frozenset[str]]
    #: How the model is asked for inputs of this language (its words, fence and literal).
    inputs: InputLanguage
    #: ``interpreter`` -> the name and version of what runs the versions, as a run's hello
    #: gives it (``3.11.7``, ``node 22.3.0``); "" when none is known. A report whose
    #: versions never ran names this, never the analysing process's Python.
    version: Callable[[str | None], str] = lambda _interpreter: ""
    #: What this runtime's runs do not measure, as a report's note ("": they measure all).
    unmeasured: str = ""
    #: A returned value's text as a message shows it (a repr as it is; JavaScript's
    #: canonical form in JavaScript's words: ``undefined``, ``NaN``, ``{"a": 1}``).
    shown: Callable[[str], str] = shown_output
    #: True when a call on an instance runs with the versions alone (no module): its class
    #: is one every version defines (JavaScript's examples that build an instance).
    instances_alone: bool = False
