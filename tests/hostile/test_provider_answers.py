"""A hostile model endpoint (a real HTTP server on 127.0.0.1): answers that never end,
bodies past any answer's size, and redirects to a server the user never named."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from codequorum.core.limits import MAX_ANSWER_BODY_BYTES
from codequorum.generate.endpoint import ProviderConfig, ProviderError, list_models, regenerate
from codequorum.generate.proposed_inputs import propose_inputs
from tests.support.chat_server import ChatServer, Flood, Raw, Redirect, Trickle, code_answer

MESSAGES = [{"role": "user", "content": "Write total."}]
GOOD = "def total(xs):\n    return sum(xs)\n"
KEY_ENV = "CODEQUORUM_HOSTILE_KEY"
SECRET = "sk-users-own-secret"
#: Long enough for a failing run to show, never reached by a passing one.
GUARD = 60.0


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    """A thread for the blocking client, shut down after the servers of the test stop."""
    with ThreadPoolExecutor(1) as executor:
        yield executor


def config_for(server: ChatServer, **overrides: object) -> ProviderConfig:
    values: dict[str, object] = {"base_url": server.base_url, "model": "m",
                                 "api_key_env": KEY_ENV, "versions": 1, "timeout": 1.0,
                                 "max_retries": 0, "concurrency": 1}
    values.update(overrides)
    return ProviderConfig(**values)  # type: ignore[arg-type]


async def one_version(config: ProviderConfig) -> tuple[int, list[str]]:
    result = await asyncio.wait_for(regenerate(config, MESSAGES, 1, "python", "total"), GUARD)
    return len(result.accepted), [e.message for e in result.errors]


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "until-close"])
async def test_an_answer_past_the_body_bound_is_refused_unread(declared: bool) -> None:
    size = 4 * MAX_ANSWER_BODY_BYTES
    with ChatServer(default=Flood(size, declared)) as server:
        accepted, errors = await one_version(config_for(server, timeout=30.0))
        written = server.flooded
    assert accepted == 0
    assert len(errors) == 1 and "larger than" in errors[0], errors
    assert written < 2 * MAX_ANSWER_BODY_BYTES


async def test_an_answer_that_never_ends_ends_at_the_timeout() -> None:
    with ChatServer(default=Trickle(0.1)) as server:
        accepted, errors = await one_version(config_for(server))
    assert accepted == 0
    assert len(errors) == 1 and "timed out after 1 s" in errors[0], errors


async def test_a_server_whose_slots_never_finish_answering_is_asked_anyway() -> None:
    with ChatServer(default=code_answer(GOOD), gets={"/props": Trickle(0.1)}) as server:
        accepted, errors = await one_version(config_for(server, concurrency=None))
        asked = len(server.chat_requests)
    assert (accepted, errors, asked) == (1, [], 1)


async def test_a_redirect_elsewhere_gets_neither_the_code_nor_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    with ChatServer(default=code_answer(GOOD)) as elsewhere:
        target = elsewhere.base_url + "/chat/completions"
        with ChatServer(default=Redirect(target)) as server:
            accepted, errors = await one_version(config_for(server))
            first = server.chat_requests[0].authorization
        reached = elsewhere.requests
    assert first == f"Bearer {SECRET}"
    assert reached == []
    assert accepted == 0
    assert len(errors) == 1 and f"redirect to {elsewhere.url}" in errors[0], errors


async def test_the_model_list_of_an_answer_that_never_ends_ends_at_the_timeout() -> None:
    with (ChatServer(gets={"/v1/models": Trickle(0.1)}) as server,
          pytest.raises(ProviderError, match="timed out after 1 s")):
        await asyncio.wait_for(list_models(config_for(server)), GUARD)


def test_proposed_inputs_from_an_answer_that_never_ends(pool: ThreadPoolExecutor) -> None:
    with ChatServer(default=Trickle(0.1)) as server:
        asked = pool.submit(propose_inputs, config_for(server), GOOD, "total", 1)
        found = asked.result(timeout=GUARD)
    assert found.failed and found.args == []
    assert found.notes == [f"no inputs from the model at {server.base_url}: "
                           "no answer within 1 s"]


def test_proposed_inputs_from_an_answer_past_the_bound(pool: ThreadPoolExecutor) -> None:
    with ChatServer(default=Flood(4 * MAX_ANSWER_BODY_BYTES, declared=False)) as server:
        asked = pool.submit(propose_inputs, config_for(server, timeout=30.0), GOOD, "total", 1)
        found = asked.result(timeout=GUARD)
        written = server.flooded
    assert found.failed and found.args == []
    assert len(found.notes) == 1 and "larger than" in found.notes[0], found.notes
    assert written < 2 * MAX_ANSWER_BODY_BYTES


DEEP = Raw(b"[" * 1_000_000, content_type="application/json")
#: 8 MB of empty objects: 2 GB once decoded.
COUNTLESS = Raw(b'{"choices": [' + b"{}," * 3_000_000 + b"{}]}", content_type="application/json")


@pytest.mark.parametrize("body", [DEEP, COUNTLESS], ids=["deep", "countless"])
async def test_an_answer_nested_past_any_json_is_one_error_per_version(body: Raw) -> None:
    with ChatServer(default=body) as server:
        accepted, errors = await one_version(config_for(server))
    assert accepted == 0
    assert len(errors) == 1 and "is not JSON" in errors[0], errors


async def test_a_model_list_nested_past_any_json_is_one_error() -> None:
    with (ChatServer(gets={"/v1/models": DEEP}) as server,
          pytest.raises(ProviderError, match="did not answer with a model list")):
        await asyncio.wait_for(list_models(config_for(server)), GUARD)


def test_proposed_inputs_nested_past_any_json_are_a_note(pool: ThreadPoolExecutor) -> None:
    with ChatServer(default=DEEP) as server:
        found = pool.submit(propose_inputs, config_for(server), GOOD, "total", 1).result(GUARD)
    assert found.failed and found.args == []
    assert found.notes == [f"no inputs from the model at {server.base_url}: no answer text "
                           "(not a chat completion)"]
