"""How the portable sandbox's host process says a guest was stopped: its exit codes.

Stdlib only: ``host.py`` loads this file by path; the runner maps the codes to statuses.
"""

from __future__ import annotations

#: The version's CPU time ran out (its budget: ``Limits.cpu_seconds``, as in strict).
CPU = 90
#: The guest ran out of fuel (the backstop bound on its work, past any CPU budget).
FUEL = 93
#: The guest trapped (a WebAssembly fault: out of bounds, unreachable, stack exhausted).
TRAP = 91
#: The host could not start the guest (no compiled interpreter, a bad argument).
HOST_ERROR = 92

STATUSES = {
    CPU: ("timeout", "CPU limit of {cpu:g}s"),
    FUEL: ("timeout", "CPU limit of {cpu:g}s (fuel)"),
    TRAP: ("crashed: trap", "the WebAssembly guest trapped"),
    HOST_ERROR: ("error", "the portable sandbox could not start the guest"),
}
