"""What LSP clients other than VS Code get, end to end: hovers in the format the client asks
for; in a client without code lenses, every command as a code action, whose outcome the
server shows (a message, or a document in the user's cache folder), asking before it deletes
or runs anything, the safe answer first."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path
from tests.support.chat_server import ChatServer, code_answer

from .conftest import cache_home, capabilities, lsp_session, questions
from .helpers import command, humaneval_task, open_document, position_of, wait_for

CURRENT_BODY = (
    "    ordered = sorted(numbers)\n"
    "    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))\n"
)
TAIL = "\n\ndef untouched(x):\n    return x + 1\n"
NAME = "has_close_elements"
#: A client that draws no code lenses (eglot, Helix, Neovim 0.7), with and without
#: window/showDocument.
NO_LENSES = capabilities(lenses=False)
NO_LENSES_DOCUMENTS = capabilities(lenses=False, show_document=True)


def _document(shared_dir: Path) -> tuple[str, list[str]]:
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    return task["prompt"] + CURRENT_BODY, [task["prompt"] + s for s in task["samples"][:5]]


async def _hover(client: object, uri: str, pos: types.Position) -> types.MarkupContent:
    """The hover once the versions are compared."""
    from codequorum.lsp.hover import COMPUTING

    params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    for _ in range(600):
        result = await client.text_document_hover_async(params)  # type: ignore[attr-defined]
        assert isinstance(result, types.Hover)
        assert isinstance(result.contents, types.MarkupContent)
        if COMPUTING not in result.contents.value:
            return result.contents
        await asyncio.sleep(0.1)
    raise AssertionError("the hover still says it is comparing the versions")


async def test_a_client_that_asks_for_plain_text_gets_a_hover_without_markup(
    workspace: Path, shared_dir: Path
) -> None:
    doc, versions = _document(shared_dir)
    caps = capabilities(hover_formats=(types.MarkupKind.PlainText,))
    async with lsp_session(workspace, client_capabilities=caps) as client:
        uri = open_document(client, workspace / "close.py", doc)
        await command(client, "codequorum.addVersions", uri, "has_close_elements", versions)
        hover = await _hover(client, uri, position_of(doc, "has_close_elements"))
    assert hover.kind == types.MarkupKind.PlainText
    text = hover.value
    assert text.startswith("codequorum · has_close_elements · 5 versions + your code · ")
    for markup in ("**", "`", "```", "\\-", "\\*", "\\_"):
        assert markup not in text, (markup, text)
    assert re.search(r"^⚠️ outlier-current — ", text, re.M), text
    assert re.search(r"^- consensus: v[1-5] \(its cluster holds", text, re.M), text
    # the diff: its lines indented under the line that names the version
    _, _, diff = text.partition("Most different: ")
    lines = diff.split("\n")
    assert re.fullmatch(r"v[1-5]", lines[0]), lines[0]
    assert lines[1].startswith("    --- current") and lines[2].startswith("    +++ v")
    assert all(line.startswith("    ") for line in lines[1:] if line), lines


async def test_a_client_that_names_no_format_gets_markdown(
    workspace: Path, shared_dir: Path
) -> None:
    doc, versions = _document(shared_dir)
    caps = capabilities(hover_formats=())
    async with lsp_session(workspace, client_capabilities=caps) as client:
        uri = open_document(client, workspace / "close.py", doc)
        await command(client, "codequorum.addVersions", uri, "has_close_elements", versions)
        hover = await _hover(client, uri, position_of(doc, "has_close_elements"))
    assert hover.kind == types.MarkupKind.Markdown
    assert hover.value.startswith(
        "**codequorum** · `has_close_elements` · 5 versions + your code · ")
    assert "```diff\n" in hover.value


async def _with_versions(client: LanguageClient, workspace: Path, shared_dir: Path) -> tuple[
    str, str
]:
    """The HumanEval/0 document with five stored versions of its function; (uri, text)."""
    doc, versions = _document(shared_dir)
    doc += TAIL
    uri = open_document(client, workspace / "close.py", doc)
    await command(client, "codequorum.addVersions", uri, NAME, versions)
    return uri, doc


async def _actions(
    client: LanguageClient, uri: str, pos: types.Position, only: list[str] | None = None,
    edits: bool = True,
) -> list[types.CodeAction]:
    """The code actions at ``pos``, once the edits are offered too (``edits``): the command
    actions come at once, the edits when the comparison is done."""
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=pos, end=pos),
        context=types.CodeActionContext(diagnostics=[], only=only),
    )
    for _ in range(600):
        result = await client.text_document_code_action_async(params)
        actions = [a for a in result or [] if isinstance(a, types.CodeAction)]
        if not edits or any(a.edit is not None for a in actions):
            return actions
        await asyncio.sleep(0.1)
    raise AssertionError("no edit actions")


def _commands(actions: list[types.CodeAction]) -> list[tuple[str, str]]:
    return [(a.title, a.command.command) for a in actions if a.command is not None]


async def _run(client: LanguageClient, action: types.CodeAction) -> Any:
    """Run an action's command as a client does."""
    assert action.command is not None
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command=action.command.command, arguments=action.command.arguments
            )
        ),
        timeout=60,
    )


