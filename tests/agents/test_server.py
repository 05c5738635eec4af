"""``codequorum mcp`` end to end: the real server process over stdio, driven by the MCP
SDK's own client; each tool called on real data and its figures compared with what
``codequorum check`` and ``codequorum score`` give for the same data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codequorum.agents.schema import MAX_COMPARE_VERSIONS, MAX_SAMPLE_COUNT
from codequorum.cli.main import main
from codequorum.ingest.store import VersionStore, default_store_path
from tests.agents.conftest import (
    DATA,
    SCRIPT,
    Endpoint,
    call,
    mcp_session,
    server_env,
    text_of,
)


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """A command's JSON output, run in this process."""
    capsys.readouterr()
    status = main(list(argv))
    out = capsys.readouterr().out
    assert status in (0, 1), out
    data: dict[str, Any] = json.loads(out)
    return data


async def test_lists_the_three_tools_with_typed_input_schemas(sign_ws: Path) -> None:
    async with mcp_session(sign_ws) as session:
        listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert sorted(tools) == ["check_function", "compare_versions", "sample_versions"]
    check = tools["check_function"].input_schema
    assert check["type"] == "object" and check["additionalProperties"] is False
    assert sorted(check["required"]) == ["function", "path"]
    assert check["properties"]["path"]["type"] == "string"
    assert check["properties"]["path"]["maxLength"] == 4096
    assert check["properties"]["dynamic"] == {
        "default": False, "type": "boolean", "title": "Dynamic",
        "description": check["properties"]["dynamic"]["description"]}
    compare = tools["compare_versions"].input_schema
    assert compare["required"] == ["versions"]
    versions = compare["properties"]["versions"]
    assert versions["type"] == "array" and versions["minItems"] == 2
    assert versions["maxItems"] == MAX_COMPARE_VERSIONS
    assert versions["items"] == {"type": "string", "maxLength": 100_000}
    version = tools["sample_versions"].input_schema
    assert sorted(version["required"]) == ["function", "path"]
    count = version["properties"]["count"]["anyOf"][0]
    assert count == {"type": "integer", "minimum": 1, "maximum": MAX_SAMPLE_COUNT}
    for tool in tools.values():
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.description
    assert tools["check_function"].annotations is not None
    assert tools["check_function"].annotations.read_only_hint is True
    assert tools["sample_versions"].annotations is not None
    assert tools["sample_versions"].annotations.read_only_hint is False


