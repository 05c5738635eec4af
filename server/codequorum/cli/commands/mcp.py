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
from pathlib import Path
from typing import Any

from codequorum.cli.argtypes import at_least, positive, seconds
from codequorum.cli.endpoint import add_endpoint_options, auto_or
from codequorum.core.errors import UserError
from codequorum.generate.prompting import DEFAULT_CONTEXT_LINES
from codequorum.options.policy import Reach, declare

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
    parser.add_argument("root", nargs="?", type=Path, metavar="ROOT",
                        help="the workspace: files are read and versions kept only inside it "
                        "(default: the current folder)")
    analysis = parser.add_argument_group("analysis")
    declare(analysis.add_argument("--no-tsed", dest="tsed", action="store_false",
                                  help="skip TSED (tree edit distance; the slowest metric)"),
            Reach.ANALYSIS)
    declare(analysis.add_argument("--max-depth", type=at_least(1), default=30, metavar="D",
                                  help="deepest tree level counted (default 30)"),
            Reach.ANALYSIS)
    declare(analysis.add_argument("--timeout", type=seconds, default=10.0, metavar="SECONDS",
                                  help="check_function with dynamic: budget of one version "
                                  "in the sandbox (default 10)"), Reach.SANDBOX)
    _add_endpoint(parser.add_argument_group("endpoint of sample_versions"))
    parser.set_defaults(func=run, config_from="root")


def _add_endpoint(group: Any) -> None:
    """The user's endpoint and how ``sample_versions`` asks it."""
    add_endpoint_options(group)
    declare(group.add_argument("--samples", "-n", type=positive, default=5, metavar="N",
                               help="versions one call asks for when the agent names no count "
                               "(default: %(default)s)"), Reach.ANALYSIS)
    declare(group.add_argument("--temperature", type=float, default=0.8, metavar="T",
                               help="sampling temperature (default: %(default)s)"),
            Reach.ANALYSIS)
    declare(group.add_argument("--request-timeout", type=seconds,
                               default=DEFAULT_REQUEST_TIMEOUT, metavar="SECONDS",
                               help="seconds per request to the endpoint, counted from when it "
                               "is sent (default: %(default)g)"), Reach.ANALYSIS)
    declare(group.add_argument("--concurrency", type=auto_or(1), default=None, metavar="N",
                               help="requests at once (default: auto, as for sample)"),
            Reach.ENDPOINT_LOAD)
    declare(group.add_argument("--max-tokens", type=auto_or(0), default=None, metavar="N",
                               help="the most tokens one answer may have; 0 sends no bound "
                               "(default: auto, as for sample)"), Reach.TOKEN_SPEND)
    declare(group.add_argument("--context-lines", type=at_least(0),
                               default=DEFAULT_CONTEXT_LINES, metavar="N",
                               help="lines of the file around the function sent with the "
                               "prompt (default: %(default)s)"), Reach.ANALYSIS)


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes the connection."""
    import anyio

    from codequorum.agents.context import AgentOptions, AgentWorkspace
    from codequorum.agents.server import serve_stdio
    from codequorum.generate.endpoint import ProviderConfig

    root = (args.root or Path.cwd()).resolve()
    if not root.is_dir():
        raise UserError(f"{args.root}: not a folder")
    provider = ProviderConfig(
        base_url=args.base_url, model=args.model, api_key_env=args.api_key_env or None,
        temperature=args.temperature, samples=args.samples, timeout=args.request_timeout,
        concurrency=args.concurrency, max_tokens=args.max_tokens)
    options = AgentOptions(max_depth=args.max_depth, tsed=args.tsed,
                           dynamic_timeout=args.timeout, provider=provider,
                           context_lines=args.context_lines)
    if not logging.getLogger().handlers:  # standard output is the protocol's: log to stderr
        logging.basicConfig(level=logging.WARNING, format="codequorum mcp: %(levelname)s: "
                            "%(name)s: %(message)s")
    anyio.run(serve_stdio, AgentWorkspace(root, options))
    return 0