def _titled(actions: list[types.CodeAction], start: str) -> types.CodeAction:
    [action] = [a for a in actions if a.title.startswith(start)]
    return action


async def test_a_client_without_lenses_gets_every_command_as_a_code_action(
    workspace: Path, shared_dir: Path
) -> None:
    async with lsp_session(workspace, client_capabilities=NO_LENSES) as client:
        uri, doc = await _with_versions(client, workspace, shared_dir)
        actions = await _actions(client, uri, position_of(doc, "ordered = sorted"))
        # the edits first, then the commands; no Show Report: this client opens no documents
        kinds = [a.kind for a in actions]
        first_command = kinds.index("source.codequorum")
        assert all(k != "source.codequorum" for k in kinds[:first_command])
        assert all(k == "source.codequorum" for k in kinds[first_command:])
        assert _commands(actions[first_command:]) == [
            (f"Compare the versions of `{NAME}`", "codequorum.compare"),
            (f"Run the versions of `{NAME}` in the sandbox", "codequorum.runDynamic"),
            (f"Regenerate `{NAME}`: ask for more versions", "codequorum.regenerate"),
            (f"Clear the 5 stored versions of `{NAME}`", "codequorum.deleteVersions"),
        ]
        for action in actions[first_command:]:
            assert action.edit is None
            assert action.command is not None and list(action.command.arguments or []) == [
                {"uri": uri, "qualifiedName": NAME, "interactive": True}
            ]
        # a function without versions: Regenerate only; a client asking for quick fixes
        # only gets no commands
        bare = await _actions(client, uri, position_of(doc, "untouched"), edits=False)
        assert _commands(bare) == [("Regenerate `untouched`: ask for versions",
                                    "codequorum.regenerate")]
        fixes = await _actions(client, uri, position_of(doc, "ordered = sorted"),
                               only=[types.CodeActionKind.QuickFix], edits=False)
        assert all(a.kind == types.CodeActionKind.QuickFix for a in fixes)


async def test_where_lenses_show_they_are_the_way_in_to_what_they_run(
    workspace: Path, shared_dir: Path
) -> None:
    async with lsp_session(workspace) as client:  # draws lenses, as VS Code does
        uri, doc = await _with_versions(client, workspace, shared_dir)
        actions = await _actions(client, uri, position_of(doc, NAME))
        # Compare, the report and Regenerate are lenses there; Run and Clear are not
        assert [cmd for _, cmd in _commands(actions)] == [
            "codequorum.runDynamic", "codequorum.deleteVersions"]
        bare = await _actions(client, uri, position_of(doc, "untouched"), edits=False)
        assert _commands(bare) == [("Regenerate `untouched`: ask for versions",
                                    "codequorum.regenerate")]
    always = {"codeAction": {"commands": "always"}}
    async with lsp_session(workspace, init_options=always) as client:
        uri, doc = await _with_versions(client, workspace, shared_dir)
        actions = await _actions(client, uri, position_of(doc, NAME))
        assert [cmd for _, cmd in _commands(actions)] == [
            "codequorum.compare", "codequorum.runDynamic", "codequorum.regenerate",
            "codequorum.deleteVersions"]
    never = {"codeAction": {"commands": "never"}}
    async with lsp_session(workspace, init_options=never, client_capabilities=NO_LENSES) as client:
        uri, doc = await _with_versions(client, workspace, shared_dir)
        actions = await _actions(client, uri, position_of(doc, NAME))
        assert [a for a in actions if a.kind == "source.codequorum"] == []