async def test_check_function_gives_what_codequorum_check_gives(
        sign_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with mcp_session(sign_ws) as session:
        result = await call(session, "check_function", {"path": "app.py", "function": "sign"})
    assert not result.is_error, text_of(result)
    got = result.structured_content
    assert isinstance(got, dict)
    expected = _cli_json(capsys, "check", str(sign_ws / "app.py"), "--workspace", str(sign_ws),
                         "--format", "json", "--fail-on", "never")
    row = expected["functions"][0]
    assert (got["path"], got["function"], got["status"]) == ("app.py", "sign", "ok")
    assert got["versions"] == row["versions"] == 4
    # the file's code (with its docstring) is not one of the stored versions: it comes last
    assert got["compared"] == 5 and got["current_index"] == 4
    assert got["stability"] == row["stability"]
    assert got["verdict"] == row["verdict"]
    assert [(f["code"], f["message"]) for f in got["findings"]] == [
        (f["code"], f["message"]) for f in expected["findings"]]
    assert got["dynamic"] == {"requested": False, "ran": False, "not_run": None, "note": None,
                              "interpreter": None, "summary": {}}
    assert got["parting_input"] is None
    rec = got["recommendation"]
    assert rec["version"] in range(5) and rec["code"].startswith("def sign(")
    assert rec["sentence"].startswith(f"keep version {rec['version'] + 1}")
    assert rec["risk"] is None and rec["risk_level"] is None  # no number from shape alone
    assert rec["trust"].startswith("not run yet: run the versions")
    assert text_of(result).startswith("`sign` in app.py: 5 versions compared (4 stored); "
                                      f"stability {row['stability']:.2f}")


async def test_check_function_dynamic_runs_the_versions_and_names_the_parting_input(
        sign_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with mcp_session(sign_ws) as session:
        result = await call(session, "check_function",
                            {"path": str(sign_ws / "app.py"), "function": "sign",
                             "dynamic": True}, progress_callback=on_progress)
    assert not result.is_error, text_of(result)
    got = result.structured_content
    assert isinstance(got, dict)
    expected = _cli_json(capsys, "check", str(sign_ws / "app.py"), "--workspace", str(sign_ws),
                         "--format", "json", "--fail-on", "never", "--dynamic")
    assert got["dynamic"]["requested"] is True and got["dynamic"]["ran"] is True
    assert [(f["code"], f["message"]) for f in got["findings"]] == [
        (f["code"], f["message"]) for f in expected["findings"]]
    assert got["findings"][0]["code"] == "divergent-outputs"
    summary = expected["findings"][0]["report"]["summary"]
    shared = [k for k, v in got["dynamic"]["summary"].items() if isinstance(v, float)]
    assert "oer" in shared
    for key in shared:
        assert got["dynamic"]["summary"][key] == pytest.approx(summary[key], rel=1e-9), key
    parting = got["parting_input"]
    assert parting["input"] == "sign(0)"
    rec = got["recommendation"]["version"]
    assert rec in (0, 1, 4) and parting["recommended_gives"] == "returns 0"
    others = {o["gives"]: o["versions"] for o in parting["others"]}
    assert others == {"returns 1": [2], "raises ZeroDivisionError": [3]}
    assert parting["sentence"] in text_of(result)
    assert progress, "no progress notification arrived"
    assert [p[0] for p in progress] == sorted(p[0] for p in progress)
    assert all(total == 100.0 for _, total, _ in progress)


async def test_a_function_without_versions_says_how_to_get_some(close_ws: Path) -> None:
    async with mcp_session(close_ws) as session:
        result = await call(session, "check_function",
                            {"path": "src/close.py", "function": "has_close_elements"})
    assert not result.is_error
    got = result.structured_content
    assert isinstance(got, dict)
    assert got["status"] == "no-versions" and got["versions"] == 0
    assert "sample_versions" in got["message"] and "compare_versions" in got["message"]
    assert not default_store_path(close_ws).exists(), "checking made a store"


async def test_compare_versions_gives_the_figures_codequorum_score_gives(
        tmp_path: Path, shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (shared_dir / "data" / DATA).open(encoding="utf-8") as fh:
        row = next(r for r in map(json.loads, fh) if r["task_id"] == "HumanEval/39")
    codes = [row["prompt"] + s for s in row["samples"][:10]]
    sets = tmp_path / "set.jsonl"
    sets.write_text(json.dumps({"task_id": "t", "samples": codes}) + "\n", encoding="utf-8")
    async with mcp_session(tmp_path) as session:
        result = await call(session, "compare_versions", {"versions": codes})
    assert not result.is_error, text_of(result)
    got = result.structured_content
    assert isinstance(got, dict)
    expected = _cli_json(capsys, "score", str(sets), "--format", "json")["sets"][0]
    for key in ("status", "n", "n_total", "empty", "syntax_errors", "summary", "typicality",
                "medoid", "clusters", "recommended", "recommended_by", "recommendation",
                "risk", "risk_level", "risk_range", "trust", "stability_percentile", "notes"):
        assert got[key] == expected[key], key
    assert got["verdicts"] == [{k: v[k] for k in ("code", "severity", "message", "versions",
                                                  "figure")} for v in expected["verdicts"]]
    assert got["summary"]["jsd_struct"]["ordered"] < 0.7  # CodeGen's prime_fib versions differ
    assert got["verdicts"][0]["code"] == "unstable-structure"
    assert text_of(result).startswith(f"10 versions in {len(got['clusters'])} groups")


async def test_compare_versions_reads_a_chat_answer_without_a_fence_as_its_code(
        tmp_path: Path) -> None:
    """An agent passing a version as a chat answer gave it (prose, the function, prose,
    no fence) has it compared on its code, not counted as a version that does not parse."""
    code = "def add(a, b):\n    return a + b\n"
    answer = "Here is a shorter one:\n\ndef add(a, b):\n    return b + a\n\nIt adds them.\n"
    async with mcp_session(tmp_path) as session:
        result = await call(session, "compare_versions", {"versions": [code, answer]})
    got = result.structured_content
    assert not result.is_error and isinstance(got, dict), text_of(result)
    assert got["syntax_errors"] == [0, 0] and got["n"] == 2


async def test_sample_versions_stores_what_the_endpoint_gives(
        close_ws: Path, endpoint: Endpoint) -> None:
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with mcp_session(close_ws, *endpoint.flags()) as session:
        result = await call(session, "sample_versions",
                            {"path": "src/close.py", "function": "has_close_elements",
                             "count": 3}, progress_callback=on_progress)
        assert not result.is_error, text_of(result)
        got = result.structured_content
        assert isinstance(got, dict)
        checked = await call(session, "check_function",
                             {"path": "src/close.py", "function": "has_close_elements"})
    assert got["requested"] == 3 and got["accepted"] + got["rejected"] + got["failed"] == 3
    assert got["accepted"] >= 1 and got["stored"] >= 1
    assert got["model"] == endpoint.model and got["endpoint"] == endpoint.base_url
    store = default_store_path(close_ws)
    assert got["store"] == str(store.resolve())
    with VersionStore.open(store) as opened:
        rows = opened.versions_for("src/close.py", "has_close_elements")
    assert len(rows) == got["stored"]
    assert {(r.origin, r.model) for r in rows} == {("regenerated", endpoint.model)}
    if endpoint.recorded is not None:  # the loopback server answers with CodeGen's versions
        assert got["accepted"] == 3 and got["stored"] == 3
        assert [o["outcome"] for o in got["outcomes"]] == ["accepted"] * 3
    assert progress[-1] == 3.0 and progress == sorted(progress)
    assert text_of(result).startswith(f"{got['accepted']} of 3 versions accepted")
    summary = checked.structured_content
    assert isinstance(summary, dict)
    assert summary["status"] == "ok" and summary["versions"] == got["stored"]


async def test_project_configuration_shapes_the_analysis(
        sign_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (sign_ws / "codequorum.toml").write_text("[mcp]\nno-tsed = true\n", encoding="utf-8")
    codes = ["def f(x):\n    return x + 1\n", "def f(x):\n    y = x\n    return y + 1\n"]
    async with mcp_session(sign_ws) as session:
        result = await call(session, "compare_versions", {"versions": codes})
    got = result.structured_content
    assert isinstance(got, dict)
    assert "tsed" not in got["summary"] and "jsd_struct" in got["summary"]



@pytest.mark.parametrize(("flags", "channel"), [((), ""), (("--sandbox", "portable"),
                                                         "process")])
async def test_check_function_runs_a_real_packages_versions_in_their_module(
        tmp_path: Path, flags: tuple[str, ...], channel: str) -> None:
    """more-itertools' ``one`` in a package with a relative import, its current code stored
    as version 1: over stdio, in the default sandbox and in the portable one reached with a
    process per guest (as on macOS and Windows), the versions run in their module, the
    docstring's four examples grade them, and the wrong version is the one that parts."""
    from tests.support import real_package

    real_package.make_workspace(tmp_path, SCRIPT)
    env = server_env(**({"CODEQUORUM_PORTABLE_CHANNEL": channel} if channel else {}))
    async with mcp_session(tmp_path, *flags, env=env) as session:
        result = await call(session, "check_function",
                            {"path": "mit/more.py", "function": "one", "dynamic": True})
    assert not result.is_error, text_of(result)
    out = result.structured_content
    assert out is not None
    assert out["dynamic"]["ran"] is True and out["dynamic"]["not_run"] is None
    assert out["dynamic"]["summary"]["graded_inputs"] == real_package.EXAMPLES
    assert (out["recommendation"]["version"], out["recommendation"]["by"]) == (0, "behaviour")
    assert out["recommendation"]["is_current"] is True
    assert "passes all 4 docstring examples" in out["recommendation"]["sentence"]
    assert out["parting_input"]["others"] == [{"gives": "returns 'too'", "versions": [2]}]
    assert "NameError" not in text_of(result)
