"""The Model Context Protocol server: three tools a coding agent calls on code it just wrote.

Built on the SDK's low-level :class:`mcp.server.lowlevel.Server`, so each tool is one entry
of :data:`TOOLS` — its argument and result models (the ``inputSchema`` and
``outputSchema`` the client sees), what runs, and its readable text — and the handlers stay
thin:

- arguments are checked against the model before anything runs; a wrong type, a missing
  or unknown key, a value too large or too many versions is a protocol error
  (``-32602``, invalid params) with one line saying which argument and why;
- a failure the tool anticipates (a path outside the workspace, no such function, an
  endpoint that is down) is a tool result with ``isError`` and one line; anything else is
  logged with its traceback on standard error and answered with one line too;
- blocking work (parsing, metrics, the sandbox) runs on worker threads; progress goes to
  the client when it sent a progress token, and ``notifications/cancelled`` stops the
  work: sandboxed versions are killed, pending requests to the endpoint dropped.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)
from pydantic import BaseModel, ValidationError

from codequorum import __version__
from codequorum.agents.agent_workspace import AgentWorkspace, Cancelled, Progress
from codequorum.agents.check_tool import check_function
from codequorum.agents.compare_tool import compare_versions
from codequorum.agents.sample_tool import sample_versions
from codequorum.agents.schema import (
    CheckArgs,
    CheckResult,
    CompareArgs,
    CompareResult,
    SampleArgs,
    SampleResult,
)
from codequorum.agents.stdin import BoundedLines, claimed_stdin
from codequorum.agents.text import check_text, compare_text, sample_text
from codequorum.core.errors import UserError
from codequorum.core.safe_text import agent_text

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Longest one-line error message sent back.
MAX_MESSAGE_CHARS = 1000

INSTRUCTIONS = (
    "codequorum tells whether a function is a coin toss: it compares several versions of it "
    "(their shape, bytecode and, run in a sandbox, their outputs) and says how much they "
    "agree, which version to keep and how likely that one is wrong. After writing or "
    "changing a function, call check_function on it; when no versions are stored, "
    "sample_versions asks the user's configured model for some, and compare_versions scores "
    "versions you hold yourself."
)


@dataclass
class Call:
    """One tool call: the workspace, the progress callback (from any thread) and the event
    that stops the work when the client cancels."""

    ws: AgentWorkspace
    progress: Progress
    cancel: threading.Event


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name and words, its argument and result models, what runs and the
    readable text of a result."""

    name: str
    title: str
    description: str
    arguments: type[BaseModel]
    result: type[BaseModel]
    run: Callable[[Call, Any], Awaitable[BaseModel]]
    text: Callable[[Any], str]
    annotations: ToolAnnotations

    def tool(self) -> Tool:
        """The tool as ``tools/list`` shows it."""
        return Tool(name=self.name, title=self.title, description=self.description,
                    input_schema=self.arguments.model_json_schema(),
                    output_schema=self.result.model_json_schema(),
                    annotations=self.annotations)


async def in_thread(call: Call, work: Callable[[], T]) -> T:
    """``work()`` on a worker thread; when the call is cancelled, ``call.cancel`` is set so
    the work stops (the thread is not waited for)."""
    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        call.cancel.set()
        raise


async def _check(call: Call, args: CheckArgs) -> CheckResult:
    return await in_thread(call, lambda: check_function(call.ws, args, call.progress,
                                                        call.cancel))


async def _compare(call: Call, args: CompareArgs) -> CompareResult:
    return await in_thread(call, lambda: compare_versions(call.ws, args))


async def _sample(call: Call, args: SampleArgs) -> SampleResult:
    return await sample_versions(call.ws, args, call.progress)


TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    ToolSpec(
        name="check_function", title="Check a function against its versions",
        description="How stable one function of a file is: the file's current code compared "
        "with the versions of it kept in the workspace's store (.codequorum/), as the "
        "editor and `codequorum check` compare them. Gives the stability (mean structural "
        "similarity, 1 = identical shapes), the findings, the groups of versions, the "
        "version to keep and why, the probability that it is wrong and, with dynamic=true "
        "(versions run in the strict sandbox where the machine gives it, else the portable "
        "one), the input where "
        "the kept version and the others part ways. Reads only; writes nothing.",
        arguments=CheckArgs, result=CheckResult, run=_check,
        text=check_text,
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    ToolSpec(
        name="compare_versions", title="Compare versions of a function",
        description="Score two or more versions of one function that you hold, as "
        "`codequorum score` scores one sample set: agreement per metric (SCE, JSD, TSED, "
        "SCTD), groups of one shape, verdicts, the version to keep, the probability that it "
        "is wrong and where the set stands among HumanEval functions. The versions are only "
        "parsed, never run. Nothing is stored.",
        arguments=CompareArgs, result=CompareResult, run=_compare,
        text=compare_text,
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                    open_world_hint=False),
    ),
    ToolSpec(
        name="sample_versions", title="Get more versions of a function",
        description="Ask the user's configured model endpoint for new versions of one "
        "function of a file (the prompt `codequorum sample` uses) and keep the accepted "
        "ones in the workspace's store, where check_function finds them. Each answer is "
        "checked: it must define the function. Gives what was accepted, rejected (and why) "
        "or failed, and how many versions are stored now.",
        arguments=SampleArgs, result=SampleResult, run=_sample,
        text=sample_text,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                    idempotent_hint=False, open_world_hint=True),
    ),
)}