async def test_compare_and_the_report_open_as_documents_outside_the_workspace(
    workspace: Path, shared_dir: Path
) -> None:
    async with lsp_session(workspace, client_capabilities=NO_LENSES_DOCUMENTS) as client:
        uri, doc = await _with_versions(client, workspace, shared_dir)
        actions = await _actions(client, uri, position_of(doc, NAME))
        compared = await _run(client, _titled(actions, "Compare"))
        assert compared["qualifiedName"] == NAME and len(compared["codes"]) == 6
        await _run(client, _titled(actions, "Show the report"))
        first, second = client.shown_documents
    views = cache_home(workspace) / "codequorum" / "views"
    paths = [Path(types_uri_path(d.uri)) for d in (first, second)]
    assert [p.parent for p in paths] == [views, views]
    assert [p.name.split("-")[:2] for p in paths] == [[NAME, "compare"], [NAME, "report"]]
    assert first.take_focus is True
    comparison, report = (p.read_text(encoding="utf-8") for p in paths)
    assert comparison.startswith(f"codequorum · {NAME} · 5 versions + your code · ")
    assert comparison.count(" against current\n    --- current\n") == 5  # every version
    assert "`" not in comparison and "```" not in comparison
    assert "\n\nThe versions\n\n" in report and report.count("    def has_close_elements") == 6
    # nothing was written into the workspace but the store
    assert sorted(p.name for p in workspace.iterdir()) == [".codequorum", "close.py"]


def types_uri_path(uri: str) -> str:
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    assert parsed.scheme == "file"
    return unquote(parsed.path)


async def test_compare_is_a_message_where_the_client_opens_no_documents(
    workspace: Path, shared_dir: Path
) -> None:
    async with lsp_session(workspace, client_capabilities=NO_LENSES) as client:
        uri, doc = await _with_versions(client, workspace, shared_dir)
        actions = await _actions(client, uri, position_of(doc, NAME))
        await _run(client, _titled(actions, "Compare"))
        [message] = await wait_for(
            lambda: [m.message for m in client.messages if "Most different: " in m.message]
        )
        assert client.shown_documents == []
    lines = message.split("\n")
    assert lines[0].startswith(f"codequorum · {NAME} · 5 versions + your code · ")
    assert re.fullmatch(r"Most different: v[1-5] against current", lines[2]), lines
    assert lines[3] == "    --- current"
    assert "`" not in message


async def test_clear_asks_first_with_the_safe_answer_first(
    workspace: Path, shared_dir: Path
) -> None:
    async with lsp_session(workspace, client_capabilities=NO_LENSES) as client:
        uri, doc = await _with_versions(client, workspace, shared_dir)
        actions = await _actions(client, uri, position_of(doc, NAME))
        clear = _titled(actions, "Clear")
        answered = await _run(client, clear)  # answered at once; the question comes after
        assert answered == {"uri": uri, "qualifiedName": NAME, "removed": 0}
        await wait_for(lambda: questions(client).asked)
        [question] = questions(client).asked
        assert question.message == (
            f"codequorum: delete the 5 stored versions of '{NAME}'? They cannot be brought back."
        )
        assert [a.title for a in question.actions or []] == ["Keep them", "Delete them"]
        await asyncio.sleep(0.5)  # dismissed: nothing is deleted
        assert (await command(client, "codequorum.analyze", uri, NAME))["stored"] == 5

        questions(client).answer = "Delete them"
        await _run(client, clear)
        deleted = f"codequorum: deleted 5 stored versions of '{NAME}'"
        await wait_for(lambda: [m for m in client.messages if m.message == deleted])
        assert (await command(client, "codequorum.analyze", uri, NAME))["stored"] == 0


