"""``codequorum mcp``: serve the agent tools over the Model Context Protocol on stdio.

The workspace is ROOT (default: the current folder, where MCP clients start their servers);
the tools read files and keep versions only inside it. Options take their defaults from the
configuration files as every command's do, under the same rules: a project's file can set
how functions are analysed, but never where the API key goes (``base-url``,
``api-key-env``: flags, the environment or the user's own file only).

Every option declares what it can do (:mod:`codequorum.options.policy`): a project's file
may set the analysis and how the endpoint is asked, never the endpoint, the key variable,
how hard the endpoint is asked, what an answer may cost or the sandbox's budget.
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codequorum.cli.analysis import from_request
from codequorum.core.errors import UserError
from codequorum.options.arguments import add_options
from codequorum.options.declarations import MCP

if TYPE_CHECKING:  # the agents' modules load only when the server starts
    from codequorum.agents.agent_workspace import AgentOptions

#: Default request timeout (seconds) of ``sample_versions``.
DEFAULT_REQUEST_TIMEOUT = 60.0


def register(subparsers: Any) -> None:
    """Add ``mcp`` to the command line."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "mcp",
        help="serve tools for coding agents over the Model Context Protocol (stdio)",
        description="Serve codequorum's agent tools (check_function, compare_versions, "
        "sample_versions) over the Model Context Protocol on standard input and output. "
        "MCP clients (Claude Code, VS Code, Cursor, ...) start it; see docs/agents.md.",
    )
    add_options(parser, "mcp")
    parser.set_defaults(func=run, config_from="root", keeps_serving=True)


@dataclass(frozen=True)
class McpRequest:
    """``codequorum mcp`` as asked, read from its arguments at its door."""

    root: Path                  # the workspace, resolved
    options: AgentOptions


def mcp_request(args: argparse.Namespace) -> McpRequest:
    """The request of ``codequorum mcp``, its root checked (:class:`UserError`)."""
    from codequorum.agents.agent_workspace import AgentOptions
    from codequorum.generate.endpoint import ProviderConfig

    root = (args.root or Path.cwd()).resolve()
    if not root.is_dir():
        raise UserError(f"{args.root}: not a folder")
    provider = ProviderConfig(
        base_url=args.base_url, model=args.model, api_key_env=args.api_key_env or None,
        temperature=args.temperature, versions=args.versions, timeout=args.request_timeout,
        concurrency=args.concurrency, max_tokens=args.max_tokens)
    options = AgentOptions(analysis=from_request(args, MCP), provider=provider,
                           context_lines=args.context_lines)
    return McpRequest(root, options)


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes the connection."""
    return run_mcp(mcp_request(args))


def run_mcp(request: McpRequest) -> int:
    """:func:`run` for a request read at the door."""
    import anyio

    from codequorum.agents.agent_workspace import AgentWorkspace
    from codequorum.agents.server import serve_stdio

    if not logging.getLogger().handlers:  # standard output is the protocol's: log to stderr
        logging.basicConfig(level=logging.WARNING, format="codequorum mcp: %(levelname)s: "
                            "%(name)s: %(message)s")
    anyio.run(serve_stdio, AgentWorkspace(request.root, request.options))
    return 0
