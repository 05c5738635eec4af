"""The chat-completions client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from pathlib import Path

import httpx
import pytest

from codequorum.core.model import Version
from codequorum.generate.endpoint import (
    Outcome,
    ProviderConfig,
    ProviderError,
    RegenerationResult,
    Rejected,
    RequestError,
    failure_message,
    list_models,
    regenerate,
)
from tests.support.chat_server import (
    Answer,
    Behaviour,
    ChatServer,
    RecordedTask,
    answer,
    code_answer,
    hang_up,
    no_code,
    not_json,
    rate_limited,
    server_error,
    slow,
    status,
)

MESSAGES = [{"role": "user", "content": "Write has_close_elements."}]
NAME = "has_close_elements"
HEADER = "from typing import List\n\n\n"
GOOD = "def has_close_elements(numbers, threshold):\n    return False\n"


@pytest.fixture(scope="module")
def task(shared_dir: Path) -> RecordedTask:
    return RecordedTask.load("HumanEval/0", shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl")


def config_for(server: ChatServer, **overrides: object) -> ProviderConfig:
    values: dict[str, object] = {
        "base_url": server.base_url,
        "model": "codegen-test",
        "api_key_env": "CODEQUORUM_TEST_KEY",
        "temperature": 0.8,
        "versions": 5,
        "timeout": 2.0,
        "max_retries": 2,
        "backoff": 0.01,
    }
    values.update(overrides)
    return ProviderConfig(**values)  # type: ignore[arg-type]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_regenerates_real_completions_with_seeds(task: RecordedTask) -> None:
    with ChatServer(default=task) as server:
        config = config_for(server, seed=10)
        result = await regenerate(config, MESSAGES, None, "python", NAME)
    assert result.requested == 5 and not result.errors and not result.rejected
    assert [s.seed for s in result.accepted] == [10, 11, 12, 13, 14]
    for version in result.accepted:
        assert version.origin == "regenerated"
        assert (version.model, version.temperature) == ("codegen-test", 0.8)
        assert version.provider == server.base_url
        assert version.code.startswith("def has_close_elements(numbers: List[float]")
        # The function alone: a prefix of the real completion, without the import line.
        assert task.codes[version.seed or 0][len(HEADER) :].startswith(version.code.rstrip())
    sent = server.chat_requests
    assert sorted(r.body["seed"] for r in sent) == [10, 11, 12, 13, 14]
    assert {r.body["temperature"] for r in sent} == {0.8}
    assert {r.body["model"] for r in sent} == {"codegen-test"}
    assert all(r.body["messages"] == MESSAGES and "n" not in r.body for r in sent)


async def test_truncated_trailing_code_still_yields_the_function(task: RecordedTask) -> None:
    # Sample 5 of HumanEval/0 ends in a cut-off assert line; the function itself is whole.
    with ChatServer(default=task) as server:
        result = await regenerate(config_for(server, seed=5), MESSAGES, 1, "python", NAME)
    [version] = result.accepted
    assert "assert" not in version.code and version.code.endswith("    return False\n")


async def test_api_key_read_from_environment_at_request_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with ChatServer(default=code_answer(GOOD)) as server:
        config = config_for(server)
        monkeypatch.delenv("CODEQUORUM_TEST_KEY", raising=False)
        await regenerate(config, MESSAGES, 1, "python", NAME)
        monkeypatch.setenv("CODEQUORUM_TEST_KEY", "sk-secret-1")
        await regenerate(config, MESSAGES, 1, "python", NAME)
        monkeypatch.setenv("CODEQUORUM_TEST_KEY", "sk-secret-2")
        await regenerate(config, MESSAGES, 1, "python", NAME)
    auths = [r.authorization for r in server.chat_requests]
    assert auths == [None, "Bearer sk-secret-1", "Bearer sk-secret-2"]
    assert "sk-secret" not in repr(config)


async def test_endpoint_down_is_a_clear_error_per_sample() -> None:
    port = closed_port()
    config = ProviderConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=2.0)
    started = time.monotonic()
    result = await regenerate(config, MESSAGES, 3, "python", NAME)
    assert time.monotonic() - started < 2
    assert not result.ok and len(result.errors) == 3
    base = f"http://127.0.0.1:{port}/v1"
    expected = f"cannot reach {base}: connection refused — is the server running?"
    assert result.error_summary() == expected
    assert [e.index for e in result.errors] == [0, 1, 2]
    assert result.summary() == "0 of 3 versions accepted; 3 could not connect"
    assert {e.kind for e in result.errors} == {"unreachable"}


async def test_retries_500_then_succeeds() -> None:
    with ChatServer(script=[server_error(), server_error()], default=code_answer(GOOD)) as server:
        result = await regenerate(config_for(server), MESSAGES, 1, "python", NAME)
    assert [s.code for s in result.accepted] == [GOOD]
    assert len(server.chat_requests) == 3


async def test_gives_up_after_max_retries_with_the_status() -> None:
    with ChatServer(default=server_error("model crashed")) as server:
        result = await regenerate(config_for(server, max_retries=1), MESSAGES, 1, "python", NAME)
    [error] = result.errors
    assert error.status == 500
    assert error.message == (
        f"HTTP 500 from {server.base_url}/chat/completions: model crashed (after 2 attempts)"
    )
    assert len(server.chat_requests) == 2


async def test_honours_retry_after_on_429() -> None:
    with ChatServer(script=[rate_limited(0.3)], default=code_answer(GOOD)) as server:
        result = await regenerate(config_for(server, backoff=5.0), MESSAGES, 1, "python", NAME)
    assert result.ok
    first, second = server.chat_requests
    waited = second.received - first.received
    assert 0.25 <= waited < 2.0  # Retry-After (0.3 s), not the 5 s backoff


async def test_timeout_is_reported_not_raised() -> None:
    with ChatServer(default=slow(5)) as server:
        config = config_for(server, timeout=0.3, max_retries=3)
        started = time.monotonic()
        result = await regenerate(config, MESSAGES, 2, "python", NAME)
        elapsed = time.monotonic() - started
    assert elapsed < 1.5  # timeouts are not retried
    assert [e.message for e in result.errors] == [
        f"timed out after 0.3 s waiting for an answer from {server.base_url}"
    ] * 2
    assert result.summary() == "0 of 2 versions accepted; 2 timed out"


async def test_bad_answers_are_reported_per_sample() -> None:
    script: list[Behaviour] = [
        not_json(),
        no_code(),
        code_answer("def something_else():\n    return 1\n"),
        code_answer("def has_close_elements(numbers, threshold):\n    return (\n"),
        hang_up(),
        status(404, "model not found"),
        answer(""),
        code_answer(GOOD),
    ]
    with ChatServer(script=script) as server:
        config = config_for(server, concurrency=1, max_retries=0)
        result = await regenerate(config, MESSAGES, 8, "python", NAME)
    assert [s.code for s in result.accepted] == [GOOD]
    reasons = {r.index: r.reason for r in result.rejected}
    assert reasons == {
        1: "no code in the answer",
        2: "does not define `has_close_elements`",
        3: "code does not parse: line 2 ('(' was never closed)",
        6: "empty answer",
    }
    errors = {e.index: e.message for e in result.errors}
    endpoint = f"{server.base_url}/chat/completions"
    assert errors[0].startswith(f"the answer from {endpoint} is not JSON: '<html>")
    assert errors[4] == (f"{server.base_url} closed the connection without an answer: if the "
                         "server stopped, its log says why (a llama.cpp build that dies on its "
                         "first answer was built for instructions this CPU does not execute: "
                         "rebuild it portable or start it with --no-repack)")
    assert errors[5] == (
        f"HTTP 404 from {endpoint}: model not found — check the base URL and the model name "
        "'codegen-test'"
    )
    assert result.summary() == (
        "1 of 8 versions accepted; 1 not a chat completion, 1 lost the connection, "
        "1 refused: HTTP 404, 1 answer had no code, 1 answer had no function, "
        "1 answer did not parse, 1 answer was empty")


async def test_unauthorized_names_the_unset_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEQUORUM_TEST_KEY", raising=False)
    with ChatServer(default=status(401, "invalid api key")) as server:
        result = await regenerate(config_for(server), MESSAGES, 1, "python", NAME)
    [error] = result.errors
    assert error.message.endswith(
        "invalid api key — the environment variable CODEQUORUM_TEST_KEY is not set"
    )
    assert len(server.chat_requests) == 1  # 401 is not retried


async def test_use_n_asks_once_when_the_server_honours_n(task: RecordedTask) -> None:
    with ChatServer(default=task) as server:
        config = config_for(server, use_n=True, seed=20)
        result = await regenerate(config, MESSAGES, 3, "python", NAME)
    assert len(result.accepted) == 3
    [request] = server.chat_requests
    assert (request.body["n"], request.body["seed"]) == (3, 20)
    assert [s.seed for s in result.accepted] == [20, 20, 20]


async def test_use_n_tops_up_when_the_server_ignores_n() -> None:
    with ChatServer(default=code_answer(GOOD)) as server:  # always one choice
        config = config_for(server, use_n=True)
        result = await regenerate(config, MESSAGES, 3, "python", NAME)
    assert len(result.accepted) == 3
    assert [r.body.get("n") for r in server.chat_requests] == [3, None, None]


async def test_cancel_returns_what_arrived() -> None:
    with ChatServer(script=[code_answer(GOOD)], default=slow(10)) as server:
        cancel = asyncio.Event()
        seen: list[tuple[int, Outcome]] = []

        def on_version(index: int, outcome: Outcome) -> None:
            seen.append((index, outcome))
            cancel.set()

        config = config_for(server, concurrency=1, timeout=20.0)
        started = time.monotonic()
        result = await regenerate(
            config, MESSAGES, 4, "python", NAME, cancel=cancel, on_version=on_version
        )
        elapsed = time.monotonic() - started
        got = server.wait_for_requests(2, timeout=1.0)
    assert elapsed < 2.0
    assert result.cancelled and [s.code for s in result.accepted] == [GOOD]
    assert not result.errors and not result.rejected
    assert [i for i, _ in seen] == [0] and isinstance(seen[0][1], Version)
    assert len(got) == 2  # the second request was sent, then abandoned
    assert result.summary() == "1 of 4 versions accepted (cancelled)"


async def test_async_on_sample_sees_every_outcome() -> None:
    with ChatServer(script=[code_answer(GOOD), no_code(), server_error()]) as server:
        seen: list[tuple[int, str]] = []

        async def on_version(index: int, outcome: Outcome) -> None:
            await asyncio.sleep(0)
            seen.append((index, type(outcome).__name__))

        config = config_for(server, concurrency=1, max_retries=0)
        await regenerate(config, MESSAGES, 3, "python", NAME, on_version=on_version)
    assert seen == [(0, "Version"), (1, "Rejected"), (2, "RequestError")]
    assert issubclass(Rejected, object) and issubclass(RequestError, object)


async def test_multiple_choices_in_one_answer_are_matched_in_order() -> None:
    other = "def has_close_elements(numbers, threshold):\n    return True\n"
    with ChatServer(default=Answer((f"```py\n{GOOD}```", f"```\n{other}```"))) as server:
        config = config_for(server, use_n=True)
        result = await regenerate(config, MESSAGES, 2, "python", NAME)
    assert [s.code for s in result.accepted] == [GOOD, other]
    assert [s.label for s in result.accepted] == ["codegen-test #1", "codegen-test #2"]


async def test_list_models_and_its_errors() -> None:
    with ChatServer(model="qwen2.5-coder") as server:
        assert await list_models(config_for(server)) == ["qwen2.5-coder"]
    with pytest.raises(ProviderError, match="connection refused"):
        await list_models(ProviderConfig(base_url=f"http://127.0.0.1:{closed_port()}/v1"))


def test_config_from_settings() -> None:
    config = ProviderConfig.from_settings(
        {
            "baseUrl": "http://localhost:11434/v1",
            "model": "qwen2.5-coder:7b",
            "apiKeyEnv": "",
            "temperature": 0.2,
            "samples": 7,
            "seed": None,
            "timeout": 30,
        }
    )
    assert config.base_url == "http://localhost:11434/v1"
    assert config.endpoint == "http://localhost:11434/v1/chat/completions"
    assert (config.model, config.api_key_env, config.temperature) == ("qwen2.5-coder:7b", None, 0.2)
    assert (config.versions, config.seed, config.timeout) == (7, None, 30)
    assert ProviderConfig.from_settings({}).api_key_env == "OPENAI_API_KEY"
    assert config.api_key() is None


async def test_a_failing_callback_surfaces_as_itself() -> None:
    with ChatServer(default=code_answer(GOOD)) as server:

        def on_version(index: int, outcome: Outcome) -> None:
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            await regenerate(config_for(server), MESSAGES, 2, "python", NAME, on_version=on_version)


async def test_local_endpoints_bypass_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("NO_PROXY", "")
    with ChatServer(default=code_answer(GOOD)) as server:
        result = await regenerate(config_for(server), MESSAGES, 1, "python", NAME)
    assert result.ok and len(server.chat_requests) == 1


async def test_cut_off_answers_say_so() -> None:
    cut = Answer(
        ("```python\ndef has_close_elements(numbers, threshold):\n    return (",), "length"
    )
    with ChatServer(default=cut) as server:
        result = await regenerate(config_for(server), MESSAGES, 1, "python", NAME)
    [rejected] = result.rejected
    assert rejected.reason == (
        "code does not parse: line 2 ('(' was never closed) "
        "(the answer was cut off at the token limit)"
    )
    assert rejected.describe().startswith("version 1: rejected — code does not parse")
    assert result.summary() == "0 of 1 version accepted; 1 answer was cut off at the token limit"


async def test_unreachable_endpoint_is_not_asked_again() -> None:
    sent: list[str] = []

    async def count(request: httpx.Request) -> None:
        sent.append(str(request.url))

    config = ProviderConfig(
        base_url=f"http://127.0.0.1:{closed_port()}/v1", concurrency=1, timeout=2.0
    )
    async with httpx.AsyncClient(event_hooks={"request": [count]}) as client:
        result = await regenerate(config, MESSAGES, 6, "python", NAME, client=client)
    assert len(result.errors) == 6 and len({e.message for e in result.errors}) == 1
    assert len(sent) == 1


async def test_credentials_in_the_url_are_never_stored_or_shown() -> None:
    with ChatServer(script=[code_answer(GOOD)], default=server_error()) as server:
        secret_url = server.base_url.replace("http://", "http://user:hunter2@")
        config = config_for(server, base_url=secret_url, max_retries=0)
        result = await regenerate(config, MESSAGES, 2, "python", NAME)
    [version] = result.accepted
    assert version.provider == server.base_url
    [error] = result.errors
    assert "hunter2" not in error.message and server.base_url in error.message
    assert "hunter2" not in repr(result)
    assert server.chat_requests[0].authorization is not None  # sent, as basic auth


def test_default_endpoint_without_a_key_names_the_variable_and_local_servers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from codequorum.generate.endpoint import _status_message, _transport_message

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    unreachable = httpx.ConnectError("[Errno -2] Name or service not known")
    message = _transport_message(ProviderConfig(), unreachable)
    assert message.startswith("cannot reach https://api.openai.com/v1: unknown host, and "
                              "OPENAI_API_KEY is not set — to use a local server instead: "
                              "--base-url http://localhost:11434/v1 (Ollama), ")
    assert "llama.cpp" in message and "vLLM" in message and "--api-key-env \"\"" in message
    refused = _status_message(ProviderConfig(), httpx.Response(401, json={"error": "no key"}),
                              "https://api.openai.com/v1/chat/completions")
    assert refused.startswith("HTTP 401 from https://api.openai.com/v1/chat/completions: no "
                              "key — the environment variable OPENAI_API_KEY is not set; or "
                              "to use a local server instead: --base-url ")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert _transport_message(ProviderConfig(), unreachable) == (
        "cannot reach https://api.openai.com/v1: unknown host — is the server running?")


def test_summary_counts_one_version() -> None:
    from codequorum.generate.endpoint import RegenerationResult

    assert RegenerationResult(requested=1).summary() == "0 of 1 version accepted"


# --------------------------------------------------------------------------- endpoints as they are


async def test_a_one_slot_server_is_asked_one_request_at_a_time() -> None:
    # The server answers one request at a time and queues the rest; each answer takes
    # 0.4 s. Four at once with a 1 s timeout would leave the last ones waiting past it.
    late = slow(0.4, Answer((f"```python\n{GOOD}```",)))
    with ChatServer(default=late, slots=1) as server:
        config = config_for(server, timeout=1.0, max_retries=0)
        result = await regenerate(config, MESSAGES, 4, "python", NAME)
    assert result.concurrency == 1 and server.max_in_flight == 1
    # The timeout starts when a request is sent: the last one waited 1.2 s for its turn
    # on this side and still had its whole second.
    assert len(result.accepted) == 4 and not result.errors
    sent = [r.received for r in server.chat_requests]
    assert all(b - a >= 0.35 for a, b in itertools.pairwise(sent))


async def test_too_many_at_once_against_a_one_slot_server_says_why() -> None:
    # Answers at 0.6 s and 1.2 s come in time; the third would come at 1.8 s, past 1.5 s.
    late = slow(0.6, Answer((f"```python\n{GOOD}```",)))
    with ChatServer(default=late, slots=1) as server:
        config = config_for(server, timeout=1.5, max_retries=0, concurrency=4)
        result = await regenerate(config, MESSAGES, 4, "python", NAME)
    assert result.concurrency == 4 and server.max_in_flight == 1
    assert len(result.accepted) == 2 and len(result.errors) == 2
    assert result.summary() == "2 of 4 versions accepted; 2 timed out"
    assert result.errors[0].message.endswith(
        "(4 requests were sent at once; a server that answers one at a time keeps the others "
        "waiting: set concurrency to 1)")


async def test_slots_a_server_reports_decide_the_concurrency() -> None:
    late = slow(0.3, Answer((f"```python\n{GOOD}```",)))
    with ChatServer(default=late, slots=2, props=True) as server:
        result = await regenerate(config_for(server), MESSAGES, 4, "python", NAME)
    assert result.concurrency == 2 and server.max_in_flight == 2
    assert len(result.accepted) == 4
    [props] = [r for r in server.requests if r.method == "GET"]
    assert props.path == "/props"


async def test_concurrency_defaults_by_where_the_server_is() -> None:
    from codequorum.generate.endpoint import concurrency_for, is_self_hosted

    async with httpx.AsyncClient() as http:
        hosted = ProviderConfig(base_url="https://api.example.com/v1")
        assert await concurrency_for(hosted, http) == 4
        assert await concurrency_for(ProviderConfig(concurrency=3), http) == 3
        unreachable = ProviderConfig(base_url=f"http://127.0.0.1:{closed_port()}/v1")
        assert await concurrency_for(unreachable, http) == 1
    assert is_self_hosted("http://localhost:11434/v1") and is_self_hosted("http://[::1]:8080/v1")
    assert is_self_hosted("http://192.168.1.20:8000/v1") and is_self_hosted("http://gpu.local/v1")
    assert not is_self_hosted("https://api.openai.com/v1")
    assert not is_self_hosted("http://8.8.8.8/v1") and not is_self_hosted("not a url")


async def test_every_request_carries_a_token_bound() -> None:
    from codequorum.generate.endpoint import DEFAULT_MAX_TOKENS, answer_budget

    with ChatServer(default=code_answer(GOOD)) as server:
        await regenerate(config_for(server), MESSAGES, 1, "python", NAME)
        await regenerate(config_for(server), MESSAGES, 1, "python", NAME, budget=700)
        await regenerate(config_for(server, max_tokens=64), MESSAGES, 1, "python", NAME,
                         budget=700)
        result = await regenerate(config_for(server, max_tokens=0), MESSAGES, 1, "python", NAME)
    sent = [r.body.get("max_tokens") for r in server.chat_requests]
    assert sent == [DEFAULT_MAX_TOKENS, 700, 64, None] and result.max_tokens is None
    assert answer_budget("") == 256 and answer_budget("x" * 30_000) == 4096
    assert answer_budget("x" * 600) == 3 * 200 + 128


async def test_an_endpoint_that_wants_max_completion_tokens_gets_it() -> None:
    refusal = status(400, "Unsupported parameter: 'max_tokens' is not supported with this "
                     "model. Use 'max_completion_tokens' instead.")
    with ChatServer(script=[refusal], default=code_answer(GOOD)) as server:
        config = config_for(server, concurrency=1, max_retries=0)
        result = await regenerate(config, MESSAGES, 2, "python", NAME, budget=600)
    assert len(result.accepted) == 2
    bodies = [r.body for r in server.chat_requests]
    assert [("max_tokens" in b, b.get("max_completion_tokens")) for b in bodies] == [
        (True, None), (False, 600), (False, 600)]


async def test_failures_are_counted_by_kind() -> None:
    script: list[Behaviour] = [server_error("boom"), server_error("boom"), no_code(),
                               code_answer("def other():\n    pass\n"), code_answer(GOOD)]
    with ChatServer(script=script) as server:
        config = config_for(server, concurrency=1, max_retries=0)
        result = await regenerate(config, MESSAGES, 5, "python", NAME)
    assert [e.kind for e in result.errors] == ["refused", "refused"]
    assert [r.kind for r in result.rejected] == ["no code", "no function"]
    assert result.failure_counts() == ["2 refused: HTTP 500", "1 answer had no code",
                                       "1 answer had no function"]


def _result(accepted: int = 0, rejected: int = 0, errors: tuple[str, ...] = ()
            ) -> RegenerationResult:
    return RegenerationResult(
        accepted=[Version(code="def f(): pass", origin="regenerated")] * accepted,
        rejected=[Rejected(i, "no code", "") for i in range(rejected)],
        errors=[RequestError(i, message) for i, message in enumerate(errors)],
    )


def test_the_command_fails_only_without_an_accepted_version() -> None:
    assert failure_message(_result(accepted=1, rejected=2, errors=("down",)), "f") is None
    assert failure_message(_result(errors=("down", "down", "timed out")), "f") == (
        "down; timed out")
    assert failure_message(_result(rejected=1, errors=("down",)), "f") == (
        "no usable version of `f` arrived (1 failed, 1 answer was rejected)")
    assert failure_message(_result(), "f") == "no usable version of `f` arrived"