async def test_running_from_an_action_asks_about_a_store_it_did_not_make(
    workspace: Path, shared_dir: Path
) -> None:
    doc, versions = _document(shared_dir)
    with VersionStore.open(default_store_path(workspace)) as store:  # came with the repository
        store.add("close.py", "python", NAME, [Version(code=s, origin="relayed") for s in versions])
    async with lsp_session(workspace, client_capabilities=NO_LENSES) as client:
        uri = open_document(client, workspace / "close.py", doc)
        actions = await _actions(client, uri, position_of(doc, NAME))
        started = await _run(client, _titled(actions, "Run the versions"))
        assert started["started"] is True and started["token"] is None  # answered at once
        await wait_for(lambda: questions(client).asked)
        [question] = questions(client).asked
        assert [a.title for a in question.actions or []] == ["Not now", "Run in the sandbox"]
        warning = await wait_for(lambda: [m for m in client.messages
                                          if "were not run" in m.message])
        assert warning[0].type == types.MessageType.Warning


async def test_regenerate_from_an_action_answers_at_once_and_says_how_it_ended(
    workspace: Path, shared_dir: Path
) -> None:
    doc, versions = _document(shared_dir)
    version = versions[0].split('"""\n', 2)[-1]
    with ChatServer(default=code_answer(doc.split("    ordered")[0] + version)) as chat:
        options = {"provider": {"baseUrl": chat.base_url, "apiKeyEnv": "", "versions": 2}}
        async with lsp_session(
            workspace, init_options=options, client_capabilities=NO_LENSES
        ) as client:
            uri = open_document(client, workspace / "close.py", doc)
            actions = await _actions(client, uri, position_of(doc, NAME), edits=False)
            result = await _run(client, _titled(actions, "Regenerate"))
            assert result["status"] == "started" and result["requested"] == 2
            said = await wait_for(lambda: [m.message for m in client.messages
                                           if m.message.startswith(f"codequorum: '{NAME}': ")])
            assert "2 of 2 versions accepted" in said[0], said
            assert len(chat.chat_requests) == 2
            assert (await command(client, "codequorum.analyze", uri, NAME))["stored"] == 2


async def test_a_command_a_person_chose_says_why_it_cannot_run(
    workspace: Path, shared_dir: Path
) -> None:
    async with lsp_session(workspace, client_capabilities=NO_LENSES) as client:
        uri, _ = await _with_versions(client, workspace, shared_dir)
        args = {"uri": uri, "qualifiedName": "untouched", "interactive": True}
        try:
            await command(client, "codequorum.compare", args)
        except Exception as exc:
            assert "no versions of 'untouched' yet" in str(exc)
        else:
            raise AssertionError("compare of a function without versions answered")
        said = await wait_for(lambda: [m for m in client.messages if "untouched" in m.message])
        assert said[0].type == types.MessageType.Error
        assert said[0].message == (
            "codequorum: codequorum.compare: no versions of 'untouched' yet")


async def test_regenerate_where_the_editor_is_to_write_the_versions_says_so(
    workspace: Path, shared_dir: Path
) -> None:
    options = {"provider": {"kind": "client"}}
    async with lsp_session(
        workspace, init_options=options, client_capabilities=NO_LENSES
    ) as client:
        doc, _ = _document(shared_dir)
        uri = open_document(client, workspace / "close.py", doc)
        actions = await _actions(client, uri, position_of(doc, NAME), edits=False)
        result = await _run(client, _titled(actions, "Regenerate"))
        assert result["status"] == "relay"  # the prompt, for an editor that relays it
        said = await wait_for(lambda: [m for m in client.messages
                                       if "provider.kind is 'client'" in m.message])
        assert said[0].type == types.MessageType.Warning
