"""Call inputs proposed by the model, for functions that give nothing else to run.

When a function has no tests, no doctest examples and no annotated parameters, nothing
says what to call it with. The configured chat-completions endpoint is asked for
*arguments only* — never expected outputs: agreement between versions on these inputs is
the evidence, as in CodeT — and the answer is accepted only as data
(:func:`ast.literal_eval`, or :func:`json.loads` for a language whose values are asked
as JSON: :class:`InputLanguage`), each input checked for arity and size. The inputs then run in
the sandbox like any other.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from codequorum.core import pyast
from codequorum.generate.answer_body import BodyTooLarge, answer_json, read_body_by
from codequorum.generate.endpoint import ProviderConfig, is_local
from codequorum.generate.input_language import PYTHON_INPUTS, InputLanguage

MAX_INPUT_CHARS = 2_000
MAX_ANSWER_CHARS = 50_000
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*\n(.*?)```", re.DOTALL)


@dataclass
class ProposedInputs:
    """Argument tuples accepted from the model, and why others were not; ``failed`` when
    the endpoint itself gave no usable answer (down, slow, an error status, not JSON)."""

    args: list[tuple[Any, ...]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: bool = False


def prompt_messages(source: str, entry: str, count: int,
                    language: InputLanguage = PYTHON_INPUTS) -> list[dict[str, str]]:
    """The chat messages asking for ``count`` argument tuples for ``entry``, a function of
    ``language``."""
    return [
        {
            "role": "system",
            "content": f"You write test inputs for {language.name} functions. Answer with "
            f"one {language.literal} and nothing else.",
        },
        {
            "role": "user",
            "content": (
                f"Here is a {language.name} function:\n\n```{language.fence}\n{source}\n"
                f"```\n\nPropose {count} different, valid calls of `{entry}` that exercise "
                "ordinary and edge cases within what the function is meant to accept. Give "
                "only the arguments, never the expected results: answer with "
                f"{language.calls}."
            ),
        },
    ]


def parse_inputs(text: str, arity: int, limit: int,
                 language: InputLanguage = PYTHON_INPUTS) -> ProposedInputs:
    """Argument tuples from an answer: literals only (Python's, or JSON for a language
    that asks for it), ``arity`` arguments each, at most ``limit``, duplicates dropped;
    everything else is noted and left out."""
    out = ProposedInputs()
    body = _literal_text(text[:MAX_ANSWER_CHARS])
    try:
        value = json.loads(body) if language.literal == "JSON array" else pyast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        out.notes.append(f"the model's answer is not a {language.literal}: no inputs taken")
        return out
    if not isinstance(value, (list, tuple)):
        out.notes.append("the model's answer is not a list: no inputs taken")
        return out
    seen: set[str] = set()
    for item in value:
        args = _as_args(item, arity)
        if args is None:
            shown = repr(item)[:80]
            out.notes.append(f"left out an input with the wrong number of arguments: {shown}")
            continue
        text_form = repr(args)
        if len(text_form) > MAX_INPUT_CHARS or text_form in seen:
            continue
        seen.add(text_form)
        out.args.append(args)
        if len(out.args) >= limit:
            break
    return out


def _literal_text(text: str) -> str:
    """The code fence's content if there is one, else the text from the first ``[``."""
    match = _FENCE.search(text)
    if match:
        return match.group(1).strip()
    start = text.find("[")
    end = text.rfind("]")
    return text[start : end + 1] if 0 <= start < end else text.strip()


def _as_args(item: Any, arity: int) -> tuple[Any, ...] | None:
    if arity == 1 and not (isinstance(item, tuple) and len(item) == 1):
        return (item,)
    if isinstance(item, (tuple, list)) and len(item) == arity:
        return tuple(item)
    return None


def propose_inputs(
    config: ProviderConfig, source: str, entry: str, arity: int, count: int = 8,
    language: InputLanguage = PYTHON_INPUTS,
) -> ProposedInputs:
    """Ask the endpoint for ``count`` calls of ``entry`` (source shown to the model).

    A failure of the endpoint (down, slow, an error status, garbage) is a note, never an
    exception: the analysis goes on without these inputs.
    """
    body: dict[str, Any] = {
        "model": config.model,
        "messages": prompt_messages(source, entry, count, language),
        "temperature": 0.0,
    }
    limit = config.token_limit()
    if limit is not None:
        body["max_tokens"] = limit
    headers = {"Accept": "application/json"}
    key = config.api_key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    where = f"no inputs from the model at {config.public_url}"
    deadline = time.monotonic() + config.timeout
    try:
        with httpx.stream(
            "POST",
            config.endpoint,
            json=body,
            headers=headers,
            timeout=httpx.Timeout(config.timeout, connect=min(config.timeout, 10.0)),
            trust_env=not is_local(config.base_url),
        ) as streamed:
            response = read_body_by(streamed, deadline)
    except BodyTooLarge as exc:
        return _failed(f"{where}: {exc}")
    except httpx.TimeoutException:
        return _failed(f"{where}: no answer within {config.timeout:g} s")
    except httpx.ConnectError:
        return _failed(f"{where}: cannot connect")
    except httpx.HTTPError as exc:
        return _failed(f"{where}: {type(exc).__name__}")
    if response.status_code != 200:
        return _failed(f"{where}: HTTP {response.status_code}")
    text = _content(response)
    if text is None:
        return _failed(f"{where}: no answer text (not a chat completion)")
    return parse_inputs(text, arity, count, language)


def _failed(note: str) -> ProposedInputs:
    return ProposedInputs(notes=[note], failed=True)


def _content(response: httpx.Response) -> str | None:
    try:
        data = answer_json(response)
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return content if isinstance(content, str) else None


def proposer_for(config: ProviderConfig, count: int = 8) -> Any:
    """A ``codequorum.behaviour.input_plan.Proposer`` that asks ``config``'s endpoint."""

    def propose(source: str, entry: str, arity: int, *,
                language: InputLanguage = PYTHON_INPUTS
                ) -> tuple[list[tuple[Any, ...]], list[str]]:
        found = propose_inputs(config, source, entry, arity, count, language)
        return found.args, found.notes

    return propose


class InputAsker:
    """A ``codequorum.behaviour.input_plan.Proposer`` for a whole run: asks ``config``'s
    endpoint set after set until it fails once (down, slow, an error status, not a chat
    completion); later sets are not asked and their note says why, so a dead endpoint costs
    one wait.

    ``failure`` is the first failure's note, ``asked`` the requests made, ``received``
    the inputs accepted."""

    def __init__(self, config: ProviderConfig, count: int = 8) -> None:
        self.config = config
        self.count = count
        self.failure: str | None = None
        self.asked = 0
        self.received = 0
        self._lock = threading.Lock()

    def __call__(
        self, source: str, entry: str, arity: int, *, language: InputLanguage = PYTHON_INPUTS
    ) -> tuple[list[tuple[Any, ...]], list[str]]:
        with self._lock:
            if self.failure is not None:
                return [], [f"{self.failure} (not asked again)"]
            self.asked += 1
        found = propose_inputs(self.config, source, entry, arity, self.count, language)
        with self._lock:
            if found.failed and self.failure is None:
                self.failure = found.notes[0]
            self.received += len(found.args)
        return found.args, found.notes
