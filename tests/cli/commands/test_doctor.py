"""``codequorum doctor``: the layers this machine gives, and what happens without them."""

from __future__ import annotations

import json

import pytest

from codequorum.behaviour.sandbox import bwrap, isolation
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


def test_without_bubblewrap_candidates_do_not_run_by_default(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    monkeypatch.setattr(isolation, "_cache", {})
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "bubblewrap: not found" in out
    assert "missing bwrap" in out
    assert "strict sandbox unavailable: bubblewrap is not available" in out
    assert "`--sandbox weak`" in out
    assert "`--sandbox portable`" in out  # it holds on this machine, with its layers
    assert "portable sandbox: available (wasm, no-preopens, store-limits, fuel, epoch" in out
    assert "JavaScript and TypeScript: node " in out
    assert "the Node sandbox did not start: error cannot start the child: bubblewrap is not " \
        "available" in out


def test_verdict_wording() -> None:
    assert doctor.verdict(False, False) == "candidates cannot run on this machine"
    assert doctor.verdict(False, True).startswith("candidates do not run by default")
    assert "`--sandbox portable`" in doctor.verdict(False, True, portable_ok=True)
    assert "portable" not in doctor.verdict(False, True, portable_ok=False)


def test_the_request_is_read_from_the_parsed_arguments() -> None:
    from codequorum.cli.main import parse_arguments

    args = parse_arguments(["doctor", "--interpreter", "python3", "--format", "json",
                            "--isolated"])
    assert doctor.doctor_request(args) == doctor.DoctorRequest(interpreter="python3",
                                                               format="json")
    assert doctor.doctor_request(parse_arguments(["doctor", "--isolated"])) == \
        doctor.DoctorRequest(interpreter=None, format="text")
