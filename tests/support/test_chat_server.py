"""The test chat-completions server itself: protocol shape, scripting, recording."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.chat_server import (
    Behaviour,
    ChatServer,
    RecordedTask,
    code_answer,
    hang_up,
    no_code,
    not_json,
    rate_limited,
    server_error,
    slow,
)

MESSAGES = [{"role": "user", "content": "write f"}]


@pytest.fixture(scope="module")
def task(shared_dir: Path) -> RecordedTask:
    return RecordedTask.load("HumanEval/0", shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl")


def test_recorded_task_holds_real_completions(task: RecordedTask) -> None:
    assert task.entry_point == "has_close_elements"
    assert len(task.codes) == 100
    assert task.codes[0].startswith("from typing import List")
    assert "def has_close_elements(" in task.codes[0]
    assert RecordedTask.load("has_close_elements", None).codes == task.codes


def test_answers_by_seed_and_n_and_lists_models(task: RecordedTask) -> None:
    with ChatServer(default=task, model="codegen") as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        models = httpx.get(server.base_url + "/models").json()
        assert [m["id"] for m in models["data"]] == ["codegen"]
        body = {"model": "m1", "messages": MESSAGES, "seed": 3, "n": 2, "temperature": 0.5}
        reply = httpx.post(server.base_url + "/chat/completions", json=body).json()
    assert reply["object"] == "chat.completion" and reply["model"] == "m1"
    contents = [c["message"]["content"] for c in reply["choices"]]
    assert contents == [task.content(3), task.content(4)]
    assert "```python\n" + task.codes[3] in contents[0]
    [request] = server.chat_requests
    assert request.body == body and request.method == "POST"
    assert len(server.requests) == 2  # the GET as well


def test_script_then_default_and_headers_recorded() -> None:
    script: list[Behaviour] = [server_error("boom"), rate_limited(0.5), not_json(), no_code()]
    with ChatServer(script=script, default=code_answer("def f():\n    return 1\n")) as server:
        url = server.base_url + "/chat/completions"
        body = {"model": "m", "messages": MESSAGES}
        first = httpx.post(url, json=body, headers={"Authorization": "Bearer k"})
        second = httpx.post(url, json=body)
        third = httpx.post(url, json=body)
        fourth = httpx.post(url, json=body)
        fifth = httpx.post(url, json=body)
    assert first.status_code == 500 and first.json()["error"]["message"] == "boom"
    assert second.status_code == 429 and second.headers["retry-after"] == "0.5"
    assert third.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(third.text)
    assert fourth.json()["choices"][0]["message"]["content"].startswith("I'm sorry")
    last = fifth.json()["choices"][0]["message"]["content"]
    assert "```python\ndef f():\n    return 1\n```" in last
    auths = [r.authorization for r in server.chat_requests]
    assert auths == ["Bearer k", None, None, None, None]


def test_slow_answer_outlasts_a_short_client_timeout_and_stop_is_prompt() -> None:
    server = ChatServer(script=[slow(10)]).start()
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(server.base_url + "/chat/completions", json={"messages": MESSAGES}, timeout=0.2)
    server.stop()
    assert time.monotonic() - started < 3


def test_hang_up_and_bad_requests() -> None:
    with ChatServer(script=[hang_up()]) as server:
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.post(server.base_url + "/chat/completions", json={"messages": MESSAGES})
        bad = httpx.post(server.base_url + "/chat/completions", content=b"not json")
        assert bad.status_code == 400
        missing = httpx.post(server.base_url + "/nowhere", json={"messages": MESSAGES})
        assert missing.status_code == 404


def test_runs_as_its_own_process_and_stops_on_sigterm() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.chat_server", "--task", "HumanEval/2"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        body = {"messages": MESSAGES, "seed": 0}
        reply = httpx.post(base_url + "/chat/completions", json=body, timeout=5).json()
        assert "def truncate_number(" in reply["choices"][0]["message"]["content"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
