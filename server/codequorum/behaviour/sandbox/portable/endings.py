"""How the portable sandbox's host process says a guest was stopped: its exit codes.

Stdlib only: ``host.py`` loads this file by path; the runner maps the codes to statuses.
"""

from __future__ import annotations

#: The guest ran out of fuel (its deterministic CPU budget).
FUEL = 90
#: The guest trapped (a WebAssembly fault: out of bounds, unreachable, stack exhausted).
TRAP = 91
#: The host could not start the guest (no compiled interpreter, a bad argument).
HOST_ERROR = 92

STATUSES = {
    FUEL: ("timeout", "CPU limit of {cpu:g}s (fuel)"),
    TRAP: ("crashed: trap", "the WebAssembly guest trapped"),
    HOST_ERROR: ("error", "the portable sandbox could not start the guest"),
}
