"""Inputs the model proposes: asked over real HTTP, accepted only as literal data."""

from __future__ import annotations

import json
import socket

import pytest

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.input_plan import collect_inputs
from codequorum.core.model import VersionSet
from codequorum.generate.endpoint import ProviderConfig
from codequorum.generate.proposed_inputs import (
    InputAsker,
    parse_inputs,
    propose_inputs,
    proposer_for,
)
from codequorum.judge.dynamic_rules import dynamic_verdicts
from tests.support.chat_server import ChatServer, answer, not_json, server_error, slow

UNTYPED = "def combine(a, b):\n    return a + b\n"


def _config(server: ChatServer) -> ProviderConfig:
    return ProviderConfig(base_url=server.base_url, model="test-model", api_key_env=None,
                          timeout=5.0)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_local_endpoint_is_asked_past_the_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy in the environment never sees a loopback endpoint's prompt, as regeneration's."""
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("NO_PROXY", "")
    with ChatServer(script=[answer("[(1, 2)]")]) as server:
        found = propose_inputs(_config(server), UNTYPED, "combine", 2, count=5)
    assert found.args == [(1, 2)] and not found.failed


def test_parse_accepts_literals_only() -> None:
    found = parse_inputs("Sure!\n```python\n[(1, 2), ('a', 'b'), (1,), (1, 2)]\n```", 2, 10)
    assert found.args == [(1, 2), ("a", "b")]
    assert found.notes == ["left out an input with the wrong number of arguments: (1,)"]
    assert parse_inputs("[__import__('os').system('x')]", 1, 10).args == []
    assert parse_inputs("[1, 2, 3]", 1, 2).args == [(1,), (2,)]
    assert "not a Python list literal" in parse_inputs("no idea", 1, 5).notes[0]


def test_the_model_is_asked_for_arguments_only() -> None:
    with ChatServer(script=[answer("[(1, 2), (3, 4)]")]) as server:
        found = propose_inputs(_config(server), UNTYPED, "combine", 2, count=5)
        request = server.chat_requests[0].body
    assert found.args == [(1, 2), (3, 4)]
    prompt = request["messages"][1]["content"]
    assert "never the expected results" in prompt and "def combine(a, b)" in prompt
    assert request["temperature"] == 0.0


def test_an_endpoint_that_fails_is_a_note() -> None:
    with ChatServer(script=[server_error(), not_json()]) as server:
        config = _config(server)
        first = propose_inputs(config, UNTYPED, "combine", 2)
        second = propose_inputs(config, UNTYPED, "combine", 2)
    assert first.args == [] and first.failed
    assert first.notes == [f"no inputs from the model at {server.base_url}: HTTP 500"]
    assert second.args == [] and second.failed and "no answer text" in second.notes[0]
    garbage = parse_inputs("I cannot help with that.", 2, 8)
    assert garbage.args == [] and not garbage.failed  # the endpoint answered; the model did not


def test_a_slow_endpoint_is_waited_for_once_per_run() -> None:
    with ChatServer(default=slow(3.0, answer("[(1, 2)]"))) as server:
        asker = InputAsker(ProviderConfig(base_url=server.base_url, api_key_env=None,
                                          timeout=0.5))
        first = asker(UNTYPED, "combine", 2)
        second = asker(UNTYPED, "combine", 2)
        assert len(server.chat_requests) == 1
    expected = f"no inputs from the model at {server.base_url}: no answer within 0.5 s"
    assert first == ([], [expected])
    assert second == ([], [f"{expected} (not asked again)"])
    assert (asker.failure, asker.asked, asker.received) == (expected, 1, 0)


def test_an_endpoint_that_is_down_leaves_the_rest_scored() -> None:
    with ChatServer() as server:
        base_url = server.base_url
    asker = InputAsker(ProviderConfig(base_url=base_url, api_key_env=None, timeout=2.0))
    versions = [UNTYPED, "def combine(a, b):\n    return b + a\n"]
    report = run_dynamic(VersionSet.from_codes("t", versions, entry_point="combine"),
                         DynamicOptions(input_proposer=asker))
    assert report.inputs == []
    assert report.notes[0] == f"no inputs from the model at {base_url}: cannot connect"
    assert "no inputs to run: behaviour metrics unavailable" in report.notes
    assert report.summary["sctd_jsd"] is not None  # the static figures are still there


def test_proposed_inputs_run_when_nothing_else_would() -> None:
    versions = [UNTYPED, "def combine(a, b):\n    return b + a\n"]
    ss = VersionSet.from_codes("t", versions, entry_point="combine")
    with ChatServer(script=[answer(json.dumps([[1, 2], ["x", "y"]]))]) as server:
        plan = collect_inputs(ss, proposer=proposer_for(_config(server)), scaling=False)
        assert [(c.source, c.label, c.graded) for c in plan.cases[:2]] == [
            ("model", "combine(1, 2)", False), ("model", "combine('x', 'y')", False)
        ]
    with ChatServer(script=[answer("[(1, 2), ('x', 'y')]")]) as server:
        options = DynamicOptions(input_provider=_config(server), use_hypothesis=False,
                                 scaling=False)
        report = run_dynamic(ss, options)
    assert [i["source"] for i in report.inputs] == ["model", "model"]
    assert report.outcomes == [[("3", None, None), ("'xy'", None, None)],
                               [("3", None, None), ("'yx'", None, None)]]
    [verdict] = [v for v in dynamic_verdicts(report) if v.code == "divergent-outputs"]
    assert verdict.message == ("versions 1 and 2 disagree on combine('x', 'y') (an input from "
                               "the model): 'xy' vs 'yx'")
    assert verdict.detail["source"] == "model"


def test_typed_or_tested_functions_do_not_ask() -> None:
    typed = "def combine(a: int, b: int) -> int:\n    return a + b\n"
    with ChatServer() as server:
        collect_inputs(VersionSet.from_codes("t", [typed]), proposer=proposer_for(_config(server)))
        assert server.chat_requests == []


def test_a_javascript_function_is_shown_and_answered_as_javascript() -> None:
    from codequorum.generate.input_language import json_inputs

    js = json_inputs("JavaScript", "javascript")
    source = "function combine(a, b) { return a + b; }"
    with ChatServer(script=[answer("```json\n[[1, true], [\"a\", null], [1]]\n```")]) as server:
        found = propose_inputs(_config(server), source, "combine", 2, count=5, language=js)
        messages = server.chat_requests[0].body["messages"]
    assert messages[0]["content"] == ("You write test inputs for JavaScript functions. "
                                      "Answer with one JSON array and nothing else.")
    assert messages[1]["content"].startswith(
        f"Here is a JavaScript function:\n\n```javascript\n{source}\n```\n\n")
    assert "Python" not in messages[0]["content"] + messages[1]["content"]
    assert found.args == [(1, True), ("a", None)]
    assert parse_inputs("[(1, 2)]", 2, 5, js).notes == [
        "the model's answer is not a JSON array: no inputs taken"]


def test_a_run_asks_in_the_language_of_the_set_s_runtime() -> None:
    from codequorum.behaviour.input_plan import with_language
    from codequorum.behaviour.runtimes import runtime_for

    seen: list[str] = []

    def proposer(source: str, entry: str, arity: int, *, language: object = None
                 ) -> tuple[list[tuple[object, ...]], list[str]]:
        seen.append(getattr(language, "name", ""))
        return [], []

    for lang in ("python", "javascript", "typescript"):
        runtime = runtime_for(lang)
        assert runtime is not None
        with_language(proposer, runtime.inputs)("f", "f", 1)
    assert seen == ["Python", "JavaScript", "TypeScript"]
