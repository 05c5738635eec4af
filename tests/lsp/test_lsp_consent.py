"""Where keys go and what runs, end to end: a workspace-chosen endpoint gets no key and a
store the server did not make runs nothing until the user approves, once; an untrusted
workspace runs and sends nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from codequorum.cli.main import main
from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path
from tests.support.chat_server import ChatServer, code_answer

from .conftest import config_home, lsp_session, questions
from .helpers import NO_AUTORUN, command, open_document

DOC = "def clamp(x: int) -> int:\n    return max(0, min(10, x))\n"
VERSIONS = [
    "def clamp(x: int) -> int:\n    return sorted([0, x, 10])[1]\n",
    "def clamp(x: int) -> int:\n    return abs(x) % 11\n",
]
ANSWER = "```python\ndef clamp(x: int) -> int:\n    return min(10, max(0, x))\n```"


def _provider(base_url: str, key_env: str = "CQ_TEST_KEY") -> dict[str, Any]:
    return {"provider": {"baseUrl": base_url, "apiKeyEnv": key_env, "versions": 1, "timeout": 5}}


def _approvals(workspace: Path) -> dict[str, Any]:
    path = config_home(workspace) / "codequorum" / "approvals.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else {}


def _questions(client: LanguageClient) -> list[str]:
    return questions(client).messages


def _actions(client: LanguageClient) -> list[str]:
    """The choices of the first question."""
    return [a.title for a in questions(client).asked[0].actions or []]


async def test_a_workspace_endpoint_gets_no_key_until_the_user_approves_it(
    workspace: Path,
) -> None:
    with ChatServer(default=code_answer(ANSWER)) as chat:
        async with lsp_session(workspace, init_options=_provider(chat.base_url)) as client:
            uri = open_document(client, workspace / "clamp.py", DOC)
            refused = await command(client, "codequorum.regenerate", uri, "clamp")
            assert refused["status"] == "refused"
            assert chat.chat_requests == []
            [question] = _questions(client)
            assert "$CQ_TEST_KEY" in question and chat.base_url in question
            assert _actions(client) == ["Don't send", "Send the key"]  # the safe one first
            assert "nothing was sent" in refused["message"]
            assert any("nothing was sent" in m.message for m in client.messages)
            assert "endpoints" not in _approvals(workspace)

            questions(client).answer = "Send the key"
            approved = await command(client, "codequorum.regenerate", uri, "clamp")
            assert approved["status"] == "ok"
            [request] = chat.chat_requests
            assert request.authorization == "Bearer sk-test"
            assert _approvals(workspace)["endpoints"] == [
                {"endpoint": chat.base_url, "apiKeyEnv": "CQ_TEST_KEY"}
            ]

        # remembered: a new session asks nothing and sends the key
        async with lsp_session(workspace, init_options=_provider(chat.base_url)) as client:
            uri = open_document(client, workspace / "clamp.py", DOC)
            again = await command(client, "codequorum.regenerate", uri, "clamp")
            assert again["status"] == "ok"
            assert _questions(client) == []
            assert chat.chat_requests[-1].authorization == "Bearer sk-test"

        # the approval is per key variable: another variable is asked about again
        other = _provider(chat.base_url, key_env="HOME")
        async with lsp_session(workspace, init_options=other) as client:
            uri = open_document(client, workspace / "clamp.py", DOC)
            result = await command(client, "codequorum.regenerate", uri, "clamp")
            assert result["status"] == "refused"
            assert len(_questions(client)) == 1 and "$HOME" in _questions(client)[0]
            assert len(chat.chat_requests) == 2


async def test_no_question_without_a_key_or_when_the_client_confirmed(workspace: Path) -> None:
    with ChatServer(default=code_answer(ANSWER)) as chat:
        unset = _provider(chat.base_url, key_env="CQ_KEY_THAT_IS_NOT_SET")
        async with lsp_session(workspace, init_options=unset) as client:
            uri = open_document(client, workspace / "clamp.py", DOC)
            result = await command(client, "codequorum.regenerate", uri, "clamp")
            assert result["status"] == "ok"
            assert chat.chat_requests[-1].authorization is None
            assert _questions(client) == []
        async with lsp_session(workspace, init_options=_provider(chat.base_url)) as client:
            uri = open_document(client, workspace / "clamp.py", DOC)
            args = {"uri": uri, "qualifiedName": "clamp", "endpointConfirmed": True}
            result = await command(client, "codequorum.regenerate", args)
            assert result["status"] == "ok"
            assert chat.chat_requests[-1].authorization == "Bearer sk-test"
            assert _questions(client) == []
            assert "endpoints" not in _approvals(workspace)


async def test_a_store_that_came_with_the_repository_runs_only_after_approval(
    workspace: Path,
) -> None:
    store_path = default_store_path(workspace)
    with VersionStore.open(store_path) as store:  # made here by "someone else"
        versions = [Version(code=v, origin="relayed") for v in VERSIONS]
        store.add("clamp.py", "python", "clamp", versions)
        store_id = store.store_id
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        refused = await command(client, "codequorum.runDynamic", uri, "clamp")
        assert refused["started"] is False and refused["refused"] is True
        assert "were not run" in refused["message"]
        [question] = _questions(client)
        assert str(store_path) in question
        assert _actions(client) == ["Not now", "Run in the sandbox"]  # the safe one first

        questions(client).answer = "Run in the sandbox"
        started = await command(client, "codequorum.runDynamic", uri, "clamp")
        assert started["started"] is True
        assert _approvals(workspace)["stores"] == [{"path": str(store_path), "id": store_id}]
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        started = await command(client, "codequorum.runDynamic", uri, "clamp")
        assert started["started"] is True
        assert _questions(client) == []


@pytest.mark.parametrize("answer", ["Not now", None, "", "run in the sandbox"])
async def test_no_answer_but_the_exact_yes_runs_anything(
    workspace: Path, answer: str | None
) -> None:
    # the safe action, a dismissed question (null), an empty title (what a client sends
    # for an empty input) and a title that is not quite the action all mean "no"
    with VersionStore.open(default_store_path(workspace)) as store:
        versions = [Version(code=v, origin="relayed") for v in VERSIONS]
        store.add("clamp.py", "python", "clamp", versions)
    async with lsp_session(workspace, answer=answer) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        refused = await command(client, "codequorum.runDynamic", uri, "clamp")
        assert refused["started"] is False and refused["refused"] is True
        assert len(_questions(client)) == 1
        assert "stores" not in _approvals(workspace)


async def test_a_store_the_server_made_runs_without_a_question(workspace: Path) -> None:
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
        started = await command(client, "codequorum.runDynamic", uri, "clamp")
        assert started["started"] is True
        assert _questions(client) == []
        [entry] = _approvals(workspace)["stores"]
        assert entry["path"] == str(default_store_path(workspace))


async def test_a_store_codequorum_sample_made_here_runs_without_a_question(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (workspace / ".git").mkdir()
    (workspace / "clamp.py").write_text(DOC)
    versions = tmp_path / "versions.json"
    versions.write_text(json.dumps(VERSIONS))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home(workspace)))  # the server's too
    assert main(["sample", str(workspace / "clamp.py"), "-f", "clamp", "--from",
                 str(versions), "-q"]) == 0
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "clamp.py", DOC)
        started = await command(client, "codequorum.runDynamic", uri, "clamp")
        assert started["started"] is True
        assert _questions(client) == []


async def test_an_untrusted_workspace_runs_and_sends_nothing(workspace: Path) -> None:
    with ChatServer(default=code_answer(ANSWER)) as chat:
        options = {**_provider(chat.base_url), "trusted": False}
        # a later configuration cannot make the session trusted again
        async with lsp_session(
            workspace, init_options=options, configuration={"codequorum": {"trusted": True}}
        ) as client:
            uri = open_document(client, workspace / "clamp.py", DOC)
            await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)
            run = await command(client, "codequorum.runDynamic", uri, "clamp")
            assert run["started"] is False and "not trusted" in run["message"]
            regen = await command(client, "codequorum.regenerate", uri, "clamp")
            assert regen["status"] == "refused" and "not trusted" in regen["message"]
            assert chat.chat_requests == []
            assert _questions(client) == []
