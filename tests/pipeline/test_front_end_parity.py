"""One analysis for a function whatever the front end: the same stored versions of four
functions that need their module (a module constant, a helper, a relative import inside a
package, a method of a class), two of them asserted by the workspace's tests, through
``check --dynamic``, the language server (over stdio), the agents' ``check_function`` (the
MCP server over stdio) and ``score --dynamic`` on ``export``'s output give the same
verdicts, the same version to keep and the same risk; and the editor opened again on a
workspace ``check --dynamic`` ran in shows that run's verdicts without running anything
(runs are remembered with the versions)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codequorum.core.report import headline
from codequorum.ingest.store import VersionStore
from codequorum.judge.verdicts import QUIET_CODES
from codequorum.options.approvals import APPROVALS_NAME, Approvals
from tests.agents.conftest import call, mcp_session, store_versions, text_of
from tests.lsp.conftest import config_home, lsp_session
from tests.lsp.helpers import NO_AUTORUN, command, open_document, wait_for
from tests.support.duration_module import DURATION_APP, DURATION_VERSIONS, UNITS_SOURCE

SCRIPT = Path(sys.executable).parent / "codequorum"

#: The duration module (a relative import of a constant, a helper called by a method) and
#: two functions more: one reads a module constant, one calls a module helper.
APP = DURATION_APP.replace('''

class Timer:''', '''

LIMIT = 10


def clamp(x):
    """x, at most LIMIT.

    >>> clamp(12)
    10
    >>> clamp(3)
    3
    """
    return min(x, LIMIT)


def _twice(x):
    return 2 * x


def quadruple(x):
    """Four times x.

    >>> quadruple(3)
    12
    """
    return _twice(_twice(x))


class Timer:''')

#: Correct versions, and one wrong version of each new function: every front end must find
#: the same parting inputs, which none finds when the versions run outside their module.
VERSIONS = {
    "clamp": ["def clamp(x):\n    return min(x, LIMIT)\n",
              "def clamp(x):\n    return x if x < LIMIT else LIMIT\n",
              "def clamp(x):\n    return min(x, LIMIT + 1)\n"],
    "quadruple": ["def quadruple(x):\n    return _twice(_twice(x))\n",
                  "def quadruple(x):\n    return 2 * _twice(x)\n",
                  "def quadruple(x):\n    return _twice(x) + x\n"],
    "parse_duration": DURATION_VERSIONS["parse_duration"],
    "Timer.add": DURATION_VERSIONS["Timer.add"],
}

#: The workspace's tests: an assertion every front end reads as an expected outcome (the
#: wrong ``clamp`` returns 11), and a parametrized one.
TESTS = """import pytest

from tools.app import clamp, quadruple


def test_clamp():
    assert clamp(11) == 10


@pytest.mark.parametrize("x, want", [(1, 4), (-2, -8)])
def test_quadruple(x, want):
    assert quadruple(x) == want
"""

#: What a front end says of one function: its headline verdict, the verdicts that are
#: findings (in order), the version to keep and the risk.
Said = tuple[str | None, tuple[str, ...], int | None, float | None]


def _said(headline: str | None, codes: list[str], recommended: int | None,
          risk: float | None) -> Said:
    return (headline, tuple(c for c in codes if c not in QUIET_CODES), recommended,
            None if risk is None else round(risk, 6))


def _from_report(report: dict[str, Any]) -> Said:
    """What a report's JSON says (the editor's ``analyze``, ``score``'s sets)."""
    first = headline(report["verdicts"], lambda v: v["severity"])
    return _said(first["code"] if first else None, [v["code"] for v in report["verdicts"]],
                 report["recommended"], report["risk"])


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with the package ``tools`` and the versions stored with the command
    line (as a user imports them); no run yet."""
    root = tmp_path_factory.mktemp("parity") / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "tools" / "__init__.py").write_text("", encoding="utf-8")
    (root / "tools" / "units.py").write_text(UNITS_SOURCE, encoding="utf-8")
    (root / "tools" / "app.py").write_text(APP, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text(TESTS, encoding="utf-8")
    for name, codes in VERSIONS.items():
        store_versions(root, root / "tools" / "app.py", name, codes)
    return root


def _copy(prepared: Path, tmp_path: Path, name: str) -> Path:
    """A copy of the prepared workspace of its own (each front end runs the versions)."""
    root = tmp_path / name / "ws"
    shutil.copytree(prepared, root, symlinks=True)
    return root


def _check(root: Path) -> dict[str, Said]:
    """``check --dynamic`` as the user the editor runs as (:func:`config_home`: the same
    folder, so the same key seals the runs it remembers)."""
    proc = subprocess.run([str(SCRIPT), "check", "tools/app.py", "--dynamic", "--format",
                           "json", "--fail-on", "never"], cwd=root, capture_output=True,
                          env={**os.environ, "XDG_CONFIG_HOME": str(config_home(root))},
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    return {f["function"]: _said(f["verdict"], f["verdicts"], f["recommended"], f["risk"])
            for f in doc["functions"]}


async def _editor(root: Path, run: bool, user: Path | None = None) -> dict[str, Said]:
    """What the language server says of each function (after running its versions when
    ``run``), from ``codequorum.analyze``; ``user``: another user's configuration folder."""
    out: dict[str, Said] = {}
    env = {"XDG_CONFIG_HOME": str(user)} if user is not None else None
    async with lsp_session(root, init_options=NO_AUTORUN, answer="Run in the sandbox",
                           env=env) as client:
        uri = open_document(client, root / "tools" / "app.py", APP)
        for name in VERSIONS:
            if run:
                started = await command(client, "codequorum.runDynamic", uri, name)
                assert started["started"] is True, started
                token = started["token"]
                await wait_for(lambda t=token: any(getattr(v, "kind", "") == "end"
                                                   for v in client.progress_reports[t]),
                               timeout=300)
            report = (await command(client, "codequorum.analyze", uri, name))["report"]
            out[name] = _from_report(report)
    return out


