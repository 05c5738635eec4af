"""A run's report kept in the store and read back as untrusted input: bounded, validated,
and never claiming more than it holds."""

from __future__ import annotations

import dataclasses
import json

import pytest

from codequorum.behaviour import run_record as rr
from codequorum.behaviour.dynamic_analysis import CandidateDynamic, DynamicReport, RuleFigures
from codequorum.core import run_seal
from codequorum.core.model import ModuleContext
from codequorum.metrics.semantic import Divergence

KEY = "k" * 64
SEAL = bytes(range(32))  # the user's key, as run_seal.seal_key() gives it


def _report(versions: int = 2) -> DynamicReport:
    outcomes: list[list[tuple[str | None, str | None, str | None] | None]] = [
        [(value, None, None)] for value in ("1", "2")[:versions]]
    return DynamicReport(
        task_id="app.py::f",
        summary={"oer": 0.5, "inputs": 1.0, "sctd_jsd": None},
        candidates=[CandidateDynamic(i, "ok", "", None, 0, 0, "returned", None, [(8, 120)],
                                     None, 10.0, 12) for i in range(versions)],
        rules=RuleFigures(Divergence(0, 0, 1, "1", "2", ((("1", None, None), (0,)),
                                                         (("2", None, None), (1,)))),
                          "f(1)", "doctest", 2, 0.1, 0.2, 1.0, 0.6, 0.1, 1000.0),
        fastest=0, layers=["namespaces"], inputs_source=["doctest"],
        inputs=[{"source": "doctest", "label": "f(1)", "graded": False, "checked": False,
                 "size": None}],
        outcomes=outcomes, passes=[[None] for _ in range(versions)],
        output_clusters=[[0], [1]][:versions])


def test_a_report_comes_back_as_it_was_kept() -> None:
    report = _report()
    text = rr.encode(report, KEY, SEAL)
    assert text is not None
    assert rr.decode(text, KEY, 2, SEAL) == report


def test_a_record_counts_only_under_its_key_and_for_its_versions() -> None:
    text = rr.encode(_report(), KEY, SEAL)
    assert rr.decode(text, "other", 2, SEAL) is None
    assert rr.decode(text, KEY, 3, SEAL) is None  # a row per version it was written about


def test_a_record_without_the_users_seal_is_ignored() -> None:
    """A repository can write a well-formed record, but not seal it with the user's key."""
    text = rr.encode(_report(), KEY, SEAL)
    assert text is not None
    record = text.split(run_seal.SEPARATOR, 1)[1]
    assert rr.decode(record, KEY, 2, SEAL) is None  # unsealed
    assert rr.decode(rr.encode(_report(), KEY, bytes(32)), KEY, 2, SEAL) is None  # a stranger's
    forged = text.replace('"oer":0.5', '"oer":0.0')  # the user's seal on other text
    assert forged != text and rr.decode(forged, KEY, 2, SEAL) is None


def _unsealed(text: str | None) -> str:
    return (text or "").split(run_seal.SEPARATOR, 1)[1]


def _tampered(change: object) -> str:
    """A record changed and sealed again: what the checks beyond the seal must catch."""
    data = json.loads(_unsealed(rr.encode(_report(), KEY, SEAL)))
    change(data["report"])  # type: ignore[operator]
    return run_seal.seal(SEAL, json.dumps(data))


@pytest.mark.parametrize("change", [
    lambda r: r["candidates"].reverse(),                      # versions out of order
    lambda r: r["outcomes"][0].append(["3", None, None]),     # an outcome for no input
    lambda r: r.update(fastest=7),                            # a version that is not one
    lambda r: r.update(output_clusters=[[0, 5]]),             # groups of other versions
    lambda r: r["rules"]["divergence"].update(input_index=4),  # a parting input not there
    lambda r: r["summary"].update(oer="high"),                # a figure that is no number
    lambda r: r["summary"].update(secret=1.0),                # a figure nobody computes
    lambda r: r["outcomes"][1].__setitem__(0, ["x" * 30_000, None, None]),  # too long
    lambda r: r.update(candidates="all passed"),              # a type that is not its own
    lambda r: r["inputs"].extend([{"source": "x", "label": "y", "graded": False,
                                   "checked": False, "size": None}] * 3000),
])
def test_a_record_that_does_not_add_up_is_ignored(change: object) -> None:
    assert rr.decode(_tampered(change), KEY, 2, SEAL) is None


@pytest.mark.parametrize("text", [
    None, 42, "", "not json", "[" * 5000 + "]" * 5000, "x" * (rr.MAX_RECORD_CHARS + 1),
    json.dumps({"format": 99, "key": KEY, "report": {}}),
    json.dumps({"format": rr.RECORD_FORMAT, "key": KEY, "report": [1, 2]}),
])
def test_what_is_no_record_is_ignored(text: object) -> None:
    assert rr.decode(text, KEY, 2, SEAL) is None
    if isinstance(text, str):
        assert rr.decode(run_seal.seal(SEAL, text), KEY, 2, SEAL) is None


def test_a_figure_json_cannot_carry_is_not_kept() -> None:
    report = dataclasses.replace(_report(), summary={"oer": float("nan")})
    assert rr.encode(report, KEY, SEAL) is None


def _module(text: str) -> ModuleContext:
    return ModuleContext("pkg.app", "pkg/app.py", "f", "function",
                         (("pkg/app.py", text), ("pkg/units.py", "U = 1\n")), ("",))


def test_the_key_changes_with_the_versions_the_module_and_the_options() -> None:
    codes = ["def f(x):\n    return x\n", "def f(x):\n    return +x\n"]
    key = rr.run_key(codes, _module("X = 1\n"), "timeout=10.0")
    assert rr.run_key(list(codes), _module("X = 1\n"), "timeout=10.0") == key
    assert rr.run_key(codes[:1], _module("X = 1\n"), "timeout=10.0") != key
    assert rr.run_key(codes, _module("X = 2\n"), "timeout=10.0") != key
    assert rr.run_key(codes, None, "timeout=10.0") != key
    assert rr.run_key(codes, _module("X = 1\n"), "timeout=5.0") != key