#: Reasons worded for an agent where pydantic's words are not ours.
_REASONS = {
    "extra_forbidden": "unknown argument",
    "missing": "missing argument",
}


def one_line(error: ValidationError, tool: str) -> str:
    """A validation error as one line: the first problem's argument and reason (never the
    value given), and how many more there are."""
    problems = error.errors(include_url=False, include_input=False)
    if not problems:
        return f"invalid arguments for {tool}"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "arguments"
    reason = _REASONS.get(str(first.get("type")),
                          str(first.get("msg", "invalid")).removeprefix("Value error, "))
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return agent_text(f"invalid arguments for {tool}: {where}: {reason}{more}",
                     MAX_MESSAGE_CHARS)


def error_result(message: str) -> CallToolResult:
    """A tool result that says the call failed, in one line."""
    return CallToolResult(content=[TextContent(type="text",
                                               text=agent_text(message, MAX_MESSAGE_CHARS))],
                          is_error=True)


class _Reporter:
    """Progress from any thread (the tool's, the sandbox pool's, or the event loop's) to
    the client, through a stream the call's task drains; ``done`` never goes back."""

    def __init__(self, send: MemoryObjectSendStream[tuple[float, float | None, str]]) -> None:
        self._send = send
        self._loop = threading.get_ident()
        self._token = anyio.lowlevel.current_token()
        self._done = 0.0
        self._lock = threading.Lock()

    def __call__(self, done: float, total: float | None, message: str) -> None:
        with self._lock:
            self._done = max(self._done, done)
            item = (self._done, total, agent_text(message, 200))
        try:
            if threading.get_ident() == self._loop:
                self._send.send_nowait(item)
            else:
                anyio.from_thread.run_sync(self._send.send_nowait, item, token=self._token)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.WouldBlock,
                RuntimeError):
            pass  # the call has ended: nobody waits for this progress any more


async def call_tool(ws: AgentWorkspace, ctx: Any, params: CallToolRequestParams
                    ) -> CallToolResult:
    """``tools/call``: check the arguments, run the tool, answer with its structured result
    and text, or with one line saying what went wrong."""
    spec = TOOLS.get(params.name)
    if spec is None:
        raise MCPError(INVALID_PARAMS, agent_text(f"unknown tool {params.name!r}; the tools are "
                                                 f"{', '.join(TOOLS)}", MAX_MESSAGE_CHARS))
    try:
        args = spec.arguments.model_validate(params.arguments or {})
    except ValidationError as exc:
        raise MCPError(INVALID_PARAMS, one_line(exc, spec.name)) from None
    send, receive = anyio.create_memory_object_stream[tuple[float, float | None, str]](1000)
    call = Call(ws, _Reporter(send), threading.Event())

    async def forward() -> None:
        async with receive:
            async for done, total, message in receive:
                try:
                    await ctx.session.report_progress(done, total, message)
                except Exception:  # a lost notification must not fail the call
                    log.debug("progress of %s not sent", spec.name, exc_info=True)

    async with anyio.create_task_group() as group:
        group.start_soon(forward)
        try:
            answer = await _answer(spec, call, args)
        finally:
            send.close()
    return answer


async def _answer(spec: ToolSpec, call: Call, args: BaseModel) -> CallToolResult:
    """The tool's result, or an error result; the boundary where any failure of one call
    is turned into a line for the client."""
    try:
        result = await spec.run(call, args)
    except UserError as exc:
        return error_result(str(exc))
    except Cancelled:
        return error_result(f"{spec.name} was cancelled")
    except Exception as exc:
        log.exception("%s failed; the client is told in one line", spec.name)
        return error_result(f"{spec.name} failed: {type(exc).__name__}: {exc}")
    return CallToolResult(content=[TextContent(type="text", text=spec.text(result))],
                          structured_content=result.model_dump(mode="json"))


def build_server(ws: AgentWorkspace) -> Server[Any]:
    """The server with the tools of :data:`TOOLS`, working in ``ws``."""

    async def list_tools(_ctx: Any, _params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[spec.tool() for spec in TOOLS.values()])

    async def on_call(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        return await call_tool(ws, ctx, params)

    return Server("codequorum", version=__version__, title="codequorum",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=on_call)


async def serve_stdio(ws: AgentWorkspace) -> None:
    """Serve one client over standard input and output until it closes them; every line
    is read at a bounded cost first (:mod:`codequorum.agents.stdin`)."""
    server = build_server(ws)
    try:
        with claimed_stdin() as stdin:
            lines = BoundedLines(stdin)
            async with (stdio_server(stdin=lines) as (read_stream,  # type: ignore[arg-type]
                                                      write_stream),
                        anyio.create_task_group() as tasks):
                tasks.start_soon(_answer_refusals, lines, write_stream)
                await server.run(read_stream, write_stream,
                                 server.create_initialization_options())
                tasks.cancel_scope.cancel()
    finally:
        ws.close()


async def _answer_refusals(lines: BoundedLines,
                           write: MemoryObjectSendStream[SessionMessage]) -> None:
    """Answer each line the reader refused (:mod:`codequorum.agents.stdin`)."""
    async with lines.refused:
        async for error in lines.refused:
            await write.send(SessionMessage(error))
