"""Which guest exceptions say the portable sandbox lacks something, not that a version is
wrong."""

from __future__ import annotations

from codequorum.behaviour.sandbox.portable.unsupported import unsupported


def test_wasi_not_supported_is_the_sandbox_not_the_version() -> None:
    assert unsupported("OSError", "[Errno 58] Not supported")
    # the host's ENOTSUP (95 on Linux) or another OSError is the version's own doing
    assert not unsupported("OSError", "[Errno 95] Operation not supported")
    assert not unsupported("OSError", "[Errno 2] No such file or directory: 'x'")
    assert not unsupported("ValueError", "[Errno 58] Not supported")
    assert not unsupported("OSError", None)
    assert not unsupported(None, None)