async def _agent(root: Path) -> dict[str, Said]:
    return await _agent_at(root, [("tools/app.py", name) for name in VERSIONS])


async def _agent_at(root: Path, functions: list[tuple[str, str]]) -> dict[str, Said]:
    """What the agents' ``check_function`` with ``dynamic`` says of each (file, function)."""
    out: dict[str, Said] = {}
    async with mcp_session(root) as session:
        for path, name in functions:
            result = await call(session, "check_function",
                                {"path": path, "function": name, "dynamic": True})
            assert not result.is_error, text_of(result)
            got = result.structured_content
            assert isinstance(got, dict)
            assert got["dynamic"]["ran"] is True, got["dynamic"]
            rec = got["recommendation"] or {}
            out[name] = _said(got["verdict"], [f["code"] for f in got["findings"]],
                              rec.get("version"), rec.get("risk"))
    return out


def _score(root: Path) -> dict[str, Said]:
    sets = root.parent / "sets.jsonl"
    subprocess.run([str(SCRIPT), "export", "-o", str(sets)], cwd=root, check=True,
                   capture_output=True, timeout=120)
    proc = subprocess.run([str(SCRIPT), "score", str(sets), "--dynamic", "--format", "json",
                           "--risk-level", "set"], cwd=root, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    out: dict[str, Said] = {}
    for s in doc["sets"]:
        assert not any("without its module" in n for n in s["notes"]), s["notes"]
        name = s["task_id"].split("::", 1)[1]
        out[name] = _from_report(s)
    return out


def _timed_apart(said: dict[str, Said]) -> dict[str, Said]:
    """``said`` without ``complexity-outlier``: a growth class is read off CPU time, which
    each front end measures in its own run, so a loaded machine can move one version's
    slope between two runs (seen: ``quadruple``'s ``_twice(x) + x`` read apart once in the
    editor's run and not in ``check``'s); everything else the runs give is compared."""
    return {k: (h, tuple(c for c in codes if c != "complexity-outlier"), r, risk)
            for k, (h, codes, r, risk) in said.items()}


def _structural_only(said: dict[str, Said]) -> dict[str, Said]:
    """``said`` without the verdicts of the code in the editor (``outlier-current``), which
    only the front ends that hold the current code give."""
    return {k: (h, tuple(c for c in codes if c != "outlier-current"), r, risk)
            for k, (h, codes, r, risk) in said.items()}


async def test_every_front_end_gives_the_same_analysis(prepared: Path, tmp_path: Path) -> None:
    by_check = _check(_copy(prepared, tmp_path, "check"))
    assert set(by_check) == set(VERSIONS)
    # in their module the correct versions agree and the wrong ones part ways
    assert "divergent-outputs" in by_check["clamp"][1]
    assert "divergent-outputs" in by_check["quadruple"][1]
    assert by_check["clamp"][2] != 2 and by_check["quadruple"][2] != 2  # the tests hold them
    assert by_check["parse_duration"][1] == by_check["Timer.add"][1] == ()
    assert all(risk is not None for _, _, _, risk in by_check.values())

    expected = _timed_apart(by_check)
    assert _timed_apart(await _editor(_copy(prepared, tmp_path, "editor"), run=True)) == expected
    assert _timed_apart(await _agent(_copy(prepared, tmp_path, "agent"))) == expected
    assert _structural_only(_timed_apart(_score(_copy(prepared, tmp_path, "score")))) == \
        _structural_only(expected)


async def test_the_editor_shows_what_check_ran_until_the_module_changes(
        prepared: Path, tmp_path: Path) -> None:
    root = _copy(prepared, tmp_path, "reopen")
    by_check = _check(root)
    # another user (the store came with the repository, its runs made elsewhere), even one
    # who approved the store: no run shows, none bears that user's seal
    stranger = tmp_path / "stranger-config"
    with VersionStore.open(root / ".codequorum" / "samples.sqlite3", roots=[root]) as store:
        store_id = store.store_id
    Approvals(stranger / "codequorum" / APPROVALS_NAME).approve_store(
        (root / ".codequorum" / "samples.sqlite3").resolve(), store_id)
    unsealed = await _editor(root, run=False, user=stranger)
    assert "divergent-outputs" not in unsealed["clamp"][1]
    assert all(risk is None for _, _, _, risk in unsealed.values())
    # the user who ran check: reopened, the same verdicts, nothing run
    assert await _editor(root, run=False) == by_check
    # the module changed (a line elsewhere): the remembered runs no longer count
    app = root / "tools" / "app.py"
    app.write_text(APP.replace("LIMIT = 10\n", "LIMIT = 10\nOTHER = 1\n"), encoding="utf-8")
    changed = await _editor_text(root, app.read_text(encoding="utf-8"))
    assert "divergent-outputs" not in changed["clamp"][1]


async def _editor_text(root: Path, text: str) -> dict[str, Said]:
    out: dict[str, Said] = {}
    async with lsp_session(root, init_options=NO_AUTORUN) as client:
        uri = open_document(client, root / "tools" / "app.py", text)
        for name in VERSIONS:
            report = (await command(client, "codequorum.analyze", uri, name))["report"]
            out[name] = _from_report(report)
    return out
