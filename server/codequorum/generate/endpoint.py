"""Ask an OpenAI-compatible chat-completions endpoint for new versions of a function.

Works with anything that serves ``POST <base>/chat/completions``: OpenAI, Ollama, the
llama.cpp server, vLLM, LM Studio. By default N requests with ``n = 1`` and seeds
``seed + i`` run at most ``concurrency`` at a time: one at a time against a server on this
machine or the local network (which usually answers one request at a time and queues the
rest), as many as it has slots when it says so (llama.cpp's ``/props``), four against a
hosted API. With ``use_n`` one request asks for ``n`` choices (and missing choices are
topped up one by one, since many local servers ignore ``n``). Every request carries a
``max_tokens`` bound, so a runaway answer ends, and has ``timeout`` seconds from the moment
it is sent (time spent waiting for its turn does not count).

Nothing here raises for a bad endpoint or a bad answer: each request ends as an accepted
version, a rejected answer (with the reason, e.g. ``does not define `foo```), or an error
with a message a user can act on (``cannot reach http://127.0.0.1:9/v1: connection
refused — is the server running?``). The API key is read from the environment variable
the settings name, at request time, and is never stored.
"""

from __future__ import annotations

import asyncio
import email.utils
import inspect
import ipaddress
import math
import os
import random
import socket
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from codequorum.core.errors import UserError
from codequorum.core.model import Version
from codequorum.generate.answer_body import BodyTooLarge, answer_json, read_body
from codequorum.ingest.extract import extract_function

Message = dict[str, str]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
#: Requests at once against a hosted API when ``concurrency`` is not set.
HOSTED_CONCURRENCY = 4
#: At most this many requests at once when a server's slots decide.
MAX_DISCOVERED_CONCURRENCY = 8
#: ``max_tokens`` of a request when it is not set and nothing tells the function's size.
DEFAULT_MAX_TOKENS = 1024
#: Seconds a server on this machine has to say how many requests it serves at once.
_PROPS_TIMEOUT = 2.0
#: The most of a ``/props`` answer read (llama.cpp's is a few KB).
_PROPS_BYTES = 1024 * 1024
_LOCAL_SERVER_HINT = (
    "to use a local server instead: --base-url http://localhost:11434/v1 (Ollama), "
    "http://localhost:8080/v1 (llama.cpp) or http://localhost:8000/v1 (vLLM), with "
    "--api-key-env \"\" and --model NAME (in an editor: the settings "
    "codequorum.provider.baseUrl, apiKeyEnv and model)"
)


