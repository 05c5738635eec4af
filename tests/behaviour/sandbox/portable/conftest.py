"""The portable level's tests over either channel: the long-lived host (where this system
has it) and the guests' own process (every system's; forced here)."""

from __future__ import annotations

import pytest

from codequorum.behaviour.sandbox.portable import channel


@pytest.fixture(params=[channel.HOST, channel.PROCESS])
def either_channel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test over each channel (``host`` is this system's own choice)."""
    if request.param == channel.PROCESS:
        monkeypatch.setenv(channel.FORCE, channel.PROCESS)
    else:
        monkeypatch.delenv(channel.FORCE, raising=False)
    found: str = request.param
    return found
