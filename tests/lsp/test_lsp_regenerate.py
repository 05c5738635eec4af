"""Regeneration against a real chat-completions server on 127.0.0.1: success, failures,
progress and cancellation; the server keeps answering throughout."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.support.chat_server import (
    ChatServer,
    RecordedTask,
    no_code,
    not_json,
    rate_limited,
    server_error,
    slow,
)

from .conftest import approve_endpoint, lsp_session
from .helpers import (
    NO_AUTORUN,
    command,
    hover_text,
    humaneval_task,
    open_document,
    position_of,
    progress_values,
    wait_for,
)

CURRENT_BODY = (
    "    return any(abs(a - b) < threshold for a in numbers for b in numbers if a is not b)\n"
)


def _options(base_url: str, **provider: Any) -> dict[str, Any]:
    return {
        "provider": {
            "baseUrl": base_url,
            "model": "codegen-16b",
            "apiKeyEnv": "CQ_TEST_KEY",
            "seed": 11,
            "versions": 3,
            "timeout": 5,
            **provider,
        },
        "analysis": {"tsed": False},
        **NO_AUTORUN,
    }


def _messages(client: Any) -> list[str]:
    return [m.message for m in client.messages]


async def test_regenerate_stores_real_completions_with_progress(
    workspace: Path, shared_dir: Path
) -> None:
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    doc = task["prompt"] + CURRENT_BODY
    with ChatServer(default=RecordedTask.load("HumanEval/0")) as chat:
        approve_endpoint(workspace, chat.base_url, "CQ_TEST_KEY")
        async with lsp_session(workspace, init_options=_options(chat.base_url)) as client:
            uri = open_document(client, workspace / "close.py", doc)
            pos = position_of(doc, "has_close_elements")
            result = await command(client, "codequorum.regenerate", uri, pos)
            assert result["status"] == "ok"
            assert (result["requested"], result["accepted"], result["stored"]) == (3, 3, 3)
            assert result["errors"] == [] and result["rejected"] == []

            requests = chat.chat_requests
            assert len(requests) == 3
            assert sorted(r.body["seed"] for r in requests) == [11, 12, 13]
            assert {r.body["model"] for r in requests} == {"codegen-16b"}
            assert requests[0].authorization == "Bearer sk-test"
            user = requests[0].body["messages"][-1]["content"]
            assert "has_close_elements" in user

            stored = [
                await command(client, "codequorum.showVersion", uri, "has_close_elements", k)
                for k in (1, 2, 3)
            ]
            # the stored versions are the recorded completions for seeds 11..13 (function only)
            for seed in (11, 12, 13):
                body = task["samples"][seed].rstrip()
                assert sum(x["code"].rstrip().endswith(body) for x in stored) == 1
                assert all(x["code"].startswith("def has_close_elements(") for x in stored)
            assert {s["origin"] for s in stored} == {"regenerated"}

            # work-done progress: server-created token, begin ... end
            [token] = [t for t, v in client.progress_reports.items() if v]
            reports = progress_values(client, token)
            kinds = [v.kind for v in reports]
            assert kinds[0] == "begin" and kinds[-1] == "end"
            assert kinds.count("report") == 3
            assert isinstance(reports[0], types.WorkDoneProgressBegin)
            assert reports[0].title == "codequorum: regenerating has_close_elements"
            assert any("3 of 3 versions accepted" in m for m in _messages(client))

            text = await hover_text(client, uri, pos)
            assert text is not None and "· 3 versions" in text


async def test_provider_failures_are_reported_and_the_server_stays_up(
    workspace: Path, shared_dir: Path
) -> None:
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    doc = task["prompt"] + CURRENT_BODY
    recorded = RecordedTask.load("HumanEval/0")
    with ChatServer(default=recorded) as chat:
        # 3 s: long enough for a real completion on a loaded machine, short beside slow(30)
        options = _options(chat.base_url, versions=1, timeout=3)
        approve_endpoint(workspace, chat.base_url, "CQ_TEST_KEY")
        async with lsp_session(workspace, init_options=options) as client:
            uri = open_document(client, workspace / "close.py", doc)
            pos = position_of(doc, "has_close_elements")

            async def regenerate_with(default: Any, *first: Any) -> dict[str, Any]:
                chat.set_default(default)
                chat.push(*first)
                before = len(client.messages)
                result: dict[str, Any] = await command(
                    client,
                    "codequorum.regenerate",
                    {
                        "uri": uri,
                        "position": {"line": pos.line, "character": pos.character},
                        "n": 1,
                    },
                )
                await wait_for(lambda: len(client.messages) > before)
                result["shown"] = client.messages[-1]
                return result

            # HTTP 500 on every attempt (the first and the retries)
            failed = await regenerate_with(server_error())
            assert failed["status"] == "failed" and failed["accepted"] == 0
            assert failed["shown"].type == types.MessageType.Error
            assert "500" in failed["shown"].message
            assert failed["shown"].message.startswith(
                "codequorum: regeneration of 'has_close_elements' failed:"
            )

            # 429 then success: the retry gets a real completion
            ok = await regenerate_with(recorded, rate_limited(0.05))
            assert ok["status"] == "ok" and ok["accepted"] == 1
            assert ok["shown"].type == types.MessageType.Info

            # no answer within the timeout (3 s)
            timed_out = await regenerate_with(slow(30))
            assert timed_out["status"] == "failed"
            assert "timed out after 3 s" in timed_out["shown"].message

            # a body that is not JSON
            garbage = await regenerate_with(not_json())
            assert garbage["status"] == "failed"
            assert garbage["shown"].type == types.MessageType.Error
            assert "JSON" in garbage["shown"].message

            # an answer without code
            nothing = await regenerate_with(no_code())
            assert nothing["status"] == "failed"
            assert nothing["rejected"] == ["version 1: rejected — no code in the answer"]
            assert "no code in the answer" in nothing["shown"].message

            report = await command(client, "codequorum.analyze", uri, "has_close_elements")
            assert report["stored"] == 1  # only the 429-then-success version was stored
            text = await hover_text(client, uri, pos)
            assert text is not None and "· 1 version + your code ·" in text


async def test_cancel_a_regeneration_midway(workspace: Path, shared_dir: Path) -> None:
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    doc = task["prompt"] + CURRENT_BODY
    recorded = RecordedTask.load("HumanEval/0")
    # first answer comes at once, the others (all sent at once) hang for 30 s
    with ChatServer(script=[recorded(_fake_request(0))], default=slow(30)) as chat:
        approve_endpoint(workspace, chat.base_url, "CQ_TEST_KEY")
        async with lsp_session(
            workspace, init_options=_options(chat.base_url, timeout=60, versions=4, concurrency=4)
        ) as client:
            uri = open_document(client, workspace / "close.py", doc)
            token = f"client-{uuid.uuid4().hex[:6]}"
            client.progress_reports[token] = []
            loop = asyncio.get_running_loop()
            started = loop.time()
            pending = asyncio.ensure_future(
                client.workspace_execute_command_async(
                    types.ExecuteCommandParams(
                        command="codequorum.regenerate",
                        arguments=[uri, "has_close_elements"],
                        work_done_token=token,
                    )
                )
            )
            await wait_for(
                lambda: any(
                    getattr(v, "kind", "") == "report" for v in client.progress_reports[token]
                )
            )
            # another request is answered while the regeneration waits
            pos = position_of(doc, "has_close_elements")
            text = await hover_text(client, uri, pos)
            assert text is not None and "· 1 version + your code ·" in text
            client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
            result = await asyncio.wait_for(pending, timeout=10)
            assert loop.time() - started < 20
            assert result is not None
            assert result["status"] == "cancelled"
            assert result["stored"] == 1
            assert progress_values(client, token)[-1].kind == "end"
            assert progress_values(client, token)[-1].message == "cancelled"
            assert any("cancelled" in m for m in _messages(client))

            # $/cancelRequest on a second one
            msg_id = "regen-2"
            future = client.protocol.send_request(
                types.WORKSPACE_EXECUTE_COMMAND,
                types.ExecuteCommandParams(
                    command="codequorum.regenerate", arguments=[uri, "has_close_elements", 2]
                ),
                msg_id=msg_id,
            )
            await wait_for(lambda: len(chat.chat_requests) >= 6)
            client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
            try:
                await asyncio.wait_for(asyncio.wrap_future(future), timeout=10)
                raise AssertionError("the cancelled request returned a result")
            except TimeoutError:
                raise
            except Exception as exc:  # the JSON-RPC error for a cancelled request
                assert "cancel" in str(exc).lower()
            report = await command(client, "codequorum.analyze", uri, "has_close_elements")
            assert report["stored"] == 1
            assert await hover_text(client, uri, pos) is not None


def _fake_request(seed: int) -> Any:
    from tests.support.chat_server import RecordedRequest

    return RecordedRequest(
        method="POST",
        path="/v1/chat/completions",
        headers={},
        body={"seed": seed},
        raw_body=b"",
        received=0.0,
    )