@dataclass(frozen=True)
class ProviderChoice:
    """What a user chooses of the endpoint that writes versions, with its defaults: the
    fields the client's :class:`ProviderConfig` and the editor's ``ProviderSettings`` share
    (each adds its own ``api_key_env``; both keep it a variable's *name*)."""

    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_MODEL
    temperature: float = 0.8
    versions: int = 5
    seed: int | None = None
    timeout: float = 60.0
    max_retries: int = 2
    use_n: bool = False
    concurrency: int | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class ProviderConfig(ProviderChoice):
    """Where and how to ask for versions. Holds the *name* of the key variable, never a key.

    ``timeout`` is seconds per request, counted from when it is sent; ``max_retries``
    counts extra attempts after a 429, a 5xx or a dropped connection; ``backoff`` is the
    first retry delay (doubled each time, capped at ``max_backoff``; a ``Retry-After``
    header wins, within the same cap). ``concurrency`` None: one at a time for a
    self-hosted server (or its slots, when it says), :data:`HOSTED_CONCURRENCY` for a
    hosted API. ``max_tokens`` None: bounded by the size of the function asked for
    (:meth:`token_limit`); 0: no bound sent.
    """

    api_key_env: str | None = DEFAULT_API_KEY_ENV
    backoff: float = 0.5
    max_backoff: float = 30.0

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> ProviderConfig:
        """Build from the ``codequorum.provider`` settings (camelCase keys, as in the schema).

        Accepts ``baseUrl``, ``model``, ``apiKeyEnv``, ``temperature``, ``samples``, ``seed``,
        ``timeout``, ``maxRetries``, ``useN``, ``concurrency``, ``maxTokens``; missing or
        null values keep the defaults (null ``seed``, ``concurrency`` and ``maxTokens`` mean
        none, automatic and automatic).
        """
        keys = {
            "baseUrl": "base_url",
            "model": "model",
            "apiKeyEnv": "api_key_env",
            "temperature": "temperature",
            "samples": "versions",
            "seed": "seed",
            "timeout": "timeout",
            "maxRetries": "max_retries",
            "useN": "use_n",
            "concurrency": "concurrency",
            "maxTokens": "max_tokens",
        }
        values: dict[str, Any] = {}
        for key, attr in keys.items():
            value = settings.get(key, settings.get(attr))
            if value is None and attr not in ("seed", "max_tokens"):
                continue
            values[attr] = value
        if values.get("api_key_env") == "":
            values["api_key_env"] = None
        return cls(**values)

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    @property
    def public_url(self) -> str:
        """The base URL without user, password or query (safe to show and to store)."""
        return _public(self.base_url)

    @property
    def public_endpoint(self) -> str:
        """The chat-completions URL as :attr:`public_url` shows it."""
        return self.public_url.rstrip("/") + "/chat/completions"

    def api_key(self) -> str | None:
        """The key from the environment, read now (None when unset or not configured)."""
        if not self.api_key_env:
            return None
        return os.environ.get(self.api_key_env) or None

    def token_limit(self, budget: int | None = None) -> int | None:
        """The ``max_tokens`` a request carries (None: none): the configured number, else
        ``budget`` (what the function asked for needs, :func:`answer_budget`), else
        :data:`DEFAULT_MAX_TOKENS`; a configured 0 sends none."""
        if self.max_tokens is None:
            return budget if budget is not None and budget > 0 else DEFAULT_MAX_TOKENS
        return self.max_tokens if self.max_tokens > 0 else None


def answer_budget(code: str) -> int:
    """A ``max_tokens`` for an answer that rewrites ``code``: three times its size in
    tokens (about three characters each) plus 128 for a fence and a line of prose, at
    least 256 and at most 4096. Answers that hold a good version stay well inside it (a
    small model's versions of a four-line function take 90 to 120 tokens, about twice the
    function); one that runs past it is rambling, and on a busy machine a small local
    model spends a minute on every 250 tokens of that."""
    tokens = math.ceil(len(code) / 3)
    return max(256, min(4096, 3 * tokens + 128))


#: How each kind of rejected answer is counted: (one, several).
REJECTION_WORDS: dict[str, tuple[str, str]] = {
    "cut off": ("answer was cut off at the token limit", "answers were cut off at the token limit"),
    "empty": ("answer was empty", "answers were empty"),
    "no code": ("answer had no code", "answers had no code"),
    "no function": ("answer had no function", "answers had no function"),
    "parse": ("answer did not parse", "answers did not parse"),
    "rejected": ("answer was rejected", "answers were rejected"),
}
#: How each kind of failed request is counted (after the number: ``4 timed out``).
ERROR_WORDS: dict[str, str] = {
    "timeout": "timed out",
    "unreachable": "could not connect",
    "refused": "refused",
    "dropped": "lost the connection",
    "bad answer": "not a chat completion",
    "failed": "failed",
}


def rejection_kind(reason: str, cut_off: bool = False) -> str:
    """The kind of a rejection (a key of :data:`REJECTION_WORDS`) from its reason."""
    if cut_off:
        return "cut off"
    for prefix, kind in (("empty", "empty"), ("no code", "no code"),
                         ("does not define", "no function"), ("code does not parse", "parse")):
        if reason.startswith(prefix):
            return kind
    return "rejected"


