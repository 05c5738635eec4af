"""``codequorum doctor``: which sandbox layers this machine gives, and why others are missing.

Starts one probe child per level (no candidate code runs) and prints each layer as held
or missing, with the kernel's reason, how the portable level reaches its guests here (one
long-lived host or a process of their own, and why), then whether candidates will run: with
the strict sandbox, only with ``--sandbox weak``, or not at all.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from codequorum.behaviour.runtimes import node_sandbox
from codequorum.behaviour.sandbox import bwrap, isolation
from codequorum.behaviour.sandbox.portable import channel as portable_channel
from codequorum.behaviour.sandbox.portable import interpreter as portable_interpreter
from codequorum.core.os_features import user_id
from codequorum.options.arguments import add_options

#: What each strict layer stops, in the words of docs/sandbox.md.
LAYER_PURPOSE = {
    "bwrap": "read-only view of only the interpreter and /usr; no HOME, workspace or host /proc",
    "userns": "an unprivileged user of its own; no capabilities on the host",
    "pidns": "cannot see or signal other processes, siblings included",
    "mountns": "its own mounts: private tmpfs, sibling files invisible",
    "netns": "no network at all",
    "ipcns": "no shared memory or semaphores with other processes",
    "utsns": "its own host name",
    "tmpfs": "writable space is a size-capped tmpfs that vanishes with it",
    "no-proc": "no /proc: nothing of other processes",
    "no-capabilities": "every capability dropped, bounding set included",
    "no-new-privs": "no set-uid or file-capability gains",
    "seccomp": "ptrace, bpf, mount, pidfd_*, fork, exec, real-time scheduling... refused",
    "rlimits": "memory, CPU, file size and open files bounded",
    "cgroup": "memory and processes of the whole sandbox bounded, even for root (where writable)",
    "ro-view": "a version run in its module sees only the workspace code it imports, read-only",
    "audit-hook": "refusals reported as `forbidden: <what>`",
}
LIMITS_TEXT = (
    "per candidate: rlimits (address space, CPU, file size, open files; threads bounded by "
    "RLIMIT_NPROC, which holds because candidates never run as root), a PID namespace and "
    "seccomp refusing fork and exec; for the whole sandbox: a cgroup (memory, processes) "
    "where one can be written"
)
REQUIRED = [name for name in LAYER_PURPOSE if name not in ("no-proc", "audit-hook", "cgroup")]


def register(subparsers: Any) -> None:
    """Add ``doctor`` to the command line."""
    parser = subparsers.add_parser(
        "doctor",
        help="show which sandbox layers this machine gives",
        description="Probe the sandbox (no candidate code runs) and list each isolation "
        "layer as held or missing, with the reason.",
    )
    add_options(parser, "doctor")
    parser.set_defaults(func=run)


def diagnose(interpreter: str | None, level: str | None = None) -> dict[str, Any]:
    """What the probes found, as plain data; ``level`` (``--sandbox``): the level the
    verdict answers for (None: what the default ``auto`` does here)."""
    strict = isolation.probe(interpreter, "strict", view=True)
    weak = isolation.probe(interpreter, "weak")
    portable = _portable_probe(interpreter, strict.ok and level != "portable")
    held = set(strict.layers) if strict.ok else set()
    said = (verdict(strict.ok, weak.ok, portable.ok) if level is None else
            level_verdict(level, {"strict": strict, "portable": portable, "weak": weak}))
    return {
        "uid": user_id(),
        "bwrap": bwrap.find_bwrap(),
        "seccomp": isolation.describe_seccomp(),
        "limits": LIMITS_TEXT,
        "strict": {"ok": strict.ok, "detail": strict.detail, "layers": strict.layers},
        "weak": {"ok": weak.ok, "detail": weak.detail, "layers": weak.layers},
        "portable": {"ok": portable.ok, "detail": portable.detail, "layers": portable.layers,
                     **portable_channel_found()},
        "missing": [name for name in REQUIRED if name not in held],
        "sandbox": level,
        "runs": runs_at(level, strict.ok, portable.ok, weak.ok),
        "verdict": said,
        "node": node_sandbox.describe(),
    }


def runs_at(level: str | None, strict_ok: bool, portable_ok: bool, weak_ok: bool) -> bool:
    """Whether versions run at ``level`` here; ``auto`` runs them where strict or portable
    holds, and so does the plain ``doctor`` (None), which answers for the default level: on
    macOS, Windows or a Linux without user namespaces the portable sandbox is a healthy
    machine, not a failing one."""
    if level in (None, "auto"):
        return strict_ok or portable_ok
    return {"strict": strict_ok, "portable": portable_ok, "weak": weak_ok}.get(level, False)


def level_verdict(level: str, probes: dict[str, isolation.Probe]) -> str:
    """One sentence for ``doctor --sandbox LEVEL``: do versions run at that level here,
    and if not, why and what would."""
    strict, portable = probes["strict"], probes["portable"]
    if level == "auto":
        if strict.ok:
            return "candidates run in the strict sandbox (`--sandbox auto` picks it)"
        if portable.ok:
            return ("candidates run in the portable sandbox (`--sandbox auto` picks it: no "
                    "strict sandbox here)")
        return ("candidates do not run with `--sandbox auto` here: neither the strict nor "
                "the portable sandbox holds (see above)")
    found = probes[level]
    if found.ok:
        what = {"strict": "in the strict sandbox", "portable": "in the portable sandbox",
                "weak": "without kernel isolation (every report warns)"}[level]
        return f"with `--sandbox {level}` candidates run {what}"
    other = ("; `--sandbox portable` runs them in the portable sandbox" if
             level != "portable" and portable.ok else
             "; `--sandbox strict` runs them in the strict sandbox" if strict.ok else "")
    return (f"candidates do not run with `--sandbox {level}` here: "
            f"{found.detail or 'the sandbox could not start a child'}{other}")


def portable_channel_found() -> dict[str, str]:
    """How the portable level reaches its guests here, and why (empty where it takes the
    long-lived host), as ``portable/channel.py`` chooses."""
    return {"channel": portable_channel.current(),
            "channel_reason": portable_channel.current_reason()}


#: What ``doctor --prepare --if-needed`` says where nothing needs preparing.
STRICT_HOLDS = ("the strict sandbox holds here: versions run in it, and the portable "
                "sandbox needs no preparing")


#: What doctor says of a portable interpreter not compiled yet where the strict sandbox holds.
NOT_PREPARED = ("not prepared yet: its interpreter compiles once into your cache (tens of "
                "seconds) at the first portable run, or now with `codequorum doctor --prepare`")


def _portable_probe(interpreter: str | None, strict_ok: bool) -> isolation.Probe:
    """The portable level's probe. Where the strict sandbox holds (so ``auto`` never picks
    the portable one) and the interpreter is not compiled yet, doctor does not spend tens
    of seconds and a cache file on it unasked: it says how to prepare it."""
    if strict_ok and portable_interpreter.needs_compile():
        return isolation.Probe([], False, NOT_PREPARED)
    return isolation.probe(interpreter, "portable", view=True)


def verdict(strict_ok: bool, weak_ok: bool, portable_ok: bool = False) -> str:
    """One sentence: will candidates run here, and how."""
    if strict_ok:
        return "candidates run in the strict sandbox (the default)"
    if portable_ok:
        weak = ", `--sandbox weak` runs them without isolation" if weak_ok else ""
        return ("candidates run in the portable sandbox (the default `auto` picks it: no "
                f"strict sandbox here; `--sandbox portable` asks for it by name{weak})")
    if weak_ok:
        return ("candidates do not run by default; `--sandbox weak` (setting "
                "codequorum.dynamic.sandbox) runs them without kernel isolation")
    return "candidates cannot run on this machine"


@dataclass(frozen=True)
class DoctorRequest:
    """``codequorum doctor`` as asked, read from its arguments at its door."""

    interpreter: str | None = None   # the Python the probes start (None: this one's)
    format: str = "text"             # text or json
    prepare: bool = False            # compile the portable interpreter now, then stop
    if_needed: bool = False          # ... only where the strict sandbox is missing
    sandbox: str | None = None       # the level the verdict answers for (None: the default)


def doctor_request(args: argparse.Namespace) -> DoctorRequest:
    """The request of ``codequorum doctor``."""
    return DoctorRequest(interpreter=args.interpreter, format=args.format,
                         prepare=bool(args.prepare), if_needed=bool(args.if_needed),
                         sandbox=args.sandbox)


def run(args: argparse.Namespace) -> int:
    """Print the diagnosis; exit 0 when versions run at the default level here (strict,
    else portable; with ``--sandbox``: at that level), 1 otherwise."""
    return run_doctor(doctor_request(args))


def run_doctor(request: DoctorRequest) -> int:
    """:func:`run` for a request read at the door."""
    if request.prepare:
        from codequorum.cli.commands.prepare import prepare_portable

        if request.if_needed and isolation.probe(request.interpreter, "strict", view=True).ok:
            print(STRICT_HOLDS)
            return 0
        return prepare_portable()
    if request.sandbox == "portable" and portable_interpreter.needs_compile():
        from codequorum.cli.commands.prepare import prepare_portable

        prepare_portable(announce=False)  # a failure shows in the probe below
    found = diagnose(request.interpreter, request.sandbox)
    if request.format == "json":
        json.dump(found, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_text(found)
    return 0 if found["runs"] else 1


def _print_text(found: dict[str, Any]) -> None:
    out = sys.stdout
    out.write(f"bubblewrap: {found['bwrap'] or 'not found'}\n")
    out.write(f"seccomp filter: {found['seccomp']}\n")
    out.write(f"limits: {LIMITS_TEXT}\n")
    held = set(found["strict"]["layers"]) if found["strict"]["ok"] else set()
    for name, purpose in LAYER_PURPOSE.items():
        mark = "held   " if name in held else "missing"
        out.write(f"  {mark} {name:<16} {purpose}\n")
    if not found["strict"]["ok"]:
        out.write(f"strict sandbox unavailable: {found['strict']['detail']}\n")
    portable = found["portable"]
    how = portable_channel.describe(portable["channel"], portable["channel_reason"])
    out.write("portable sandbox: " + (f"available ({', '.join(portable['layers'])}); {how}"
                                      if portable["ok"] else
                                      f"unavailable: {portable['detail']}") + "\n")
    out.write(f"{found['verdict']}\n")
    out.write(f"JavaScript and TypeScript: {found['node']}\n")
