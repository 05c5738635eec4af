"""Run untrusted candidates in sandboxed child processes and trace their opcodes.

Public API: :class:`Limits`, :class:`TestOutcome`, :class:`CandidateResult`,
:func:`run_candidate`, :func:`run_candidates`, :func:`active_layers`.
"""

from codequorum.sandbox.isolation import ALL_LAYERS, active_layers
from codequorum.sandbox.limits import Limits
from codequorum.sandbox.runner import CandidateResult, TestOutcome, run_candidate, run_candidates

__all__ = [
    "ALL_LAYERS",
    "CandidateResult",
    "Limits",
    "TestOutcome",
    "active_layers",
    "run_candidate",
    "run_candidates",
]