@dataclass(frozen=True)
class Rejected:
    """An answer that arrived but holds no usable version of the function; ``kind`` is
    a key of :data:`REJECTION_WORDS`."""

    index: int
    reason: str
    answer: str
    seed: int | None = None
    kind: str = "rejected"

    def describe(self) -> str:
        """One line for the user."""
        return f"version {self.index + 1}: rejected — {self.reason}"


@dataclass(frozen=True)
class RequestError:
    """A request that produced no answer (endpoint down, timeout, HTTP error, bad body);
    ``kind`` is a key of :data:`ERROR_WORDS`."""

    index: int
    message: str
    seed: int | None = None
    status: int | None = None
    kind: str = "failed"

    def describe(self) -> str:
        """One line for the user."""
        return f"version {self.index + 1}: {self.message}"

    def counted(self) -> str:
        """How this failure is counted: ``timed out``, ``refused: HTTP 500``."""
        words = ERROR_WORDS.get(self.kind, "failed")
        if self.kind == "refused" and self.status is not None:
            return f"{words}: HTTP {self.status}"
        return words


Outcome = Version | Rejected | RequestError
Choice = tuple[str | None, str | None]  # (message text, finish_reason)
OnVersion = Callable[[int, Outcome], Awaitable[None] | None]


@dataclass
class RegenerationResult:
    """What came back: accepted versions (in request order), rejections, errors; the
    requests that were in flight at once (``concurrency``) and the ``max_tokens`` each
    carried (None: none)."""

    accepted: list[Version] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    errors: list[RequestError] = field(default_factory=list)
    cancelled: bool = False
    requested: int = 0
    concurrency: int = 1
    max_tokens: int | None = None

    @property
    def ok(self) -> bool:
        """True when at least one version was accepted."""
        return bool(self.accepted)

    def error_summary(self) -> str | None:
        """The distinct error messages in one line (None when there were none)."""
        seen: list[str] = []
        for err in self.errors:
            if err.message not in seen:
                seen.append(err.message)
        return "; ".join(seen) if seen else None

    def failure_tally(self) -> dict[str, int]:
        """How many failures of each kind, failed requests first: the failed requests by
        :meth:`RequestError.counted` (``timed out``, ``refused: HTTP 500``), the rejected
        answers by kind (a key of :data:`REJECTION_WORDS`)."""
        tally: dict[str, int] = {}
        for err in self.errors:
            tally[err.counted()] = tally.get(err.counted(), 0) + 1
        for rejected in self.rejected:
            key = rejected.kind if rejected.kind in REJECTION_WORDS else "rejected"
            tally[key] = tally.get(key, 0) + 1
        return tally

    def failure_counts(self) -> list[str]:
        """Every failure counted by kind, failed requests first: ``4 timed out``,
        ``1 refused: HTTP 500``, ``2 answers had no function``."""
        parts: list[str] = []
        for key, n in self.failure_tally().items():
            words = REJECTION_WORDS.get(key)
            parts.append(f"{n} {key if words is None else words[0] if n == 1 else words[1]}")
        return parts

    def summary(self) -> str:
        """E.g. ``1 of 5 versions accepted; 3 timed out, 1 answer had no function``."""
        noun = "version" if self.requested == 1 else "versions"
        text = f"{len(self.accepted)} of {self.requested} {noun} accepted"
        counts = self.failure_counts()
        if counts:
            text += "; " + ", ".join(counts)
        if self.cancelled:
            text += " (cancelled)"
        return text


def failure_message(result: RegenerationResult, name: str) -> str | None:
    """Why the command fails when no version was accepted (None when one was): the
    endpoint's errors when every request failed, else that no usable version came and
    why (the failures counted by kind)."""
    if result.accepted:
        return None
    if result.errors and not result.rejected:
        return result.error_summary() or "no version arrived"
    counts = result.failure_counts()
    why = f" ({', '.join(counts)})" if counts else ""
    return f"no usable version of `{name}` arrived{why}"


