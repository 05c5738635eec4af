"""One analysis for a JavaScript function whatever the front end, in workspaces shaped like
real npm packages: an ES module of ``.mjs`` files importing a constant, its example kept as
date-fns keeps it (``const result = f(2)`` then ``//=> 120``), and an ESM package whose
only call that parts a bug from the real function is in its ``test.js`` (camelcase's
shape). ``check --dynamic``, the language server (over stdio), the agents'
``check_function`` (the MCP server over stdio) and ``score --dynamic`` on ``export``'s
output give the same verdicts, version to keep and risk; the hover names the input and
where it came from; nothing is written into the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from codequorum.behaviour.runtimes import node_sandbox
from tests.agents.conftest import store_versions
from tests.lsp.helpers import hover_text, position_of
from tests.pipeline import test_front_end_parity as parity

CONSTANTS = "export const minutesInHour = 60;\n"
HOURS = '''import { minutesInHour } from "./constants.mjs";

/**
 * @name hoursToMinutes
 * @summary Convert hours to minutes.
 *
 * @example
 * // Convert 2 hours to minutes:
 * const result = hoursToMinutes(2)
 * //=> 120
 */
export function hoursToMinutes(hours) {
  return Math.trunc(hours * minutesInHour);
}
'''
SLUG = """const SEPARATORS = /[_.\\- ]+/;

export default function slug(input) {
  input = input.trim();
  if (input.length === 1) {
    if (SEPARATORS.test(input)) {
      return '';
    }
    return input.toLowerCase();
  }
  return input.toLowerCase().split(SEPARATORS).filter(Boolean).join('-');
}
"""
TEST = """import test from 'ava';
import slug from './slug.js';

test('slug', t => {
  t.is(slug('Foo Bar'), 'foo-bar');
  t.is(slug('-'), '');
});
"""
_REAL_SLUG = SLUG[SLUG.index("export default"):]
#: Per file and function: the real one, one written otherwise, one with a realistic bug.
VERSIONS = {
    ("hoursToMinutes.mjs", "hoursToMinutes"): [
        "export function hoursToMinutes(hours) {\n  return Math.trunc(hours * minutesInHour);\n}\n",
        "export function hoursToMinutes(hours) {\n  const m = hours * 60;\n"
        "  return m < 0 ? Math.ceil(m) : Math.floor(m);\n}\n",
        "export function hoursToMinutes(hours) {\n"
        "  return Math.round(hours * minutesInHour) + 1;\n}\n"],
    ("slug.js", "slug"): [
        _REAL_SLUG,
        _REAL_SLUG.replace("input.length === 1", "input.length > 0 && input.length < 2"),
        _REAL_SLUG.replace("    if (SEPARATORS.test(input)) {\n      return '';\n    }\n", "")],
}
FILES = {"constants.mjs": CONSTANTS, "hoursToMinutes.mjs": HOURS, "slug.js": SLUG,
         "test.js": TEST, "package.json": '{"name": "pkg", "type": "module"}'}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    root = tmp_path_factory.mktemp("parity-js") / "ws"
    (root / ".git").mkdir(parents=True)
    for name, text in FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    for (file, name), codes in VERSIONS.items():
        store_versions(root, root / file, name, codes)
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".codequorum" not in p.parts}


async def test_every_front_end_gives_the_same_analysis_of_javascript(
        prepared: Path, tmp_path: Path) -> None:
    files = sorted({file for file, _ in VERSIONS})
    check_root = parity._copy(prepared, tmp_path, "check")
    before = _files(check_root)
    by_check = _check(check_root, files)
    assert _files(check_root) == before
    assert set(by_check) == {"hoursToMinutes", "slug"}
    for name in by_check:  # the bug parts from the real one; the rewrite agrees with it
        assert "divergent-outputs" in by_check[name][1], by_check
        assert by_check[name][2] in (0, 1) and by_check[name][3] is not None

    agent = await parity._agent_at(parity._copy(prepared, tmp_path, "agent"),
                                   [(f, n) for f, n in VERSIONS])
    assert agent == by_check
    assert parity._structural_only(parity._score(parity._copy(prepared, tmp_path, "score"))) \
        == parity._structural_only(by_check)
    editor_root = parity._copy(prepared, tmp_path, "editor")
    said, hovers = await _editor(editor_root)
    assert said == by_check
    assert "hoursToMinutes(2)" in hovers["hoursToMinutes"]
    assert 'slug("-")' in hovers["slug"] and "test.js:6" in hovers["slug"]
    assert all("inputs in node " in text for text in hovers.values())


def _check(root: Path, files: list[str]) -> dict[str, parity.Said]:
    import json
    import subprocess

    proc = subprocess.run([str(parity.SCRIPT), "check", *files, "--dynamic", "--format",
                           "json", "--fail-on", "never"], cwd=root, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    return {f["function"]: parity._said(f["verdict"], f["verdicts"], f["recommended"], f["risk"])
            for f in doc["functions"]}


async def _editor(root: Path) -> tuple[dict[str, parity.Said], dict[str, str]]:
    from tests.lsp.conftest import lsp_session
    from tests.lsp.helpers import NO_AUTORUN, command, open_document, wait_for

    out: dict[str, parity.Said] = {}
    hovers: dict[str, str] = {}
    async with lsp_session(root, init_options=NO_AUTORUN,
                           answer="Run in the sandbox") as client:
        for file, name in VERSIONS:
            text = FILES[file]
            uri = open_document(client, root / file, text, "javascript")
            started = await command(client, "codequorum.runDynamic", uri, name)
            assert started["started"] is True, started
            token = started["token"]
            await wait_for(lambda t=token: any(getattr(v, "kind", "") == "end"
                                               for v in client.progress_reports[t]),
                           timeout=300)
            report = (await command(client, "codequorum.analyze", uri, name))["report"]
            assert report["dynamic"]["python"].startswith("node ")
            out[name] = parity._from_report(report)
            shown = await hover_text(client, uri, position_of(text, f"function {name}(", 9))
            hovers[name] = shown or ""
    return out, hovers


def test_the_fixture_files_are_what_the_versions_replace() -> None:
    for (file, name), codes in VERSIONS.items():
        assert codes[0].strip() in FILES[file], (file, name)
        assert len(set(codes)) == 3
