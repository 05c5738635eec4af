"""``check_function`` in this process: when versions cannot run, the answer says why and
keeps the structural figures; the readable text carries the findings."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from codequorum.agents.agent_workspace import AgentOptions, AgentWorkspace, no_progress
from codequorum.agents.check_tool import check_function, sandbox_problem
from codequorum.agents.schema import CheckArgs, CheckResult, DynamicOut
from codequorum.agents.text import check_text
from codequorum.behaviour.sandbox import isolation
from codequorum.behaviour.sandbox.isolation import PORTABLE_NOTE
from codequorum.pipeline.config import AnalysisConfig
from tests.agents.conftest import store_versions

JS = "function add(a, b) {\n  return a + b;\n}\n"


def _check(root: Path, **kwargs: object) -> CheckResult:
    ws = AgentWorkspace(root, AgentOptions(AnalysisConfig(metrics=("textual",))))
    try:
        return check_function(ws, CheckArgs.model_validate(kwargs), no_progress,
                              threading.Event())
    finally:
        ws.close()


def test_where_no_sandbox_runs_the_versions_do_not_run_and_it_says_why(
        sign_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    static = _check(sign_ws, path="app.py", function="sign")
    monkeypatch.setattr(isolation, "probe", lambda interpreter=None, sandbox="strict",
                        view=False: isolation.Probe(["deadline"], False, "no user namespaces"))
    result = _check(sign_ws, path="app.py", function="sign", dynamic=True)
    note = result.dynamic.note or ""
    assert result.dynamic.ran is False and result.dynamic.summary == {}
    assert note.startswith("the versions were not run: the sandbox cannot isolate "
                           "candidates here (no user namespaces)")
    assert result.dynamic.not_run == "sandbox unavailable"
    assert result.stability == static.stability
    assert result.parting_input is None
    assert "sandbox: the versions were not run: the sandbox cannot isolate" in (
        check_text(result))
    assert "behaviour not run: sandbox unavailable" in check_text(result)


def test_no_findings_without_a_run_says_the_versions_agree_in_shape_only() -> None:
    """Where no version ran, "the versions agree" would claim behaviour nobody compared."""
    def text(dynamic: DynamicOut) -> list[str]:
        return check_text(CheckResult(path="app.py", function="sign", language="python",
                                      status="ok", versions=3, compared=3, stability=0.96,
                                      dynamic=dynamic)).split("\n")

    assert text(DynamicOut(requested=False, ran=False))[1] == (
        "no findings: the versions agree in shape; their outputs were not compared "
        "(dynamic: true runs them in the sandbox)")
    assert text(DynamicOut(requested=True, ran=False, not_run="no inputs"))[1:] == [
        "no findings: the versions agree in shape", "behaviour not run: no inputs"]
    assert text(DynamicOut(requested=True, ran=True))[1] == "no findings: the versions agree"


def test_why_nothing_ran_is_said_once() -> None:
    """The ``not-run`` finding says why; the text does not say it again under it."""
    from codequorum.agents.schema import FindingOut

    finding = FindingOut(severity="information", code="not-run", figure=None, versions=[],
                         message="shape stable; behaviour not run: no inputs (...)")
    said = check_text(CheckResult(
        path="index.js", function="f", language="javascript", status="ok", versions=4,
        compared=4, findings=[finding], notes=["behaviour not run: no inputs"],
        dynamic=DynamicOut(requested=True, ran=False, not_run="no inputs")))
    assert said.count("not run") == 1, said


def test_without_the_strict_sandbox_the_versions_run_in_the_portable_one(
        sign_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codequorum.behaviour.sandbox import bwrap

    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    monkeypatch.setattr(isolation, "_cache", {})
    said: list[str] = []
    ws = AgentWorkspace(sign_ws, AgentOptions(AnalysisConfig(metrics=("textual",))))
    try:
        result = check_function(ws, CheckArgs(path="app.py", function="sign", dynamic=True),
                                lambda _d, _t, text: said.append(text), threading.Event())
    finally:
        ws.close()
    assert result.dynamic.ran is True
    assert result.dynamic.note is not None and (
        "the strict sandbox is not available here (this machine has no bubblewrap): "
        "versions run in the portable sandbox") in result.dynamic.note
    assert result.dynamic.summary["oer"] is not None


def test_javascript_versions_run_in_the_node_sandbox(tmp_path: Path) -> None:
    from codequorum.behaviour.runtimes import node_sandbox

    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    doc = "/**\n * Adds.\n * @example add(1, 2) // => 3\n */\n"
    (root / "add.js").write_text(doc + JS, encoding="utf-8")
    store_versions(root, root / "add.js", "add", [JS, JS.replace("a + b", "a - b")])
    result = _check(root, path="add.js", function="add", dynamic=True)
    assert result.status == "ok"
    assert result.dynamic.ran is True and result.dynamic.not_run is None
    assert (result.dynamic.interpreter or "").startswith("node ")
    assert "divergent-outputs" in {f.code for f in result.findings}
    assert result.recommendation is not None and result.recommendation.version == 0
    assert result.recommendation.by == "behaviour"


def test_the_server_started_with_the_portable_level_runs_the_versions_there(
        sign_ws: Path) -> None:
    ws = AgentWorkspace(sign_ws, AgentOptions(AnalysisConfig(metrics=("textual",),
                                                             sandbox="portable")))
    try:
        result = check_function(ws, CheckArgs(path="app.py", function="sign", dynamic=True),
                                lambda _d, _t, _text: None, threading.Event())
    finally:
        ws.close()
    assert result.dynamic.ran is True
    assert result.dynamic.note == PORTABLE_NOTE  # even where the strict sandbox holds
    assert result.dynamic.summary["oer"] is not None


def test_an_agents_versions_never_run_in_the_weak_sandbox(
        capsys: pytest.CaptureFixture[str]) -> None:
    from codequorum.cli.main import parse_arguments

    assert parse_arguments(["mcp", "--sandbox", "portable"]).sandbox == "portable"
    with pytest.raises(SystemExit):
        parse_arguments(["mcp", "--sandbox", "weak"])
    assert "invalid choice: 'weak'" in capsys.readouterr().err
    assert sandbox_problem("python", None, "weak") == (
        "an agent's versions never run in the weak sandbox")


def test_javascript_versions_run_with_the_helpers_they_define(tmp_path: Path) -> None:
    """A version's own second function and constant table are stored with it: the check
    runs it in the module, where it agrees with the others (no ReferenceError)."""
    from codequorum.behaviour.runtimes import node_sandbox

    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    doc = "/**\n * Adds.\n * @example add(1, 2) // => 3\n * @example add(-4, 2) // => -2\n */\n"
    (root / "add.js").write_text(doc + JS, encoding="utf-8")
    helped = ("const ZERO = 0;\nfunction plus(a, b) { return a + b + ZERO; }\n"
              "function add(a, b) {\n  return plus(a, b);\n}\nconsole.log(add(1, 2));\n")
    store_versions(root, root / "add.js", "add", [JS, helped])
    result = _check(root, path="add.js", function="add", dynamic=True)
    assert result.dynamic.ran is True and result.dynamic.not_run is None
    assert "divergent-outputs" not in {f.code for f in result.findings}
    assert result.dynamic.summary["pass_rate_max_diff"] == 0


def test_the_parting_input_a_workspace_test_asserts_says_the_kept_version_does_as_it_expects(
        tmp_path: Path) -> None:
    """Two versions of ``fmt`` without the guard agree ("NaNms"); the test file expects a
    throw: the one that throws is kept, and the sentence says the test expects it."""
    from codequorum.behaviour.runtimes import node_sandbox

    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    real = ("export function fmt(ms: number): string {\n"
            "  if (!Number.isFinite(ms)) throw new Error('not finite');\n"
            "  return `${ms}ms`;\n}\n")
    loose = real.replace("  if (!Number.isFinite(ms)) throw new Error('not finite');\n", "")
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "fmt.ts").write_text(real, encoding="utf-8")
    (root / "fmt.test.ts").write_text(
        "import { fmt } from './fmt';\n\ntest('fmt', () => {\n  expect(fmt(5)).toBe('5ms');\n"
        "  expect(() => fmt(NaN)).toThrow();\n});\n", encoding="utf-8")
    store_versions(root, root / "fmt.ts", "fmt",
                   [loose, loose.replace("`${ms}ms`", "ms + 'ms'"), real])
    result = _check(root, path="fmt.ts", function="fmt", dynamic=True)
    assert result.recommendation is not None and result.recommendation.version == 2
    parting = result.parting_input
    assert parting is not None and parting.input == "fmt(NaN)" and parting.source == "test"
    assert parting.sentence == ('on fmt(NaN) (a test in fmt.test.ts:5) version 3 (the current '
                                'code) raises Error, as the test expects; versions 1, 2 return '
                                '"NaNms"')


def test_the_code_to_keep_keeps_its_tabs(tmp_path: Path) -> None:
    # the agent writes the code into the file: a tab sent as ``\t`` would break it
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    tabbed = "function add(a, b) {\n\treturn a + b;\n}\n"
    (root / "add.ts").write_text(tabbed, encoding="utf-8")
    store_versions(root, root / "add.ts", "add",
                   [tabbed, "function add(a, b) {\n\tconst s = a + b;\n\treturn s;\n}\n"])
    result = _check(root, path="add.ts", function="add")
    assert result.recommendation is not None
    assert "\n\treturn " in result.recommendation.code and "\\t" not in result.recommendation.code
    dumped = CheckResult.model_validate(result.model_dump()).recommendation
    assert dumped is not None and dumped.code == result.recommendation.code
