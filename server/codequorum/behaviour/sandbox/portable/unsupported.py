"""What the portable sandbox does not give: an input on which a version raised for that
reason did not run; it did not fail.

WASI has no sockets. ``asyncio.run`` (how async functions' docstring examples are
written) makes a socket pair for its event loop's self-pipe, and the guest answers
``OSError: [Errno 58] Not supported`` (58 is WASI's ``ENOTSUP``, whatever the host's is).
"""

from __future__ import annotations

#: ``ENOTSUP`` in the WASI ABI, as the guest's ``OSError`` says it.
WASI_ENOTSUP = 58
#: What a report says of inputs left unrun for it (short: a not-run reason quotes it whole).
NOT_SUPPORTED = ("not run: the portable sandbox does not support it (WASI has no sockets, "
                 "which asyncio.run needs)")


def unsupported(exc_type: str | None, exc_message: str | None) -> bool:
    """Whether a guest's exception says the portable sandbox does not support what was
    asked (``OSError`` with WASI's ``ENOTSUP``), not that the version is wrong."""
    return exc_type == "OSError" and (exc_message or "").startswith(f"[Errno {WASI_ENOTSUP}]")