class _Failure(Exception):
    """One attempt failed; ``retry`` says whether another attempt may help."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "failed",
        retry: bool = False,
        status: int | None = None,
        wait: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.retry = retry
        self.status = status
        self.wait = wait


async def regenerate(
    config: ProviderConfig,
    messages: Sequence[Message],
    n: int | None,
    language: str,
    name: str,
    *,
    budget: int | None = None,
    cancel: asyncio.Event | None = None,
    on_version: OnVersion | None = None,
    client: httpx.AsyncClient | None = None,
) -> RegenerationResult:
    """Ask for ``n`` versions (``config.versions`` when None) of function ``name``.

    ``budget`` is the ``max_tokens`` the function needs when the configuration sets none
    (:func:`answer_budget` of its current code). Every answer is validated with
    :func:`extract_function`; ``on_version(index, outcome)`` (sync or async) is called as
    each outcome arrives so callers can store versions and report progress. Setting
    ``cancel`` stops pending requests and returns what arrived.
    """
    count = config.versions if n is None else n
    result = RegenerationResult(requested=max(0, count), max_tokens=config.token_limit(budget))
    if count <= 0:
        return result
    own_client = client is None
    http = client or httpx.AsyncClient(
        timeout=_timeout(config),
        limits=httpx.Limits(max_connections=config.concurrency or MAX_DISCOVERED_CONCURRENCY),
        trust_env=not is_local(config.base_url),
    )
    session = _Exchange(config, list(messages), language, name, http, result, on_version)
    try:
        await _run_until_cancelled(session.run(count), cancel, result)
    finally:
        if own_client:
            await http.aclose()
    result.accepted = [s for _, s in sorted(session.accepted, key=lambda p: p[0])]
    result.rejected.sort(key=lambda r: r.index)
    result.errors.sort(key=lambda e: e.index)
    return result


async def concurrency_for(config: ProviderConfig, http: httpx.AsyncClient) -> int:
    """How many requests go out at once: the configured number; else, for a server on
    this machine or the local network, the slots it says it has (llama.cpp's ``/props``
    ``total_slots``, at most :data:`MAX_DISCOVERED_CONCURRENCY`) or one; else
    :data:`HOSTED_CONCURRENCY`."""
    if config.concurrency is not None:
        return max(1, config.concurrency)
    if not is_self_hosted(config.base_url):
        return HOSTED_CONCURRENCY
    slots = await _server_slots(config, http)
    return max(1, min(slots or 1, MAX_DISCOVERED_CONCURRENCY))


def is_self_hosted(base_url: str) -> bool:
    """True for a server on this machine or the local network (loopback, private and
    link-local addresses, ``localhost`` and ``.local`` names): most of them answer one
    request at a time."""
    try:
        host = httpx.URL(base_url).host
    except (httpx.InvalidURL, TypeError):
        return False
    if host == "localhost" or host.endswith((".localhost", ".local")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


async def _server_slots(config: ProviderConfig, http: httpx.AsyncClient) -> int | None:
    """The requests a llama.cpp server serves at once (``GET <root>/props``, where the
    base URL ends in ``/v1``), or None when it does not say."""
    base = config.base_url.rstrip("/")
    if not base.endswith("/v1"):
        return None
    try:
        async with asyncio.timeout(_PROPS_TIMEOUT):
            async with http.stream("GET", base[: -len("/v1")] + "/props",
                                   headers=_headers(config)) as streamed:
                response = await read_body(streamed, _PROPS_BYTES)
        data = answer_json(response) if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, TimeoutError, BodyTooLarge):
        return None
    slots = data.get("total_slots") if isinstance(data, dict) else None
    return slots if isinstance(slots, int) and not isinstance(slots, bool) and slots > 0 else None


async def list_models(config: ProviderConfig) -> list[str]:
    """The model ids the endpoint offers (``GET <base>/models``), to check a configuration.

    Raises :class:`ProviderError` with a user-facing message when the endpoint fails.
    """
    url = config.base_url.rstrip("/") + "/models"
    shown = config.public_url.rstrip("/") + "/models"
    async with httpx.AsyncClient(
        timeout=_timeout(config), trust_env=not is_local(config.base_url)
    ) as http:
        try:
            async with asyncio.timeout(config.timeout):
                async with http.stream("GET", url, headers=_headers(config)) as streamed:
                    response = await read_body(streamed)
        except TimeoutError as exc:
            raise ProviderError(_timeout_text(config, False)) from exc
        except BodyTooLarge as exc:
            raise ProviderError(f"{shown}: {exc}") from exc
        except httpx.HTTPError as exc:
            raise ProviderError(_transport_message(config, exc)) from exc
    if response.status_code != 200:
        raise ProviderError(_status_message(config, response, shown))
    try:
        data = answer_json(response)
        return [str(m["id"]) for m in data["data"]]
    except (ValueError, KeyError, TypeError) as exc:
        message = f"{shown} did not answer with a model list: {_snippet(response)}"
        raise ProviderError(message) from exc


class ProviderError(UserError):
    """A configuration check failed; the message is fit to show as is."""


# --------------------------------------------------------------------------- internals


async def _run_until_cancelled(
    work: Awaitable[None], cancel: asyncio.Event | None, result: RegenerationResult
) -> None:
    main = asyncio.ensure_future(work)
    if cancel is None:
        await main
        return
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({main, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if not main.done():
            result.cancelled = True
            main.cancel()
        await asyncio.gather(main, return_exceptions=True)
        error = None if main.cancelled() else main.exception()
        if error is not None:
            raise error
    finally:
        waiter.cancel()
        if not main.done():
            main.cancel()
            await asyncio.gather(main, return_exceptions=True)


@dataclass
class _Exchange:
    """One regeneration's conversation with the endpoint: the request it sends, the client
    it sends it with, and where the answers go."""

    config: ProviderConfig
    messages: list[Message]
    language: str
    name: str
    http: httpx.AsyncClient
    result: RegenerationResult
    on_version: OnVersion | None
    accepted: list[tuple[int, Version]] = field(default_factory=list)
    unreachable: str | None = None
    #: The body key of the token bound: ``max_tokens``, or ``max_completion_tokens`` for an
    #: endpoint that refuses the older name.
    token_key: str = "max_tokens"

    async def run(self, count: int) -> None:
        """All requests, at most :func:`concurrency_for` at once; outcomes recorded as
        they come."""
        self.result.concurrency = await concurrency_for(self.config, self.http)
        semaphore = asyncio.Semaphore(self.result.concurrency)
        indices = list(range(count))
        if self.config.use_n and count > 1:
            answered = await self._request_many(indices)
            indices = [i for i in indices if i not in answered]

        async def one(i: int) -> None:
            async with semaphore:
                await self._request_many([i])

        try:
            async with asyncio.TaskGroup() as group:
                for i in indices:
                    group.create_task(one(i))
        except BaseExceptionGroup as group_error:
            # Only ``on_version`` can raise here (requests record their own errors):
            # hand the caller its own exception, not a group.
            raise group_error.exceptions[0] from None

    def _seed(self, index: int) -> int | None:
        return None if self.config.seed is None else self.config.seed + index

    async def _request_many(self, indices: list[int]) -> set[int]:
        """One request for ``len(indices)`` choices; returns the indices that got an outcome.

        Errors are recorded for every index; choices are matched to indices in order.
        """
        first = indices[0]
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": self.messages,
            "temperature": self.config.temperature,
            "stream": False,
        }
        if len(indices) > 1:
            body["n"] = len(indices)
        seed = self._seed(first)
        if seed is not None:
            body["seed"] = seed
        try:
            texts = await self._post_with_retries(body)
        except _Failure as failure:
            for i in indices:
                error = RequestError(i, failure.message, self._seed_for(i, first),
                                     failure.status, failure.kind)
                await self._emit(i, error)
            return set(indices)
        done: set[int] = set()
        for i, (text, finish) in zip(indices, texts, strict=False):
            await self._emit(i, self._judge(i, text, finish, self._seed_for(i, first)))
            done.add(i)
        return done

    def _seed_for(self, index: int, first: int) -> int | None:
        # With one request for n choices, every choice shares the request's seed.
        return self._seed(first) if self.config.use_n else self._seed(index)

    def _judge(self, index: int, text: str | None, finish: str | None, seed: int | None) -> Outcome:
        cut_off = finish == "length"
        cut = " (the answer was cut off at the token limit)" if cut_off else ""
        if text is None or not text.strip():
            return Rejected(index, "empty answer" + cut, text or "", seed,
                            rejection_kind("empty", cut_off))
        extracted = extract_function(text, self.language, self.name)
        if not extracted.ok or extracted.code is None:
            reason = extracted.reason or "rejected"
            return Rejected(index, reason + cut, text, seed, rejection_kind(reason, cut_off))
        return Version(
            code=extracted.code,
            origin="regenerated",
            label=f"{self.config.model} #{index + 1}",
            provider=self.config.public_url,
            model=self.config.model,
            temperature=self.config.temperature,
            seed=seed,
        )

    async def _emit(self, index: int, outcome: Outcome) -> None:
        if isinstance(outcome, Version):
            self.accepted.append((index, outcome))
            self.result.accepted.append(outcome)
        elif isinstance(outcome, Rejected):
            self.result.rejected.append(outcome)
        else:
            self.result.errors.append(outcome)
        if self.on_version is not None:
            maybe = self.on_version(index, outcome)
            if inspect.isawaitable(maybe):
                await maybe

    async def _post_with_retries(self, body: dict[str, Any]) -> list[Choice]:
        attempts = max(0, self.config.max_retries) + 1
        for attempt in range(attempts):
            if self.unreachable is not None:
                raise _Failure(self.unreachable, kind="unreachable")
            try:
                return await self._post_bounded(body)
            except _Failure as failure:
                if not failure.retry or attempt == attempts - 1:
                    if failure.retry and attempts > 1:
                        failure.message += f" (after {attempts} attempts)"
                    raise
                await asyncio.sleep(self._delay(attempt, failure.wait))
        raise AssertionError("unreachable")  # pragma: no cover

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        cap = self.config.max_backoff
        if retry_after is not None:
            return min(max(0.0, retry_after), cap)
        base = self.config.backoff * (2.0**attempt)
        return min(base * (1 + 0.1 * random.random()), cap)

    async def _post_bounded(self, body: dict[str, Any]) -> list[Choice]:
        """One attempt with the token bound under the name the endpoint takes: one that
        refuses ``max_tokens`` and names ``max_completion_tokens`` (newer hosted models) is
        asked again at once with that name, and so is every later request."""
        limit = self.result.max_tokens
        sent = dict(body) if limit is None else {**body, self.token_key: limit}
        try:
            return await self._post(sent)
        except _Failure as failure:
            if not (failure.status == 400 and self.token_key == "max_tokens"
                    and limit is not None and "max_completion_tokens" in failure.message):
                raise
        self.token_key = "max_completion_tokens"
        return await self._post({**body, self.token_key: limit})

    async def _post(self, body: dict[str, Any]) -> list[Choice]:
        """One request; its ``timeout`` starts now, when it is sent."""
        config = self.config
        try:
            async with asyncio.timeout(config.timeout):
                async with self.http.stream("POST", config.endpoint, json=body,
                                            headers=_headers(config)) as streamed:
                    response = await read_body(streamed)
        except BodyTooLarge as exc:
            raise _Failure(f"{exc} from {config.public_endpoint}", kind="bad answer") from exc
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise _Failure(self._timeout_message(exc), kind="timeout") from exc
        except httpx.ConnectError as exc:
            # The endpoint is unreachable: requests not yet sent will fail the same way.
            self.unreachable = _transport_message(config, exc)
            raise _Failure(self.unreachable, kind="unreachable") from exc
        except httpx.HTTPError as exc:
            # Dropped connections and protocol errors are often transient.
            raise _Failure(_transport_message(config, exc), kind="dropped", retry=True) from exc
        code = response.status_code
        if code == 429 or code >= 500:
            raise _Failure(
                _status_message(config, response, config.public_endpoint),
                kind="refused",
                retry=True,
                status=code,
                wait=_retry_after(response),
            )
        if code != 200:
            raise _Failure(_status_message(config, response, config.public_endpoint),
                           kind="refused", status=code)
        try:
            data = answer_json(response)
        except ValueError as exc:
            raise _Failure(
                f"the answer from {config.public_endpoint} is not JSON: {_snippet(response)}",
                kind="bad answer",
                status=code,
            ) from exc
        return _choice_texts(data, config.public_endpoint)

    def _timeout_message(self, exc: BaseException) -> str:
        """The timeout's message; with several requests at once, the likely cause."""
        connect = isinstance(exc, httpx.ConnectTimeout)
        text = _timeout_text(self.config, connect)
        if self.result.concurrency > 1 and not connect:
            text += (f" ({self.result.concurrency} requests were sent at once; a server that"
                     " answers one at a time keeps the others waiting: set concurrency to 1)")
        return text


