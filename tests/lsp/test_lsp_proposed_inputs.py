"""`codequorum.dynamic.proposeInputs` end to end: the real server over stdio asks a real
chat-completions server on 127.0.0.1 for call inputs of a function that gives nothing else
to run, and runs the versions on them; the key goes to a non-default endpoint only after
the user approves it, and an untrusted workspace sends nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_lsp import LanguageClient

from tests.support.chat_server import ChatServer, answer

from .conftest import approve_endpoint, config_home, lsp_session, questions
from .helpers import command, open_document, position_of, progress_values, wait_for

DOC = "def combine(a, b):\n    return a + b\n"
VERSIONS = [
    "def combine(a, b):\n    return b + a\n",
    "def combine(a, b):\n    total = a + b\n    return total\n",
]
INPUTS = "```python\n[(1, 2), ('x', 'y')]\n```"
#: How the progress of a run without inputs ends.
NOTHING_RAN = "nothing ran: no inputs"


def _options(base_url: str, propose: bool = True, **extra: Any) -> dict[str, Any]:
    return {
        # the server on 127.0.0.1 answers at once: the limit only bounds a busy machine
        "provider": {"baseUrl": base_url, "apiKeyEnv": "CQ_TEST_KEY", "model": "test-model",
                     "timeout": 60},
        "dynamic": {"proposeInputs": propose, "auto": False},
        "analysis": {"tsed": False},
        **extra,
    }


async def _run(
    client: LanguageClient, workspace: Path, end: str = "done"
) -> tuple[str, dict[str, Any]]:
    """Open the document, store the versions, run them (the progress ends with ``end``);
    the analyze answer after."""
    uri = open_document(client, workspace / "ops.py", DOC)
    await command(client, "codequorum.addVersions", uri, "combine", VERSIONS)
    started = await command(client, "codequorum.runDynamic", uri, "combine")
    assert started["started"] is True
    token = started["token"]

    def ended() -> bool:
        return any(getattr(v, "kind", "") == "end" for v in client.progress_reports[token])

    await wait_for(ended, timeout=120)
    assert progress_values(client, token)[-1].message == end, _messages(client)
    result: dict[str, Any] = await command(client, "codequorum.analyze", uri, "combine")
    return uri, result


def _messages(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages]


def _ran_nothing(report: dict[str, Any]) -> bool:
    """The report of a run kept as one that ran nothing: no input, and said so."""
    return (report["dynamic"]["inputs"] == []
            and report["verdicts"][0]["code"] == "not-run"
            and "behaviour not run: no inputs" in report["notes"])


async def test_inputs_are_asked_after_approval_and_run(workspace: Path) -> None:
    with ChatServer(default=answer(INPUTS)) as chat:
        options = _options(chat.base_url)
        async with lsp_session(workspace, init_options=options, answer="Send the key") as client:
            uri, result = await _run(client, workspace)
            report = result["report"]
            [request] = chat.chat_requests
            assert request.authorization == "Bearer sk-test"
            assert request.body["model"] == "test-model"
            assert "def combine(a, b)" in request.body["messages"][1]["content"]
            [question] = questions(client).messages
            assert "$CQ_TEST_KEY" in question and chat.base_url in question

            inputs = report["dynamic"]["inputs"]
            assert [(i["source"], i["label"]) for i in inputs[:2]] == [
                ("model", "combine(1, 2)"), ("model", "combine('x', 'y')")]
            outcomes = report["dynamic"]["outcomes"]
            assert [row[1][0] for row in outcomes] == ["'yx'", "'xy'", "'xy'"]
            [divergent] = [v for v in report["verdicts"] if v["code"] == "divergent-outputs"]
            assert "disagree on combine('x', 'y') (an input from the model)" in divergent["message"]
            assert result["evidence"].startswith("on combine('x', 'y') (an input from the model) ")
            diags = await wait_for(lambda: [d for d in client.diagnostics.get(uri, ())
                                            if d.code == "divergent-outputs"])
            assert diags[0].range.start == position_of(DOC, "combine")
            assert "(an input from the model)" in diags[0].message
            assert not any("no inputs" in m for m in _messages(client))


async def test_without_approval_nothing_is_sent_and_nothing_runs(workspace: Path) -> None:
    # the model was the only source of inputs: without them no version runs, and the
    # message says so instead of a run "done"
    with ChatServer(default=answer(INPUTS)) as chat:
        async with lsp_session(workspace, init_options=_options(chat.base_url),
                               answer="Don't send") as client:
            report = (await _run(client, workspace, NOTHING_RAN))[1]["report"]
            assert chat.requests == []
            assert len(questions(client).messages) == 1
            assert _ran_nothing(report)
            warning = await wait_for(lambda: [m for m in _messages(client)
                                              if "no inputs asked from the model" in m])
            assert warning == [
                "codequorum: nothing ran for 'combine': no inputs: add a doctest or type hints; "
                "no inputs asked from the model: nothing was sent: the key in $CQ_TEST_KEY goes "
                f"to {chat.base_url} only when you approve it (approvals are kept in "
                f"{config_home(workspace) / 'codequorum' / 'approvals.json'})"
            ]
            assert not any("ran on the other inputs" in m for m in _messages(client))


async def test_an_untrusted_workspace_or_the_setting_off_sends_nothing(workspace: Path) -> None:
    with ChatServer(default=answer(INPUTS)) as chat:
        untrusted = _options(chat.base_url, trusted=False)
        async with lsp_session(workspace, init_options=untrusted,
                               answer="Send the key") as client:
            uri = open_document(client, workspace / "ops.py", DOC)
            await command(client, "codequorum.addVersions", uri, "combine", VERSIONS)
            run = await command(client, "codequorum.runDynamic", uri, "combine")
            assert run["started"] is False and "not trusted" in run["message"]
            assert questions(client).messages == []
        approve_endpoint(workspace, chat.base_url, "CQ_TEST_KEY")
        off = _options(chat.base_url, propose=False)
        async with lsp_session(workspace, init_options=off) as client:
            report = (await _run(client, workspace, NOTHING_RAN))[1]["report"]
            assert _ran_nothing(report)
            assert questions(client).messages == []
            assert any(m.endswith("or turn on inputs from the model "
                                  "(codequorum.dynamic.proposeInputs)") for m in _messages(client))
        assert chat.requests == []


async def test_an_endpoint_that_is_down_is_one_warning(workspace: Path) -> None:
    with ChatServer() as chat:
        base_url = chat.base_url  # nothing listens there once the block ends
    approve_endpoint(workspace, base_url, "CQ_TEST_KEY")
    async with lsp_session(workspace, init_options=_options(base_url)) as client:
        report = (await _run(client, workspace, NOTHING_RAN))[1]["report"]
        failure = f"no inputs from the model at {base_url}: cannot connect"
        assert _ran_nothing(report)
        assert questions(client).messages == []
        warning = await wait_for(lambda: [m for m in _messages(client) if failure in m])
        assert warning == [f"codequorum: nothing ran for 'combine': no inputs: add a doctest or "
                           f"type hints; {failure}"]
