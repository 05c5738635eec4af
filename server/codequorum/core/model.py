"""Plain data shared by every layer: what a sample set is.

These types carry text and metadata only; they never compute metrics, so parsing,
metrics, analysis and renderers can all depend on them without depending on each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

#: Where a version came from: ``assistant`` is the text an assistant wrote into the editor
#: (an accepted completion, a chat or agent edit, a paste), kept when the watch asks for more.
Origin = Literal["regenerated", "relayed", "imported", "current", "assistant"]


@dataclass(frozen=True)
class Receiver:
    """What a method is called on in a ``call`` test: the module-level class ``name``
    (dotted for a nested class) called with ``args``/``kwargs`` for an instance, or the
    class itself when ``call`` is false. Literal values only, as for the test's own; or
    ``source``, an expression of the class's own docstring examples that makes an instance
    (``Stats(range(100))``), evaluated in the module inside the sandbox. ``steps`` are
    method calls with literal arguments replayed on the instance before the test's call
    (``(("push", (1,)), ("push", (2,)))``, a JavaScript example's setup); ``method`` is the
    method that call makes when it is not the function under test (an example of ``push``
    that shows through ``s.peek()``); ``chained``: each step is called on what the step
    before it returned, as a chain reads (``new Bag().add(1).add(2).distinct()``: a
    fluent ``add`` returns its instance, an immutable one a new instance)."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    call: bool = True
    source: str | None = None
    steps: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    method: str | None = None
    chained: bool = False

    def label(self) -> str:
        """``Duration(90)`` or ``Duration`` for messages."""
        if self.source is not None:
            return self.source
        if not self.call:
            return self.name
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


@dataclass(frozen=True)
class TestCase:
    """One behavioural check for a candidate.

    Exactly one style is used per case:
    - ``call``: ``args``/``kwargs`` passed to the entry point; ``expected`` compared if given,
      or, with ``raises`` (a test's ``pytest.raises(E)``, ``expect(() => f()).toThrow()``),
      the call must raise: an exception of the class named (or a subclass), any with ``""``.
      With a ``receiver`` (a method run in its module), the entry point is looked up on
      the receiver and called there.
    - ``stdio``: ``stdin`` fed to the program (or to ``solve(lines)``), ``expected`` is stdout.
    - ``check``: ``source`` is a harness that defines ``check(candidate)`` (HumanEval style).
    - ``example``: ``source`` is a docstring example that calls the function (run as
      doctest runs it, after the docstring's earlier examples ``setup``, in the module's
      globals); ``expected`` is the text doctest would want, compared with the option
      flags ``flags`` (``doctest.ELLIPSIS``...).
    """

    kind: Literal["call", "stdio", "check", "example"]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    stdin: str | None = None
    expected: Any = None
    has_expected: bool = False
    source: str | None = None
    name: str = ""
    receiver: Receiver | None = None
    setup: tuple[str, ...] = ()
    flags: int = 0
    raises: str | None = None


@dataclass(frozen=True)
class Version:
    """One version of a function: its code and where it came from."""

    code: str
    origin: Origin = "imported"
    label: str = ""
    provider: str | None = None
    model: str | None = None
    temperature: float | None = None
    seed: int | None = None


FunctionKind = Literal["function", "method", "nested"]


@dataclass(frozen=True)
class ModuleContext:
    """The module a function lives in, so that its versions run there (in the sandbox).

    ``name`` is the module's dotted name (``pkg.app``), ``path`` its file in the view
    (``pkg/app.py``), ``qualified_name`` the function in it (``Duration.minutes``) and
    ``kind`` where it sits: at the module's top level, in a class (``method``), or inside
    another function (``nested``). ``files`` are the read-only view of the workspace the
    sandbox gets, as (POSIX path relative to the view, text): the module itself (its text
    as the editor holds it) and the project modules it imports; ``roots`` are folders of
    the view put on ``sys.path`` (``""`` is the view itself); ``notes`` say what the view
    left out; ``callers`` are other files of the workspace that name the function (its
    tests, its callers), read for their calls of it and never given to the sandbox;
    ``aliases`` (JavaScript) are (folder, specifier, file of the view) where the
    workspace's configuration maps a specifier (``@/lib/text``) to one of its files;
    ``library`` (JavaScript) the functions of its package its examples call through a
    namespace (``R.propEq``), each with the file of the view that gives it. Built
    by :mod:`codequorum.ingest.module_view`; read statically, never run here.
    """

    name: str
    path: str
    qualified_name: str
    kind: FunctionKind
    files: tuple[tuple[str, str], ...]
    roots: tuple[str, ...]
    notes: tuple[str, ...] = ()
    callers: tuple[tuple[str, str], ...] = ()
    aliases: tuple[tuple[str, str, str], ...] = ()
    library: tuple[tuple[str, str], ...] = ()

    @property
    def source(self) -> str:
        """The module's own text."""
        return next((text for path, text in self.files if path == self.path), "")

    @property
    def owner(self) -> str | None:
        """The dotted class of a method (``Outer.Inner``), else None."""
        if self.kind != "method":
            return None
        return self.qualified_name.rpartition(".")[0] or None


@dataclass(frozen=True)
class FunctionLocation:
    """Where a set's function lives in its workspace, as ``export`` writes it: the file's
    store key (its path relative to the workspace) and the function's qualified name, so
    that ``score`` run in the workspace rebuilds the module its versions run in."""

    file: str
    qualified_name: str
    current: int | None = None
    """The position of the function's code as the file holds it among the set's
    versions, when it is one of them."""


@dataclass
class VersionSet:
    """Several versions of one function (or one task), scored together.

    ``versions`` hold complete code (already joined with ``prompt`` when the inputs were
    completions). ``entry_point`` names the function under test; ``tests`` are the
    behavioural checks, when known; ``module`` the function's module, when known.
    """

    task_id: str
    versions: list[Version]
    language: str = "python"
    prompt: str | None = None
    entry_point: str | None = None
    tests: list[TestCase] = field(default_factory=list)
    source_line: int | None = None
    module: ModuleContext | None = None
    """The function's module, when its versions run there (the editor, ``check``);
    None for self-contained functions (benchmark sets)."""
    location: FunctionLocation | None = None
    """Where the function lives in its workspace (a set ``export`` wrote), None when the
    set does not say."""

    @property
    def codes(self) -> list[str]:
        """The version texts, in order."""
        return [s.code for s in self.versions]

    @classmethod
    def from_codes(
        cls, task_id: str, codes: list[str], language: str = "python", **kwargs: Any
    ) -> VersionSet:
        """Build a set from bare code strings (origin ``imported``)."""
        versions = [Version(code=c, label=f"v{i + 1}") for i, c in enumerate(codes)]
        return cls(task_id=task_id, versions=versions, language=language, **kwargs)