def _choice_texts(data: Any, endpoint: str) -> list[Choice]:
    """(assistant message text, finish reason) per choice of a chat-completions body."""
    if isinstance(data, dict) and isinstance(data.get("error"), dict | str):
        err = data["error"]
        message = err.get("message", err) if isinstance(err, dict) else err
        raise _Failure(f"{endpoint} answered with an error: {message}", kind="refused")
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices:
        raise _Failure(f"the answer from {endpoint} has no choices", kind="bad answer")
    texts: list[Choice] = []
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if content is None and isinstance(choice, dict) and isinstance(choice.get("text"), str):
            content = choice["text"]  # legacy completions shape
        if isinstance(content, list):  # content parts
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        texts.append(
            (
                content if isinstance(content, str) else None,
                finish if isinstance(finish, str) else None,
            )
        )
    return texts


def _public(url: str) -> str:
    """``url`` without credentials or query string (they may carry secrets)."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return url.split("?", 1)[0].split("@")[-1]
    if not parsed.userinfo and not parsed.query:
        return url
    return str(parsed.copy_with(username=None, password=None, query=None))


def is_local(base_url: str) -> bool:
    """True for loopback endpoints, which must never be sent through an HTTP proxy."""
    try:
        host = httpx.URL(base_url).host
    except (httpx.InvalidURL, TypeError):
        return False
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")


def _headers(config: ProviderConfig) -> dict[str, str]:
    headers = {"Accept": "application/json"}
    key = config.api_key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def _timeout(config: ProviderConfig) -> httpx.Timeout:
    # The request's own deadline (``asyncio.timeout`` around it) decides; httpx's read
    # timeout only backs it up.
    return httpx.Timeout(config.timeout + 1.0, connect=min(config.timeout, 10.0))


def _timeout_text(config: ProviderConfig, connecting: bool) -> str:
    what = "connecting to" if connecting else "waiting for an answer from"
    return f"timed out after {config.timeout:g} s {what} {config.public_url}"


#: What a local server that dies on its first answer usually lacks (docs/providers.md).
_CRASH_HINT = ("a llama.cpp build that dies on its first answer was built for instructions this "
               "CPU does not execute: rebuild it portable or start it with --no-repack")


def _transport_message(config: ProviderConfig, exc: httpx.HTTPError) -> str:
    base = config.public_url
    if isinstance(exc, httpx.TimeoutException):
        return _timeout_text(config, isinstance(exc, httpx.ConnectTimeout))
    if isinstance(exc, httpx.ConnectError):
        env = config.api_key_env
        if config.base_url.rstrip("/") == DEFAULT_BASE_URL and env and not os.environ.get(env):
            return (f"cannot reach {base}: {_connect_reason(exc)}, and {env} is not set"
                    f" — {_LOCAL_SERVER_HINT}")
        return f"cannot reach {base}: {_connect_reason(exc)} — is the server running?"
    if isinstance(exc, httpx.RemoteProtocolError):
        return (f"{base} closed the connection without an answer: if the server stopped, its "
                f"log says why ({_CRASH_HINT})")
    if isinstance(exc, httpx.UnsupportedProtocol):
        return f"the base URL {base!r} is not an http(s) URL"
    return f"request to {base} failed: {exc or type(exc).__name__}"


def _connect_reason(exc: BaseException) -> str:
    """Why a connection failed, from the exception chain (httpx wraps the OS error)."""
    seen: BaseException | None = exc
    texts: list[str] = []
    while seen is not None and len(texts) < 10:
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        if isinstance(seen, socket.gaierror):
            return "unknown host"
        texts.append(str(seen).lower())
        seen = seen.__cause__ or seen.__context__
    joined = " ".join(texts)
    if "refused" in joined:
        return "connection refused"
    if "name or service" in joined or "nodename" in joined or "name resolution" in joined:
        return "unknown host"
    if "unreachable" in joined:
        return "network unreachable"
    return str(exc) or "connection failed"


def _status_message(config: ProviderConfig, response: httpx.Response, url: str) -> str:
    code = response.status_code
    detail = _error_detail(response)
    text = f"HTTP {code} from {url}"
    if detail:
        text += f": {detail}"
    if code in (401, 403):
        env = config.api_key_env
        if not env:
            text += " — the endpoint wants an API key; set provider.apiKeyEnv"
        elif not os.environ.get(env):
            text += f" — the environment variable {env} is not set"
            if config.base_url.rstrip("/") == DEFAULT_BASE_URL:
                text += f"; or {_LOCAL_SERVER_HINT}"
        else:
            text += f" — check the API key in {env}"
    elif code == 404:
        text += f" — check the base URL and the model name {config.model!r}"
    elif response.is_redirect:
        text += f" — {redirect_words(response)}"
    return text


def redirect_words(response: httpx.Response) -> str:
    """What a redirect is told as: it is never followed, since the user's code and key go
    only where the user pointed them; the origin it names, if the user trusts it, is
    theirs to set as the base URL."""
    try:
        target = response.request.url.join(response.headers.get("location", ""))
        origin = f"{target.scheme}://{target.netloc.decode('ascii')}"
    except (httpx.InvalidURL, UnicodeDecodeError, RuntimeError):
        return "a redirect, not followed"
    return (f"a redirect to {_public(origin)}, not followed (the code and the key go only to"
            " the base URL you set: set it to that server if you trust it)")


def _error_detail(response: httpx.Response) -> str:
    try:
        data = answer_json(response)
    except ValueError:
        return _snippet(response) if response.content else ""
    if isinstance(data, dict):
        err = data.get("error", data.get("message", ""))
        if isinstance(err, dict):
            return str(err.get("message", "")).strip()
        return str(err).strip()
    return ""


def _snippet(response: httpx.Response, limit: int = 80) -> str:
    text = " ".join(response.text.split())
    if not text:
        return "(empty body)"
    return repr(text[:limit] + ("…" if len(text) > limit else ""))


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    ms = response.headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
        return seconds if math.isfinite(seconds) else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
