"""What the kernel grants here: the isolation layers a sandbox child actually gets."""

from __future__ import annotations

import sys
import threading

from codequorum.sandbox.limits import Limits
from codequorum.sandbox.runner import _ChildRun

ALL_LAYERS = ("audit-hook", "rlimits", "session", "deadline", "parent-death", "netns", "tmpfs")
_cache: dict[str, list[str]] = {}
_lock = threading.Lock()


def active_layers(interpreter: str | None = None) -> list[str]:
    """Layers that hold for a child on this machine (probed once per interpreter).

    Always expected: ``audit-hook``, ``rlimits``, ``session``, ``deadline`` and
    ``parent-death`` (Linux ``PR_SET_PDEATHSIG``); ``netns``
    and ``tmpfs`` only where the kernel lets the child unshare its network and mount
    namespaces (the sandbox directory is then a size-capped tmpfs).
    """
    key = interpreter or sys.executable
    with _lock:
        if key not in _cache:
            probe = _ChildRun(
                "", [], None, Limits(wall_seconds=20.0), False, 0, key, "auto", None, probe=True
            )
            result = probe.run()
            _cache[key] = result.layers if result.status == "ok" else ["deadline"]
        return list(_cache[key])
