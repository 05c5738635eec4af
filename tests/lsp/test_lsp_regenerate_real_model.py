"""The editor's regenerate command against a real local model (llama-cpp-python's server
with SmolLM2-135M-Instruct) over the real language server: at the default provider
settings, one request at a time, each with a token bound, versions stored with their
provider and model."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from codequorum.core.parsing import function_by_name
from codequorum.generate.endpoint import answer_budget
from tests.support.real_model import MODEL, RecordingProxy

from .conftest import lsp_session
from .helpers import hover_text, open_document, position_of

pytestmark = pytest.mark.real_model

SOURCE = '''def clamp(value: int, low: int, high: int) -> int:
    """Value limited to the range from low to high.

    >>> clamp(5, 0, 3)
    3
    """
    return max(low, min(value, high))


def double(x: int) -> int:
    """Twice x."""
    return 2 * x
'''


async def _execute(client: Any, name: str, *arguments: Any) -> Any:
    """``workspace/executeCommand`` with room for a slow machine (each answer of the small
    model takes seconds; five of them, one after the other)."""
    params = types.ExecuteCommandParams(command=name, arguments=list(arguments))
    return await asyncio.wait_for(client.workspace_execute_command_async(params), timeout=600)


async def test_regenerate_against_a_local_model_at_the_default_settings(
    real_model_proxy: RecordingProxy, workspace: Path
) -> None:
    options = {"provider": {"baseUrl": real_model_proxy.base_url, "model": MODEL,
                            "apiKeyEnv": "", "seed": 7}}
    async with lsp_session(workspace, init_options=options) as client:
        uri = open_document(client, workspace / "numbers.py", SOURCE)
        pos = position_of(SOURCE, "clamp")
        result = await _execute(client, "codequorum.regenerate", uri, pos)

        requests = real_model_proxy.chat_requests
        assert len(requests) == 5 == result["requested"]
        info = function_by_name(SOURCE, "python", "clamp")
        assert info is not None
        assert {r.body["max_tokens"] for r in requests} == {answer_budget(info.text)}
        assert all(b.started >= min(a.ended, a.started + 60) - 0.1
                   for a, b in itertools.pairwise(requests))
        user = requests[0].body["messages"][-1]["content"]
        assert "def double(x: int) -> int:" in user and "max(low, min(value" not in user

        # Every answer is counted: accepted, rejected with its reason, or failed.
        assert result["accepted"] + len(result["rejected"]) + len(result["errors"]) == 5
        message = result["message"]
        assert re.match(r"\d of 5 versions accepted", message), message
        assert result["status"] == "ok" and result["stored"] == result["accepted"] >= 1, result

        shown = await _execute(client, "codequorum.showVersion", uri, "clamp", 1)
        assert shown["code"].startswith("def clamp(")
        assert (shown["origin"], shown["model"], shown["provider"]) == (
            "regenerated", MODEL, real_model_proxy.base_url)
        text = await hover_text(client, uri, pos)
        assert text is not None and f"· {result['stored']} version" in text
