"""The watch over the real server: a function that arrives in one edit is noticed from
``didChange`` (incremental changes, as editors send them), offered, sampled from a real
HTTP endpoint on 127.0.0.1, and stored with the arrived text as version ``assistant``;
typing, undo, a stored version put in place, an untrusted workspace, a spent budget and
an edit of the function never ask."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types
from pytest_lsp import LanguageClient

from codequorum.lsp.editor_watch import ALWAYS, CHECK, DEBOUNCE, EDIT_REASON, NEVER, NOT_NOW, RELAY
from tests.support.chat_server import (
    Answer,
    ChatServer,
    RecordedRequest,
    code_answer,
    server_error,
    slow,
)

from .conftest import capabilities, config_home, lsp_session, questions
from .helpers import command, open_document, wait_for

HEAD = '"""Durations."""\nimport re\n\n\n'
FUNCTION = '''def parse_duration(text: str) -> int:
    """Seconds in a duration such as '1h30m'.

    >>> parse_duration('1h30m')
    5400
    """
    total = 0
    for amount, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(amount) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total
'''
OTHER = FUNCTION.replace("total += int(amount) *", "total = total + int(amount) *")


def _options(base_url: str, watch: str = "ask", **extra: Any) -> dict[str, Any]:
    return {
        "provider": {"baseUrl": base_url, "model": "local-model", "apiKeyEnv": "",
                     "versions": 3, "timeout": 5},
        "watch": watch,
        "dynamic": {"auto": False},
        "analysis": {"metrics": ["textual"]},
        **extra,
    }


class Doc:
    """An open document the test edits with incremental changes, as an editor does."""

    def __init__(self, client: LanguageClient, uri: str, text: str) -> None:
        self.client, self.uri, self.text, self.version = client, uri, text, 1

    def position(self, offset: int) -> types.Position:
        before = self.text[:offset]
        return types.Position(line=before.count("\n"),
                              character=len(before) - (before.rfind("\n") + 1))

    def edit(self, start: int, end: int, new: str) -> int:
        """Replace ``[start, end)`` with ``new`` (one change); the new version."""
        rng = types.Range(start=self.position(start), end=self.position(end))
        self.text = self.text[:start] + new + self.text[end:]
        self.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri,
                                                                version=self.version),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)],
        ))
        return self.version

    def insert(self, offset: int, new: str) -> int:
        return self.edit(offset, offset, new)


def _open(client: LanguageClient, workspace: Path, text: str = HEAD) -> Doc:
    return Doc(client, open_document(client, workspace / "durations.py", text), text)


async def _versions(client: LanguageClient, uri: str, name: str = "parse_duration"
                    ) -> list[dict[str, Any]]:
    report = await command(client, "codequorum.analyze", uri, name)
    return list(report["versions"]) if report and report.get("report") else []


async def _quiet(seconds: float = DEBOUNCE + 1.0) -> None:
    """Long enough for an arrival to settle and be offered."""
    await asyncio.sleep(seconds)


def _messages(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages]


async def test_a_pasted_function_is_offered_and_its_versions_come_from_the_endpoint(
        workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=CHECK) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            asked = await wait_for(lambda: questions(client).asked, timeout=10)
            [offer] = asked
            assert offer.message == (
                "codequorum: 'parse_duration' arrived in one edit (10 lines). Ask local-model "
                f"at {chat.base_url} for 3 more versions to check it?")
            assert [a.title for a in offer.actions or ()] == [NOT_NOW, CHECK, ALWAYS, NEVER]
            assert offer.type == types.MessageType.Info
            await wait_for(lambda: len(chat.chat_requests) == 3, timeout=20)
            said = await wait_for(lambda: [m for m in _messages(client) if "accepted" in m],
                                  timeout=20)
            assert said == ["codequorum: 'parse_duration': 3 of 3 versions accepted"]
            versions = await _versions(client, doc.uri)
            assert [v["origin"] for v in versions] == ["assistant"] + ["regenerated"] * 3
            first = await command(client, "codequorum.showVersion", doc.uri, "parse_duration", 1)
            assert first["code"] == FUNCTION and first["origin"] == "assistant"
            user = chat.chat_requests[0].body["messages"][-1]["content"]
            assert "def parse_duration(text: str) -> int:" in user


async def test_functions_that_arrive_in_a_burst_are_one_offer_and_each_is_sampled(
        workspace: Path) -> None:
    second = "\n\n" + FUNCTION.replace("parse_duration", "parse_again")

    def named(request: RecordedRequest) -> Answer:  # a version of the function asked for
        asked = "parse_again" if "`parse_again`" in str(request.body["messages"]) else None
        return code_answer(OTHER.replace("parse_duration", asked or "parse_duration"))

    with ChatServer(default=named) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=CHECK) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            doc.insert(len(doc.text), second)
            [offer] = await wait_for(lambda: questions(client).asked, timeout=10)
            assert offer.message == (
                "codequorum: 2 functions arrived, each in one edit: 'parse_duration' (10 lines) "
                f"and 'parse_again' (10 lines). Ask local-model at {chat.base_url} for 3 more "
                "versions of each to check them?")
            await wait_for(lambda: len([m for m in _messages(client) if "accepted" in m]) == 2,
                           timeout=20)
            said = sorted(m for m in _messages(client) if "accepted" in m)
            assert said == ["codequorum: 'parse_again': 3 of 3 versions accepted",
                            "codequorum: 'parse_duration': 3 of 3 versions accepted"]
            await _quiet(0.5)
            assert len(questions(client).asked) == 1
            for name in ("parse_duration", "parse_again"):
                versions = await _versions(client, doc.uri, name)
                assert [v["origin"] for v in versions] == ["assistant"] + ["regenerated"] * 3


async def test_typing_the_same_function_asks_nothing(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=CHECK) as client:
            doc = _open(client, workspace)
            for ch in FUNCTION:
                doc.insert(len(doc.text), ch)
            await _quiet()
            assert questions(client).asked == [] and chat.chat_requests == []
            assert await _versions(client, doc.uri) == []


async def test_auto_samples_without_asking_and_off_does_nothing(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url, "auto")) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            await wait_for(lambda: len(chat.chat_requests) == 3, timeout=20)
            assert questions(client).asked == []
        other = workspace.parent / "other"
        other.mkdir()
        async with lsp_session(other, init_options=_options(chat.base_url, "off")) as client:
            doc = _open(client, other)
            doc.insert(len(doc.text), FUNCTION)
            await _quiet()
            assert questions(client).asked == [] and len(chat.chat_requests) == 3


async def test_an_untrusted_workspace_is_never_watched(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        options = {**_options(chat.base_url, "auto"), "trusted": False}
        async with lsp_session(workspace, init_options=options, answer=CHECK) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            await _quiet()
            assert questions(client).asked == [] and chat.chat_requests == []
            assert await _versions(client, doc.uri) == []


async def test_an_edit_of_the_function_before_the_offer_drops_it(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=CHECK) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            at = doc.text.index("total = 0") + len("total = ")
            doc.edit(at, at + 1, "1")
            await _quiet()
            assert questions(client).asked == [] and chat.chat_requests == []


async def test_typing_beside_the_function_keeps_the_offer(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=NOT_NOW) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            for ch in "\n\nx = 1\n":
                doc.insert(len(doc.text), ch)
            doc.insert(0, "# durations\n")
            await wait_for(lambda: questions(client).asked, timeout=10)
            await _quiet(0.5)
            assert chat.chat_requests == []  # "Not now"
            assert await _versions(client, doc.uri) == []


async def test_an_edit_while_versions_come_stops_asking(workspace: Path) -> None:
    with ChatServer(script=[code_answer(OTHER)], default=slow(30)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url, "auto")) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            await wait_for(lambda: len(chat.chat_requests) >= 2, timeout=20)
            at = doc.text.index("return total")
            doc.insert(at, "total = max(total, 0)\n    ")
            said = await wait_for(lambda: [m for m in _messages(client) if "stopped" in m],
                                  timeout=20)
            assert said == ["codequorum: stopped asking for versions of 'parse_duration': you "
                            "edited it (1 stored)"]
            versions = await _versions(client, doc.uri)
            assert [v["origin"] for v in versions if v["origin"] != "current"] == [
                "assistant", "regenerated"]


async def test_never_is_remembered_for_the_workspace(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=NEVER) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            await wait_for(lambda: questions(client).asked, timeout=10)
            await _quiet(0.5)
        approvals = json.loads((config_home(workspace) / "codequorum" / "approvals.json")
                               .read_text(encoding="utf-8"))
        assert approvals["watch"] == [{"workspace": str(workspace), "choice": "off"}]
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=CHECK) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            await _quiet()
            assert questions(client).asked == [] and chat.chat_requests == []


async def test_always_samples_this_one_and_the_next_without_asking(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=ALWAYS) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            await wait_for(lambda: len(chat.chat_requests) == 3, timeout=20)
            second = "\n\n" + FUNCTION.replace("parse_duration", "parse_again")
            doc.insert(len(doc.text), second)
            await wait_for(lambda: len(chat.chat_requests) == 6, timeout=20)
            assert len(questions(client).asked) == 1


async def test_the_budget_bounds_the_samplings_of_an_hour(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        options = _options(chat.base_url, "auto", watchMaxPerHour=1)
        async with lsp_session(workspace, init_options=options) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            await wait_for(lambda: len(chat.chat_requests) == 3, timeout=20)
            doc.insert(len(doc.text), "\n\n" + FUNCTION.replace("parse_duration", "parse_again"))
            said = await wait_for(
                lambda: [m for m in _messages(client) if "watchMaxPerHour" in m], timeout=10)
            assert said == [
                "codequorum: the watch asked for versions 1 time in the last hour "
                "(codequorum.watchMaxPerHour); functions that arrive now are left alone until "
                "the hour allows more"]
            await _quiet(0.5)
            assert len(chat.chat_requests) == 3
            assert await _versions(client, doc.uri, "parse_again") == []


async def test_an_undo_the_editor_names_and_a_version_put_in_place_ask_nothing(
        workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer=CHECK) as client:
            doc = _open(client, workspace)
            version = doc.insert(len(doc.text), FUNCTION)
            client.protocol.notify(EDIT_REASON, {"uri": doc.uri, "version": version,
                                                 "reason": "undo"})
            await _quiet()
            assert questions(client).asked == []
            # a stored version the user puts in place (a code action) is no arrival
            await command(client, "codequorum.addVersions", doc.uri, "parse_duration", [OTHER])
            start = doc.text.index("def parse_duration")
            doc.edit(start, len(doc.text), OTHER)
            await _quiet()
            assert questions(client).asked == [] and chat.chat_requests == []


async def test_a_key_goes_only_to_an_approved_endpoint(workspace: Path) -> None:
    with ChatServer(default=code_answer(OTHER)) as chat:
        options = _options(chat.base_url, "auto")
        options["provider"]["apiKeyEnv"] = "CQ_TEST_KEY"
        async with lsp_session(workspace, init_options=options, answer="Don't send") as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            [question] = await wait_for(lambda: questions(client).asked, timeout=10)
            assert "send the API key in $CQ_TEST_KEY" in question.message
            await _quiet(0.5)
            assert chat.chat_requests == []
            versions = await _versions(client, doc.uri)
            assert [v["origin"] for v in versions] == ["assistant"]


async def test_with_the_client_as_provider_an_editor_that_relays_is_asked(
        workspace: Path) -> None:
    relaying = attrs.evolve(capabilities(), experimental={"codequorumRelay": True})
    options = {"watch": "auto", "provider": {"kind": "client", "versions": 4}}
    async with lsp_session(workspace, init_options=options,
                           client_capabilities=relaying) as client:
        relayed: list[Any] = []

        def relay(params: Any) -> None:
            relayed.append(params)

        client.feature(RELAY)(relay)
        doc = _open(client, workspace)
        doc.insert(len(doc.text), FUNCTION)
        [params] = await wait_for(lambda: relayed, timeout=10)
        assert (params.uri, params.qualifiedName, params.n) == (doc.uri, "parse_duration", 4)
        assert "def parse_duration(text: str) -> int:" in params.messages[-1].content
        versions = await _versions(client, doc.uri)
        assert [v["origin"] for v in versions] == ["assistant"]
    other = workspace.parent / "other"
    other.mkdir()
    async with lsp_session(other, init_options=options) as client:
        doc = _open(client, other)
        doc.insert(len(doc.text), FUNCTION)
        said = await wait_for(lambda: [m for m in _messages(client) if "does not write" in m],
                              timeout=10)
        assert said == ["codequorum: 'parse_duration' was kept as a version, but provider.kind "
                        "is 'client' and this editor does not write versions; set provider.kind "
                        "to 'openai-compatible' to get more"]


async def test_an_endpoint_that_fails_is_one_message_and_the_arrived_text_stays(
        workspace: Path) -> None:
    with ChatServer(default=server_error()) as chat:
        options = _options(chat.base_url, "auto")
        options["provider"]["maxRetries"] = 0
        async with lsp_session(workspace, init_options=options) as client:
            doc = _open(client, workspace)
            doc.insert(len(doc.text), FUNCTION)
            said = await wait_for(lambda: [m for m in _messages(client) if "parse_duration" in m],
                                  timeout=30)
            await _quiet(0.5)
            said = [m for m in _messages(client) if "parse_duration" in m]
            assert len(said) == 1 and said[0].startswith(
                "codequorum: regeneration of 'parse_duration' failed: 0 of 3 versions accepted")
            versions = await _versions(client, doc.uri)
            assert [v["origin"] for v in versions] == ["assistant"]
