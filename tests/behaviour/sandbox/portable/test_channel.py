"""The channel to the portable sandbox's guests, chosen once from what the system has."""

from __future__ import annotations

import sys

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


@pytest.mark.parametrize(("send_fds", "wait4", "os_name", "forced", "platform", "expected"), [
    (True, True, "posix", None, "linux", ""),
    (True, True, "posix", "host", "linux", ""),
    (True, True, "posix", "process", "linux", "forced by CODEQUORUM_PORTABLE_CHANNEL"),
    (False, False, "nt", "process", "win32", "forced by CODEQUORUM_PORTABLE_CHANNEL"),
    (False, False, "nt", None, "win32", "this system cannot pass descriptors"),
    (False, True, "posix", None, "linux", "this system cannot pass descriptors"),
    (True, True, "nt", None, "win32", "this system is not POSIX"),
    (True, False, "posix", None, "linux",
     "this system cannot reap children the POSIX way (no os.wait4)"),
    (True, True, "posix", None, "darwin",
     "the long-lived host's SOCK_SEQPACKET socket is Linux's alone"),
])
def test_the_reason_names_what_the_choice_read(
        send_fds: bool, wait4: bool, os_name: str, forced: str | None, platform: str,
        expected: str) -> None:
    assert channel.reason(send_fds, wait4, os_name, forced, platform) == expected
    assert channel.choose(send_fds, wait4, os_name, forced, platform) == (
        channel.PROCESS if expected else channel.HOST)


def test_the_description_says_how_guests_are_reached() -> None:
    assert channel.describe(channel.HOST, "") == "guests reached through one long-lived host"
    assert channel.describe(channel.PROCESS, "this system cannot pass descriptors") == \
        "guests in a process of their own (this system cannot pass descriptors)"


def test_the_current_reason_reads_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(channel.FORCE, "process")
    assert channel.current_reason() == "forced by CODEQUORUM_PORTABLE_CHANNEL"
    monkeypatch.delenv(channel.FORCE)
    on_linux = sys.platform.startswith("linux")
    assert (channel.current_reason() == "") is on_linux  # Linux takes the long-lived host
    assert channel.current() == (channel.HOST if on_linux else channel.PROCESS)
