"""``sample_versions`` against a real local model (llama-cpp-python's server with
SmolLM2-135M-Instruct): requests one at a time with a token bound, every answer accounted
for, accepted versions stored with where they came from."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from codequorum.core.parsing import function_by_name
from codequorum.generate.endpoint import answer_budget
from codequorum.ingest.store import VersionStore, default_store_path
from tests.agents.conftest import CLOSE, call, mcp_session, one_line_error
from tests.support.real_model import MODEL, RecordingProxy

pytestmark = pytest.mark.real_model


async def test_sample_versions_asks_the_local_model_at_the_defaults(
        close_ws: Path, real_model_proxy: RecordingProxy) -> None:
    flags = ["--base-url", real_model_proxy.base_url, "--model", MODEL, "--api-key-env", ""]
    async with mcp_session(close_ws, *flags) as session:
        result = await call(session, "sample_versions",
                            {"path": "src/close.py", "function": "has_close_elements",
                             "count": 3})

    # Three requests, one after the other, each bounded by the function's size.
    requests = real_model_proxy.chat_requests
    assert len(requests) == 3
    info = function_by_name(CLOSE, "python", "has_close_elements")
    assert info is not None
    assert {r.body["max_tokens"] for r in requests} == {answer_budget(info.text)}
    assert real_model_proxy.max_in_flight == 1 or any(
        b.started - a.started >= 59 for a, b in itertools.pairwise(requests))

    store = default_store_path(close_ws)
    if result.is_error:  # the small model wrote no usable version: said in one line
        message = one_line_error(result)
        assert "has_close_elements" in message or "version" in message
        assert not store.exists()  # nothing kept, no store made
        return
    got = result.structured_content
    assert isinstance(got, dict)
    assert got["requested"] == 3
    assert got["accepted"] + got["rejected"] + got["failed"] == 3 and got["accepted"] >= 1
    with VersionStore.open(store) as opened:
        rows = opened.versions_for("src/close.py", "has_close_elements")
    assert len(rows) == got["stored"] == got["accepted"]
    assert {(r.origin, r.model) for r in rows} == {("regenerated", MODEL)}
    assert all(r.code.lstrip().startswith("def has_close_elements(") for r in rows)
