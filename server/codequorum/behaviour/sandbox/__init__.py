"""Run untrusted candidates in sandboxed child processes and trace their opcodes.

Public API: :class:`Limits`, :class:`TestOutcome`, :class:`CandidateResult`,
:func:`run_candidate`, :func:`run_candidates`, :func:`active_layers`, :func:`probe`,
:func:`require` (the strict level, or an error saying why it cannot run here);
:class:`ModuleLoad` (how a candidate's module loaded, for one run in its module).
"""

from codequorum.behaviour.sandbox.isolation import (
    ALL_LAYERS,
    AUTO,
    PORTABLE_NOTE,
    WEAK_WARNING,
    Probe,
    active_layers,
    choose,
    probe,
    require,
)
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.runner import (
    SANDBOX_LEVELS,
    CandidateResult,
    ModuleLoad,
    TestOutcome,
    run_candidate,
    run_candidates,
)

__all__ = [
    "ALL_LAYERS",
    "AUTO",
    "PORTABLE_NOTE",
    "SANDBOX_LEVELS",
    "WEAK_WARNING",
    "CandidateResult",
    "Limits",
    "ModuleLoad",
    "Probe",
    "TestOutcome",
    "active_layers",
    "choose",
    "probe",
    "require",
    "run_candidate",
    "run_candidates",
]
