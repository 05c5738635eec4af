"""Dynamic analysis from the editor: sandboxed runs in the background, with progress,
then diagnostics, hover figures and the "fastest version" action."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from codequorum.judge.dynamic_rules import NO_INPUTS_HINT
from codequorum.judge.risk import DID_NOT_RUN, NO_INPUTS, NOT_RUN
from codequorum.lsp.markdown import md_text
from tests.support.duration_module import (
    DURATION_APP,
    DURATION_VERSIONS,
    UNITS_SOURCE,
    standalone,
)

from .conftest import lsp_session
from .helpers import (
    NO_AUTORUN,
    actions_at,
    apply_edits,
    code_lenses,
    command,
    hover_text,
    open_document,
    position_of,
    progress_values,
    wait_for,
)

DOC = '''def clamp(x: int) -> int:
    """Clamp x into [0, 10].

    >>> clamp(5)
    5
    >>> clamp(-3)
    0
    """
    return max(0, min(10, x))
'''
VERSIONS = [
    "def clamp(x: int) -> int:\n    if x < 0:\n        return 0\n    if x > 10:\n"
    "        return 10\n    return x\n",
    "def clamp(x: int) -> int:\n    return sorted([0, x, 10])[1]\n",
    "def clamp(x: int) -> int:\n    return abs(x) % 11\n",  # wrong for negatives
]


async def test_run_dynamic_in_the_background(workspace: Path) -> None:
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        pos = position_of(DOC, "clamp")
        started = await command(client, "codequorum.runDynamic", uri, pos)
        assert started["started"] is True
        token = started["token"]
        # the hover is answered while the versions run
        assert await hover_text(client, uri, pos) is not None

        def ended() -> bool:
            return any(getattr(v, "kind", "") == "end" for v in client.progress_reports[token])

        await wait_for(ended, timeout=120)
        reports = progress_values(client, token)
        assert reports[0].kind == "begin"
        assert isinstance(reports[0], types.WorkDoneProgressBegin)
        assert reports[0].title == "codequorum: running clamp versions"
        assert reports[-1].message == "done"
        percentages = [
            r.percentage
            for r in reports
            if r.kind == "report" and isinstance(r, types.WorkDoneProgressReport)
        ]
        assert percentages[-1] == 100

        report = await command(client, "codequorum.analyze", uri, "clamp")
        summary = report["report"]["summary"]
        assert 0 < summary["oer"] < 1  # version 3 answers differently for negative inputs
        codes = [v["code"] for v in report["report"]["verdicts"]]
        assert "divergent-outputs" in codes

        diags = await wait_for(
            lambda: [d for d in client.diagnostics.get(uri, ()) if d.code == "divergent-outputs"]
        )
        assert diags[0].range.start == pos
        assert "disagree" in diags[0].message

        text = await hover_text(client, uri, pos)
        assert text is not None
        for label, key in (("SCTD", "sctd_jsd"), ("OER", "oer")):
            assert f"{label} {summary[key]:.2f}" in text
        done = [
            m.message for m in client.messages if "dynamic analysis of 'clamp' done" in m.message
        ]
        assert done and f"OER {summary['oer']:.2f}" in done[0]

        fastest = report["fastest"]
        assert fastest is not None and 0 <= fastest < 3
        assert f"- fastest: v{fastest + 1}" in text
        actions = await actions_at(client, uri, pos)
        assert actions is not None
        pick = next(a for a in actions if "fastest" in a.title)
        assert isinstance(pick, types.CodeAction)
        assert pick.title == f"Replace `clamp` with the fastest version (v{fastest + 1})"
        assert pick.edit is not None and pick.edit.changes is not None
        body = VERSIONS[fastest].split("\n", 1)[1]  # under the user's docstring
        assert apply_edits(DOC, list(pick.edit.changes[uri])) == (
            DOC[: DOC.index("    return")] + body)
        own = next(a for a in actions if a.title == pick.title + ", with the version's own "
                   "docstring")
        assert isinstance(own, types.CodeAction) and own.edit and own.edit.changes
        assert apply_edits(DOC, list(own.edit.changes[uri])) == VERSIONS[fastest]

        again = await command(client, "codequorum.runDynamic", uri, "clamp")
        assert again["started"] is True  # a finished job can be run again


SPIN_DOC = "def spin(x: int) -> int:\n    return x\n"
SPINNING = [
    "def spin(x: int) -> int:\n    while True:\n        x += 1\n",
    "def spin(x: int) -> int:\n    while x >= 0 or True:\n        x -= 1\n",
]


async def test_cancel_a_dynamic_run(workspace: Path) -> None:
    async with lsp_session(workspace, init_options={"dynamic": {"timeout": 60, "auto": False}}
                           ) as client:
        uri = open_document(client, workspace / "spin.py", SPIN_DOC)
        await command(client, "codequorum.addVersions", uri, "spin", SPINNING)
        started = await command(client, "codequorum.runDynamic", uri, "spin")
        token = started["token"]
        await wait_for(lambda: client.progress_reports[token])
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

        def ended() -> bool:
            return any(getattr(v, "kind", "") == "end" for v in client.progress_reports[token])

        await wait_for(ended, timeout=20)  # far less than the 60 s the versions may run
        assert progress_values(client, token)[-1].message == "cancelled"
        # the message follows the end of the progress: wait for it, do not race it
        await wait_for(lambda: any("dynamic analysis of 'spin' cancelled" in m.message
                                   for m in client.messages), timeout=10)
        report = await command(client, "codequorum.analyze", uri, "spin")
        assert "oer" not in report["report"]["summary"]  # nothing cached from a cancelled run
        assert await hover_text(client, uri, position_of(SPIN_DOC, "spin")) is not None


async def test_versions_run_in_the_module_the_editor_holds(workspace: Path) -> None:
    """The unsaved text of a package module: its imports, its relative import, a helper and
    the class of a method are there (the file on disk would not even load)."""
    pkg = workspace / "timing"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "units.py").write_text(UNITS_SOURCE)
    path = pkg / "app.py"
    path.write_text("raise RuntimeError('the saved file is not what the editor holds')\n")
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, path, DURATION_APP)
        for name, versions in DURATION_VERSIONS.items():
            await command(client, "codequorum.addVersions", uri, name, versions)
            started = await command(client, "codequorum.runDynamic", uri, name)
            token = started["token"]

            def ended(token: str = token) -> bool:
                return any(getattr(v, "kind", "") == "end"
                           for v in client.progress_reports[token])

            await wait_for(ended, timeout=120)
            assert progress_values(client, token)[-1].message == "done"
            report = (await command(client, "codequorum.analyze", uri, name))["report"]
            dynamic = report["dynamic"]
            rates = [c["pass_rate"] for c in dynamic["candidates"]]
            assert rates == [1.0] * (len(versions) + 1), name  # and the current code
            assert dynamic["summary"]["oer"] == 1.0
            assert [v["code"] for v in report["verdicts"]
                    if v["code"] in ("divergent-outputs", "not-run-in-module")] == []
            where = position_of(DURATION_APP, f"def {name.split('.')[-1]}(", 4)
            text = await hover_text(client, uri, where)
            assert text is not None and "NameError" not in text, name
        labels = [i["label"] for i in dynamic["inputs"]]
        assert labels[0] == "Timer(5).add('1m')"


async def test_a_module_that_does_not_load_gets_a_note_not_a_verdict(workspace: Path) -> None:
    path = workspace / "needs_numpy.py"
    text = "import numpy as np\n" + standalone()
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, path, text)
        await command(client, "codequorum.addVersions", uri, "parse_duration",
                      DURATION_VERSIONS["parse_duration"])
        started = await command(client, "codequorum.runDynamic", uri, "parse_duration")
        token = started["token"]
        await wait_for(lambda: any(getattr(v, "kind", "") == "end"
                                   for v in client.progress_reports[token]), timeout=120)
        assert progress_values(client, token)[-1].message == "not run in its module"
        diags = await wait_for(lambda: [d for d in client.diagnostics.get(uri, ())
                                        if d.code == "not-run-in-module"])
        assert diags[0].severity == types.DiagnosticSeverity.Information
        assert diags[0].message.startswith(
            "not run: the module `needs_numpy` did not load in the sandbox: its top level "
            "raised ModuleNotFoundError: No module named 'numpy'")
        assert "the versions use UNITS, insort, re from it" in diags[0].message
        codes = {d.code for d in client.diagnostics.get(uri, ())}
        assert "divergent-outputs" not in codes
        # its module did not load: an example or type hints would not help; it says why
        hover = await hover_text(client, uri, position_of(text, "def parse_duration(", 4))
        assert hover is not None and md_text(NO_INPUTS) not in hover
        assert md_text(DID_NOT_RUN.format(why="not run in its module")) in hover


TOTAL_DOC = "def total(xs):\n    return xs.total()\n"
TOTALS = [
    "def total(xs):\n    return xs.sum()\n",
    "def total(xs):\n    return xs.total() + 0\n",
]


async def test_a_run_without_inputs_says_why_and_shows_no_stable_behaviour(workspace: Path) -> None:
    # no doctest, no type hints, nothing in how the versions use ``xs`` says its type, no
    # inputs from the model: no version can be called
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "total.py", TOTAL_DOC)
        await command(client, "codequorum.addVersions", uri, "total", TOTALS)
        pos = position_of(TOTAL_DOC, "total")
        before = await hover_text(client, uri, pos)
        started = await command(client, "codequorum.runDynamic", uri, "total")
        token = started["token"]

        def ended() -> bool:
            return any(getattr(v, "kind", "") == "end" for v in client.progress_reports[token])

        await wait_for(ended, timeout=120)
        assert progress_values(client, token)[-1].message == "nothing ran: no inputs"
        said = await wait_for(lambda: [m for m in client.messages if "total" in m.message])
        assert [(m.type, m.message) for m in said] == [(
            types.MessageType.Warning,
            "codequorum: nothing ran for 'total': no inputs: add a doctest, type hints, or "
            "turn on inputs from the model (codequorum.dynamic.proposeInputs)",
        )]
        report = (await command(client, "codequorum.analyze", uri, "total"))["report"]
        # the run is kept as one that ran nothing: said first, never "stable"
        assert report["dynamic"]["inputs"] == []
        first = report["verdicts"][0]
        assert (first["code"], first["message"]) == (
            "not-run", f"shape stable; behaviour not run: no inputs ({NO_INPUTS_HINT})")
        assert "behaviour not run: no inputs" in report["notes"]
        after = await hover_text(client, uri, pos)
        assert before is not None and md_text(NOT_RUN) in before and "✓ `stable`" in before
        assert after is not None and md_text(NO_INPUTS) in after
        assert "`not-run` — shape stable; behaviour not run: no inputs" in after
        assert "✓" not in after
        lenses = await code_lenses(client, uri)
        titles = [lens.command.title for lens in lenses if lens.command]
        assert any(t.endswith("· shape stable 1.00 · not run: no inputs")
                   or ("shape stable" in t and t.endswith("not run: no inputs"))
                   for t in titles), titles


async def test_a_run_no_sandbox_gives_says_so_as_a_warning(workspace: Path) -> None:
    """A machine that refuses every namespace and the strict sandbox asked for: the run
    ends "not run" with the probe's reason and the way to see what the machine gives,
    a warning and no "failed" error (nor a traceback in the log)."""
    import sys

    from tests.support import without_namespaces

    log_file = workspace.parent / "server.log"
    async with lsp_session(workspace, init_options=NO_AUTORUN, log_file=log_file,
                           configuration={"codequorum": {"dynamic": {"sandbox": "strict"}}},
                           launcher=[sys.executable, without_namespaces.__file__, "--all"]
                           ) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        started = await command(client, "codequorum.runDynamic", uri, position_of(DOC, "clamp"))
        token = started["token"]
        said = await wait_for(lambda: [m for m in client.messages if "clamp" in m.message
                                       and m.type != types.MessageType.Info], timeout=60)
        assert progress_values(client, token)[-1].message == "not run: no sandbox here"
    [message] = said
    assert message.type == types.MessageType.Warning, message.message
    assert message.message.startswith("codequorum: 'clamp' not run: ")
    assert message.message.count("codequorum doctor") == 1
    assert "Traceback" not in log_file.read_text()


async def test_a_real_packages_function_is_graded_by_its_docstring_in_its_module(
        workspace: Path) -> None:
    """more-itertools' ``one`` (a package, a relative import), its current code one of the
    versions: the hover keeps the current code because it passes the four examples, and
    names the input where the wrong version parts."""
    from tests.support import real_package

    package = workspace / "mit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "recipes.py").write_text(real_package.RECIPES)
    path = package / "more.py"
    path.write_text(real_package.MORE)
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, path, real_package.MORE)
        await command(client, "codequorum.addVersions", uri, "one", real_package.VERSIONS)
        pos = position_of(real_package.MORE, "def one", 4)
        started = await command(client, "codequorum.runDynamic", uri, pos)
        await wait_for(lambda: any("dynamic analysis of 'one' done" in m.message
                                   for m in client.messages), timeout=120)
        assert started["started"] is True
        text = await hover_text(client, uri, pos)
    assert text is not None
    assert "keep version 1 (the current code): passes all 4 docstring examples" in text
    assert "version 3 returns 'too'" in text
