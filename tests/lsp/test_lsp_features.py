"""End to end over stdio: samples in, diagnostics, hover, lenses, actions, commands out."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from codequorum.judge.risk import NOT_RUN
from codequorum.lsp.markdown import md_text
from codequorum.render.findings import percentile_words

from .conftest import lsp_session
from .helpers import (
    NO_AUTORUN,
    actions_at,
    apply_edits,
    code_actions,
    code_lenses,
    command,
    hover_text,
    humaneval_task,
    open_document,
    position_of,
    published,
    replace_document,
    wait_for,
)

CURRENT_BODY = (
    "    ordered = sorted(numbers)\n"
    "    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))\n"
)
TAIL = "\n\ndef untouched(x):\n    return x + 1\n"


def _document(shared_dir: Path) -> tuple[str, list[str]]:
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    doc = task["prompt"] + CURRENT_BODY + TAIL
    versions = [task["prompt"] + s for s in task["samples"][:5]]
    return doc, versions


def _name_range(doc: str, name: str) -> types.Range:
    start = position_of(doc, f"def {name}", 4)
    return types.Range(
        start=start, end=types.Position(line=start.line, character=start.character + len(name))
    )


async def test_samples_diagnostics_hover_lenses_and_actions(
    workspace: Path, shared_dir: Path
) -> None:
    doc, versions = _document(shared_dir)
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "close.py", doc)
        name_pos = position_of(doc, "has_close_elements")

        # relayed samples: real CodeGen completions (prompt + body), by qualified name
        added = await command(
            client,
            "codequorum.addVersions",
            {
                "uri": uri,
                "qualifiedName": "has_close_elements",
                "samples": [
                    {"code": c, "provider": "codegen", "model": "CodeGen-16B-mono"}
                    for c in versions
                ],
            },
        )
        assert added == {
            "uri": uri,
            "qualifiedName": "has_close_elements",
            "added": 5,
            "total": 5,
            "path": None,
        }
        assert (workspace / ".codequorum" / "samples.sqlite3").is_file()

        diags = await wait_for(lambda: client.diagnostics.get(uri))
        assert [d.code for d in diags] == ["outlier-current"]
        [diag] = diags
        assert diag.range == _name_range(doc, "has_close_elements")
        assert diag.source == "codequorum"
        assert diag.severity == types.DiagnosticSeverity.Warning

        report = await command(client, "codequorum.analyze", uri, name_pos)
        assert report["qualifiedName"] == "has_close_elements"
        assert report["stored"] == 5
        assert report["compared"] == "5 versions + your code"  # as the lens and hover say
        assert report["currentIndex"] == 5
        assert [v["origin"] for v in report["versions"]] == ["relayed"] * 5 + ["current"]
        verdict = next(v for v in report["report"]["verdicts"] if v["code"] == "outlier-current")
        assert f"JSD {verdict['figure']:.2f} to the others" in diag.message
        assert verdict["figure"] < 0.85
        consensus = report["consensus"]
        assert consensus is not None and consensus < 5
        assert diag.related_information
        assert diag.related_information[0].location.uri == uri
        assert f"consensus is v{consensus + 1}" in diag.related_information[0].message

        # the stored versions are the bare function (the import line is not part of it)
        shown = await command(client, "codequorum.showVersion", uri, "has_close_elements", 1)
        assert shown["code"].startswith("def has_close_elements(")
        assert "from typing" not in shown["code"]
        assert shown["code"].endswith("    return False\n")

        text = await hover_text(client, uri, name_pos)
        assert text is not None
        first = text.split("\n")[0]
        clusters = report["report"]["clusters"]
        assert len(clusters) >= 2
        assert first == (
            f"**codequorum** · `has_close_elements` · 5 versions + your code · {len(clusters)} "
            "clusters"
        )
        assert "`outlier-current`" in text
        jsd = report["report"]["summary"]["jsd_struct"]["ordered"]
        assert f"JSD {jsd:.2f}" in text
        assert f"- consensus: **v{consensus + 1}**" in text
        where = next(k for k, c in enumerate(clusters) if 5 in c)
        assert where > 0
        expected = f"far from the consensus (cluster {where + 1} of {len(clusters)})"
        assert f"- current code: {expected}" in text
        assert "```diff\n--- current\n+++ v" in text
        rep = report["report"]
        assert f"- keep version {consensus + 1}: the most typical in shape" in text
        # nothing ran: no probability from shape alone, but what is missing, in words
        pct = rep["stability_percentile"]
        assert rep["risk"] is None and rep["risk_level"] is None and 0 <= pct <= 100
        assert rep["trust"] == NOT_RUN
        assert f"- {md_text(NOT_RUN)}\n" in text
        assert "that it is wrong" not in text and percentile_words(pct) not in text
        assert report["evidence"] is None  # nothing ran
        assert await hover_text(client, uri, position_of(doc, "untouched")) is None

        lenses = await code_lenses(client, uri)
        assert lenses is not None
        titles = [lens.command.title for lens in lenses if lens.command]
        assert titles == [f"5 versions + your code · shape unstable {jsd:.2f} · not run yet",
                          "Compare", "Regenerate"]
        assert all(lens.range.start.line == name_pos.line for lens in lenses)

        actions = await code_actions(
            client,
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diag.range,
                context=types.CodeActionContext(diagnostics=[diag]),
            ),
        )
        assert actions is not None
        titles = [a.title for a in actions]
        # without a run the version to keep is the most typical in shape: the consensus,
        # offered once, as the recommended version
        assert report["report"]["recommended"] == consensus
        assert report["report"]["recommended_by"] == "structure"
        assert titles[0] == f"Keep the recommended version (version {consensus + 1})"
        assert titles[1:] == [
            *(f"Replace `has_close_elements` with version {k}" for k in range(1, 6)),
            # the commands no lens runs (Compare, the report and Regenerate are lenses)
            "Run the versions of `has_close_elements` in the sandbox",
            "Clear the 5 stored versions of `has_close_elements`",
        ]
        assert isinstance(actions[0], types.CodeAction)
        assert actions[0].kind == types.CodeActionKind.QuickFix
        edit = actions[0].edit
        assert edit is not None and edit.changes is not None and list(edit.changes) == [uri]
        new_doc = apply_edits(doc, list(edit.changes[uri]))
        chosen = await command(
            client, "codequorum.showVersion", uri, "has_close_elements", consensus + 1
        )
        prefix = doc[: doc.index("def has_close_elements")]
        assert new_doc == prefix + chosen["code"].rstrip("\n") + "\n" + TAIL
        assert (workspace / "close.py").read_text() == doc  # the server never edits on its own

        # take the consensus version: the current code is now in the consensus
        replace_document(client, uri, new_doc, version=2)
        await wait_for(lambda: published(client, uri) == [])
        report2 = await command(client, "codequorum.analyze", uri, "has_close_elements")
        assert report2["currentIndex"] == consensus
        assert [v["code"] for v in report2["report"]["verdicts"]] == ["stable"]


async def test_pull_diagnostics_instead_of_push(workspace: Path, shared_dir: Path) -> None:
    doc, versions = _document(shared_dir)
    async with lsp_session(workspace, pull=True) as client:
        uri = open_document(client, workspace / "close.py", doc)
        await command(client, "codequorum.addVersions", uri, "has_close_elements", versions)
        assert client.diagnostic_refresh_count >= 1
        params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        full = await client.text_document_diagnostic_async(params)
        assert full.kind == "full"
        assert isinstance(full, types.RelatedFullDocumentDiagnosticReport)
        assert [d.code for d in full.items] == ["outlier-current"]
        assert full.items[0].range == _name_range(doc, "has_close_elements")
        again = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                previous_result_id=full.result_id,
            )
        )
        assert again.kind == "unchanged"
        assert again.result_id == full.result_id
        assert uri not in client.diagnostics  # nothing was pushed


async def test_import_clear_compare_and_rename(workspace: Path, shared_dir: Path) -> None:
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    doc, _ = _document(shared_dir)
    sample_file = workspace / "samples.jsonl"
    import json

    sample_file.write_text(
        json.dumps(
            {"task_id": task["task_id"], "prompt": task["prompt"], "samples": task["samples"][:4]}
        )
        + "\n"
    )
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "close.py", doc)
        pos = position_of(doc, "has_close_elements")
        imported = await command(
            client,
            "codequorum.importVersionFile",
            {"uri": uri, "position": {"line": pos.line, "character": 9}, "path": "samples.jsonl"},
        )
        assert imported["added"] == 4 and imported["total"] == 4
        assert imported["path"] == str(sample_file)

        compared = await command(client, "codequorum.compare", uri, "has_close_elements")
        assert [v["label"] for v in compared["versions"]] == ["v1", "v2", "v3", "v4", "current"]
        assert [v["origin"] for v in compared["versions"]] == ["imported"] * 4 + ["current"]
        assert compared["diff"].startswith("--- current\n+++ v")
        assert len(compared["codes"]) == 5

        before = await wait_for(lambda: published(client, uri))
        codes = [d.code for d in before]
        assert "outlier-current" in codes
        assert all(d.range == _name_range(doc, "has_close_elements") for d in before)

        # rename the function and save: its versions follow the new name
        renamed = doc.replace("has_close_elements", "any_close")
        replace_document(client, uri, renamed, version=2)
        new_range = _name_range(renamed, "any_close")
        after = await wait_for(
            lambda: (d := published(client, uri)) and d[0].range == new_range and d
        )
        assert [d.code for d in after] == codes
        moved = await command(client, "codequorum.analyze", uri, "any_close")
        assert moved["stored"] == 4

        cleared = await command(client, "codequorum.deleteVersions", uri, "any_close")
        assert cleared == {"uri": uri, "qualifiedName": "any_close", "removed": 4}
        await wait_for(lambda: published(client, uri) == [])
        gone = await command(client, "codequorum.analyze", uri, "any_close")
        assert gone["stored"] == 0 and gone["report"] is None

        # files of plain code, one version each (imports and calls around it are dropped);
        # a folder is not read (the command line's `sample --from DIR` imports one)
        folder = workspace / "versions"
        folder.mkdir()
        funcs = [
            "def any_close(numbers, threshold):\n    return False\n",
            "def any_close(numbers, threshold):\n    s = sorted(numbers)\n"
            "    return any(b - a < threshold for a, b in zip(s, s[1:]))\n",
        ]
        for k, func in enumerate(funcs):
            (folder / f"v{k}.py").write_text(
                f"import math\n\n\n{func}\n\nprint(any_close([], 1))\n"
            )
        for k in range(2):
            from_file = await command(client, "codequorum.importVersionFile", uri, "any_close",
                                      f"versions/v{k}.py")
        assert from_file["total"] == 2
        try:
            await command(client, "codequorum.importVersionFile", uri, "any_close", "versions")
        except JsonRpcException as exc:
            assert exc.message.endswith("versions is a folder, not a regular file")
        else:
            raise AssertionError("a folder was imported")
        shown = await command(client, "codequorum.showVersion", uri, "any_close", 2)
        assert (shown["origin"], shown["code"]) == ("imported", funcs[1])


async def test_methods_are_replaced_with_their_indentation(workspace: Path) -> None:
    doc = (
        "class Stack:\n"
        "    def __init__(self):\n"
        "        self.items = []\n"
        "\n"
        "    def total(self):\n"
        "        return sum(self.items)\n"
    )
    versions = [
        "def total(self):\n    return sum(self.items)\n",
        "def total(self):\n    s = 0\n    for x in self.items:\n        s += x\n    return s\n",
        "```python\nclass Stack:\n    def total(self):\n        acc = 0\n"
        "        for item in self.items:\n            acc = acc + item\n        return acc\n```",
    ]
    async with lsp_session(workspace, init_options={"codeLens": {"showForAll": True}}) as client:
        uri = open_document(client, workspace / "stack.py", doc)
        added = await command(client, "codequorum.addVersions", uri, "Stack.total", versions)
        assert added["total"] == 3
        shown = await command(client, "codequorum.showVersion", uri, "Stack.total", 3)
        assert shown["code"].startswith("def total(self):\n    acc = 0\n")
        pos = position_of(doc, "total")
        actions = await actions_at(client, uri, pos)
        assert actions is not None
        pick = next(a for a in actions if a.title == "Replace `total` with version 2")
        assert isinstance(pick, types.CodeAction)
        assert pick.kind == types.CodeActionKind.RefactorRewrite
        assert pick.edit is not None and pick.edit.changes is not None
        result = apply_edits(doc, list(pick.edit.changes[uri]))
        assert result == (
            "class Stack:\n"
            "    def __init__(self):\n"
            "        self.items = []\n"
            "\n"
            "    def total(self):\n"
            "        s = 0\n"
            "        for x in self.items:\n"
            "            s += x\n"
            "        return s\n"
        )
        lenses = await code_lenses(client, uri)
        assert lenses is not None
        by_line = sorted(
            (lens.range.start.line, lens.command.title) for lens in lenses if lens.command
        )
        assert by_line[0] == (1, "Regenerate")  # __init__ has no versions: Regenerate only
        titles_total = [t for line, t in by_line if line == 4]
        assert len(titles_total) == 3
        summary = next(t for t in titles_total if t.startswith("3 versions"))
        assert sorted(titles_total) == sorted([summary, "Compare", "Regenerate"])

        # rename the class and save: the method's versions follow it
        renamed = doc.replace("class Stack:", "class Pile:")
        replace_document(client, uri, renamed, version=2)
        await wait_for(lambda: published(client, uri) is not None)

        async def moved() -> bool:
            report = await command(client, "codequorum.analyze", uri, "Pile.total")
            return bool(report["stored"] == 3)

        for _ in range(100):
            if await moved():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the versions did not follow the class rename")


async def test_show_version_gives_the_edit_the_code_actions_make(workspace: Path) -> None:
    """The editors' own "Replace with version" takes ``showVersion``'s ``replacement`` and
    ``range``: the user's docstring kept, as the code action keeps it, unless the
    version's own is asked for."""
    head = (
        "class Box:\n"
        "    # the sum of the items\n"
        "    def total(self):\n"
        '        """All the items, added.\n'
        "\n"
        "        >>> Box().total()\n"
        "        0\n"
        '        """\n'
    )
    doc = head + "        return sum(self.items)\n"
    version = 'def total(self):\n    """Sum."""\n    s = 0\n    for x in self.items:\n' \
        '        s += x\n    return s\n'
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "box.py", doc)
        await command(client, "codequorum.addVersions", uri, "Box.total", [version])
        shown = await command(client, "codequorum.showVersion",
                              {"uri": uri, "qualifiedName": "Box.total", "index": 0})
        actions = await actions_at(client, uri, position_of(doc, "total"))
        assert actions is not None
        pick = next(a for a in actions if a.title == "Replace `total` with version 1")
        assert isinstance(pick, types.CodeAction) and pick.edit and pick.edit.changes
        [edit] = pick.edit.changes[uri]
        assert shown["replacement"] == edit.new_text
        assert shown["range"] == {"start": {"line": edit.range.start.line,
                                            "character": edit.range.start.character},
                                  "end": {"line": edit.range.end.line,
                                          "character": edit.range.end.character}}
        assert apply_edits(doc, [edit]) == head + (
            "        s = 0\n"
            "        for x in self.items:\n"
            "            s += x\n"
            "        return s\n"
        )
        own = await command(client, "codequorum.showVersion",
                            {"uri": uri, "qualifiedName": "Box.total", "index": 0,
                             "ownDocstring": True})
        assert own["replacement"].startswith('def total(self):\n        """Sum."""\n')
