"""Every command's handler and the errors a handler raises: the registry filled by
:func:`command`, and the names of the commands."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pygls.exceptions import JsonRpcInvalidParams

from codequorum.core.safe_text import MESSAGE_LIMIT, plain_message
from codequorum.lsp import contract as c

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


REGENERATE = c.RegenerateArgs.COMMAND
ANALYZE = c.AnalyzeArgs.COMMAND
ADD_VERSIONS = c.AddVersionsArgs.COMMAND
IMPORT_VERSION_FILE = c.ImportVersionFileArgs.COMMAND
DELETE_VERSIONS = c.DeleteVersionsArgs.COMMAND
SHOW_VERSION = c.ShowVersionArgs.COMMAND
COMPARE = c.CompareArgs.COMMAND
RUN_DYNAMIC = c.RunDynamicArgs.COMMAND


A = TypeVar("A", bound=c.FunctionArgs)
R = TypeVar("R")
Handler = Callable[["Host", A], Coroutine[Any, Any, R]]

#: Every command's handler, by the command's name: filled by :func:`command`.
HANDLERS: dict[str, Handler[Any, Any]] = {}


def command(args_cls: type[A]) -> Callable[[Handler[A, R]], Handler[A, R]]:
    """Register the decorated function as the handler of the command whose arguments are
    ``args_cls`` (its name, arguments and result are declared in :mod:`contract`)."""
    name = args_cls.COMMAND
    if c.COMMANDS.get(name, (None,))[0] is not args_cls:
        raise ValueError(f"{args_cls.__name__} is not a command of the contract")

    def register(handler: Handler[A, R]) -> Handler[A, R]:
        if name in HANDLERS:
            raise ValueError(f"two handlers for {name}")
        HANDLERS[name] = handler
        return handler

    return register


class CommandError(JsonRpcInvalidParams):
    """Bad arguments, or a function that cannot be found: the message says which, as a
    plain message (:func:`~codequorum.core.safe_text.plain_message`: a client shows an
    error's message, and it may quote names, paths and text from a repository, so no
    escape and no markdown link in it is live)."""

    #: True when the user was already shown the message.
    shown: ClassVar[bool] = False

    def __init__(self, message: str) -> None:
        super().__init__(message=plain_message(message, MESSAGE_LIMIT))


class ShownError(CommandError):
    """A :class:`CommandError` whose message the user was already shown."""

    shown = True
