"""TypeScript in the editor: the real server runs a function's versions in the Node sandbox
and the hover recommends a version on behaviour (its JSDoc examples graded)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codequorum.behaviour.runtimes import node_sandbox

from .conftest import lsp_session
from .helpers import NO_AUTORUN, command, hover_text, open_document, position_of, wait_for


async def run_versions(client: Any, workspace: Path, name: str, doc: str, at: str,
                       versions: list[str]) -> tuple[str, Any, dict[str, Any]]:
    """Open *doc* as a TypeScript file, add *versions* of *name*, run them in the Node sandbox
    from the position of *at* and wait for the run's end: the document's URI, that position
    and the report."""
    uri = open_document(client, workspace / f"{name}.ts", doc, "typescript")
    await command(client, "codequorum.addVersions", uri, name, versions)
    pos = position_of(doc, at)
    started = await command(client, "codequorum.runDynamic", uri, pos)
    assert started["started"] is True
    token = started["token"]
    await wait_for(lambda: any(getattr(v, "kind", "") == "end"
                               for v in client.progress_reports[token]), timeout=120)
    report: dict[str, Any] = (await command(client, "codequorum.analyze", uri, name))["report"]
    return uri, pos, report


DOC = """/**
 * Clamp x into [0, 10].
 * @example clamp(5) // => 5
 * @example clamp(-3) // => 0
 * @example clamp(12) // => 10
 */
function clamp(x: number): number {
  return Math.max(0, Math.min(10, x));
}
"""
VERSIONS = [
    "function clamp(x: number): number {\n  if (x < 0) return 0;\n  if (x > 10) return 10;\n"
    "  return x;\n}\n",
    "function clamp(x: number): number {\n  return [0, x, 10].sort((a, b) => a - b)[1];\n}\n",
    "function clamp(x: number): number {\n  return Math.abs(x) % 11;\n}\n",  # wrong below 0
]


async def test_a_typescript_function_runs_and_the_hover_recommends_on_behaviour(
        workspace: Path) -> None:
    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri, pos, report = await run_versions(client, workspace, "clamp", DOC, "clamp(x", VERSIONS)
        assert report["language"] == "typescript"
        dynamic = report["dynamic"]
        assert dynamic["python"].startswith("node ")
        assert [c["pass_rate"] for c in dynamic["candidates"]] == [1.0, 1.0, 1 / 3, 1.0]
        assert "divergent-outputs" in [v["code"] for v in report["verdicts"]]
        assert report["recommended_by"] == "behaviour"
        text = await hover_text(client, uri, pos)
        assert text is not None and "keep" in text.lower()
        assert "docstring example" in text or "example" in text


ENUM_DOC = """export enum Direction { Up = 'UP', Right = 'RIGHT', Down = 'DOWN', Left = 'LEFT' }

/** The direction after a clockwise quarter turn. */
export function turn(d: Direction): Direction {
  const order = [Direction.Up, Direction.Right, Direction.Down, Direction.Left];
  return order[(order.indexOf(d) + 1) % 4];
}
"""
ENUM_VERSIONS = [
    "export function turn(d: Direction): Direction {\n  switch (d) {\n"
    "    case Direction.Up: return Direction.Right;\n"
    "    case Direction.Right: return Direction.Down;\n"
    "    case Direction.Down: return Direction.Left;\n    default: return Direction.Up;\n  }\n}\n",
    "export function turn(d: Direction): Direction {\n"  # counter-clockwise
    "  const order = [Direction.Up, Direction.Left, Direction.Down, Direction.Right];\n"
    "  return order[(order.indexOf(d) + 1) % 4];\n}\n",
]


async def test_an_enum_typed_function_runs_on_its_members_and_the_hover_says_where_they_part(
        workspace: Path) -> None:
    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri, pos, report = await run_versions(
            client, workspace, "turn", ENUM_DOC, "turn(d", ENUM_VERSIONS)
        dynamic = report["dynamic"]
        # the enum's members are the inputs: its file declares them, the function's text not
        assert [i["label"] for i in dynamic["inputs"]] == [
            'turn("UP")', 'turn("RIGHT")', 'turn("DOWN")', 'turn("LEFT")']
        assert [c["status"] for c in dynamic["candidates"]] == ["ok"] * 3
        assert [len(c) for c in dynamic["output_clusters"]] == [2, 1]  # counter-clockwise
        assert "divergent-outputs" in [v["code"] for v in report["verdicts"]]
        text = await hover_text(client, uri, pos)
        assert text is not None and 'turn("UP")' in text


#: Versions as an assistant writes them: a helper function, a constant table, a class
#: beside the function, and a line that calls it (which is not kept).
HELPED_VERSIONS = [
    "const LOW = 0;\nconst HIGH = 10;\nfunction within(x: number, lo: number, hi: number) {\n"
    "  return Math.max(lo, Math.min(hi, x));\n}\n"
    "function clamp(x: number): number {\n  return within(x, LOW, HIGH);\n}\n"
    "console.log(clamp(5));\n",
    "class Range { constructor(readonly lo: number, readonly hi: number) {}\n"
    "  fit(x: number) { return x < this.lo ? this.lo : x > this.hi ? this.hi : x; } }\n"
    "const UNIT = new Range(0, 10);\nfunction clamp(x: number): number {\n"
    "  return UNIT.fit(x);\n}\n",
]


async def test_versions_added_in_the_editor_run_with_the_helpers_they_define(
        workspace: Path) -> None:
    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri, _, report = await run_versions(client, workspace, "clamp", DOC, "clamp(x",
                                            HELPED_VERSIONS)
        candidates = report["dynamic"]["candidates"]
        assert [(c["status"], c["pass_rate"]) for c in candidates] == [("ok", 1.0)] * 3
        assert "divergent-outputs" not in [v["code"] for v in report["verdicts"]]
        shown = await command(client, "codequorum.showVersion", uri, "clamp", 1)
        assert shown["code"].startswith("const LOW = 0;\n\nconst HIGH = 10;\n\nfunction within(")
        assert "console.log" not in shown["code"]
