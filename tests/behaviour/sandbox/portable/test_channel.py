"""The channel to the portable sandbox's guests, chosen once from what the system has."""

from __future__ import annotations

import pytest

from codequorum.behaviour.sandbox.portable import channel


@pytest.mark.parametrize(("send_fds", "wait4", "os_name", "forced", "expected"), [
    (True, True, "posix", None, channel.HOST),  # Linux
    (True, True, "posix", "", channel.HOST),
    (True, True, "posix", "process", channel.PROCESS),  # forced (the tests, a user)
    (True, True, "posix", "host", channel.HOST),
    (True, True, "posix", "anything", channel.HOST),
    (False, False, "nt", None, channel.PROCESS),  # Windows
    (False, False, "nt", "host", channel.PROCESS),  # cannot be forced where it cannot run
    (False, True, "posix", None, channel.PROCESS),  # no descriptor passing
    (True, False, "posix", None, channel.PROCESS),  # no wait4
    (True, True, "nt", None, channel.PROCESS),
])
def test_the_channel_follows_the_system_and_the_override(
        send_fds: bool, wait4: bool, os_name: str, forced: str | None, expected: str) -> None:
    assert channel.choose(send_fds, wait4, os_name, forced) == expected


def test_macos_takes_a_process_per_guest() -> None:
    """Its ``AF_UNIX`` has no ``SOCK_SEQPACKET``, the long-lived host's socket."""
    assert channel.choose(True, True, "posix", None, "darwin") == channel.PROCESS
    assert channel.choose(True, True, "posix", None, "linux") == channel.HOST


def test_the_current_channel_reads_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(channel.FORCE, "process")
    assert channel.current() == channel.PROCESS
