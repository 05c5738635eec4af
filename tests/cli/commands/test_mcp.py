"""``codequorum mcp``: its request, read from the parsed arguments at its door (the tools
are tested through the SDK's client in tests/agents/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codequorum.agents.agent_workspace import AgentOptions
from codequorum.cli.commands.mcp import McpRequest, mcp_request
from codequorum.cli.main import parse_arguments
from codequorum.core.errors import UserError
from codequorum.generate.endpoint import ProviderConfig
from codequorum.pipeline.config import AnalysisConfig


def test_the_request_is_read_from_the_parsed_arguments(tmp_path: Path) -> None:
    args = parse_arguments([
        "mcp", str(tmp_path), "--metrics", "tsed_08", "--max-depth", "11", "--timeout", "3",
        "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--api-key-env", "",
        "--samples", "2", "--temperature", "0.4", "--request-timeout", "12",
        "--concurrency", "3", "--max-tokens", "256", "--context-lines", "6", "--isolated"])
    provider = ProviderConfig(base_url="http://127.0.0.1:9/v1", model="m", api_key_env=None,
                              temperature=0.4, versions=2, timeout=12.0, concurrency=3,
                              max_tokens=256)
    assert mcp_request(args) == McpRequest(
        root=tmp_path.resolve(),
        options=AgentOptions(analysis=AnalysisConfig(max_depth=11, metrics=("tsed_08",),
                                                     timeout=3.0),
                             provider=provider, context_lines=6))


def test_a_root_that_is_not_a_folder_stops_at_the_door(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(UserError, match="not a folder"):
        mcp_request(parse_arguments(["mcp", str(tmp_path / "file"), "--isolated"]))
