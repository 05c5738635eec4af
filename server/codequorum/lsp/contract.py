"""The commands' contract: each command's name, arguments and result as typed classes.

pygls turns a command's argument object into its arguments class (cattrs, camelCase keys)
and its result back into JSON. ``shared/commands.schema.json`` is this module's
:func:`json_schema`; the editor extension's TypeScript names and types are generated from
that file, and tests fail when either drifts from these classes.
"""

from __future__ import annotations

import json
import types as pytypes
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, Union, get_args, get_origin

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from lsprotocol import types

from codequorum.core.limits import MAX_ARGUMENT_KEYS, MAX_CALL_BYTES, MAX_VERSION_BYTES
from codequorum.lsp.shapes import camel as _camel
from codequorum.lsp.shapes import shape_problem


class ArgumentError(ValueError):
    """Arguments that do not fit a command's class: the message says which."""


# --------------------------------------------------------------------------- arguments


@attrs.define
class FunctionArgs:
    """A document and a function in it: a position inside the function, or its qualified
    name (either, or both)."""

    COMMAND: ClassVar[str] = ""
    #: Names of the arguments in the positional form ``uri, function, ...``.
    POSITIONAL: ClassVar[tuple[str, ...]] = ()
    #: Argument keys still read under an older name: old key -> key.
    OLD_KEYS: ClassVar[dict[str, str]] = {}

    uri: str
    position: types.Position | None = None
    qualified_name: str | None = None


@attrs.define
class InteractiveArgs(FunctionArgs):
    """``interactive``: a person chose the command in a client that reads no results (a
    code action, a code lens): the server shows what comes of it (a message, or a document
    where the client opens one), asks before deleting, and answers at once when the work
    goes on in the background."""

    interactive: bool = False


@attrs.define
class AnalyzeArgs(InteractiveArgs):
    """``matrices``: add the pair matrices to the report. ``interactive``: also show the
    report."""

    COMMAND: ClassVar[str] = "codequorum.analyze"
    matrices: bool = False


@attrs.define
class CompareArgs(InteractiveArgs):
    """The function to compare (``interactive``: also show the comparison)."""

    COMMAND: ClassVar[str] = "codequorum.compare"


@attrs.define
class RunDynamicArgs(InteractiveArgs):
    """The function whose versions run in the sandbox (``interactive``: answered at once
    with ``started`` and no token; the outcome is shown)."""

    COMMAND: ClassVar[str] = "codequorum.runDynamic"


@attrs.define
class DeleteVersionsArgs(InteractiveArgs):
    """The function whose versions are deleted (none: the whole file's). ``interactive``:
    asked first, answered at once with ``removed`` 0; what was deleted is shown."""

    COMMAND: ClassVar[str] = "codequorum.deleteVersions"


@attrs.define
class RegenerateArgs(InteractiveArgs):
    """``n``: how many versions (1-50; default ``provider.versions``); ``endpointConfirmed``:
    the client checked the endpoint and key variable with the user. ``interactive``:
    answered at once with status ``started``; the outcome is shown."""

    COMMAND: ClassVar[str] = "codequorum.regenerate"
    POSITIONAL: ClassVar[tuple[str, ...]] = ("n",)
    n: int | None = None
    endpoint_confirmed: bool = False


@attrs.define
class VersionInput:
    """One version to store (a plain code string is read as ``{"code": ...}``)."""

    code: str = attrs.field(metadata={"max_chars": MAX_VERSION_BYTES})
    provider: str | None = None
    model: str | None = None
    temperature: float | None = None
    seed: int | None = None
    label: str | None = None


@attrs.define
class AddVersionsArgs(FunctionArgs):
    """Versions the client generated (origin ``relayed``); ``samples`` is read as
    ``versions``."""

    COMMAND: ClassVar[str] = "codequorum.addVersions"
    POSITIONAL: ClassVar[tuple[str, ...]] = ("versions",)
    OLD_KEYS: ClassVar[dict[str, str]] = {"samples": "versions"}
    versions: list[VersionInput] = attrs.Factory(list)


@attrs.define
class ImportVersionFileArgs(FunctionArgs):
    """``path`` of a sample file inside a workspace folder (relative to the document's
    folder), read by the server; or ``content``, the text of a file the user picked anywhere
    (the client reads it; ``path`` then only names it). Either is at most 16 MB.
    ``taskId`` picks one set of a sample-set file."""

    COMMAND: ClassVar[str] = "codequorum.importVersionFile"
    POSITIONAL: ClassVar[tuple[str, ...]] = ("path",)
    path: str = ""
    task_id: str | None = None
    content: str | None = attrs.field(default=None, metadata={"max_chars": MAX_CALL_BYTES})


@attrs.define
class ShowVersionArgs(FunctionArgs):
    """``version``: 1-based number or consensus / current / fastest / mostDifferent;
    ``index``: 0-based position (instead of ``version``); ``own_docstring``: the
    replacement keeps the version's own docstring instead of the user's."""

    COMMAND: ClassVar[str] = "codequorum.showVersion"
    POSITIONAL: ClassVar[tuple[str, ...]] = ("version",)
    version: int | str | None = None
    index: int | None = None
    own_docstring: bool = False


# --------------------------------------------------------------------------- results


@attrs.define
class VersionInfo:
    """One version of a function: its place in the set, label, origin and cluster."""

    index: int
    version: int
    label: str
    origin: str
    provider: str | None
    model: str | None
    cluster: int | None


@attrs.define
class FunctionSummary:
    """What every answer about an analysed function carries. ``stored``: how many versions
    are stored; ``compared``: how many versions were compared, in the words the lens, hover
    and diagnostics use (``4 versions + your code``)."""

    uri: str
    qualified_name: str
    range: types.Range
    stored: int
    compared: str = ""
    current_index: int | None = None
    consensus: int | None = None
    most_different: int | None = None
    fastest: int | None = None
    stable: bool | None = None
    stability: float | None = None
    versions: list[VersionInfo] = attrs.Factory(list)
    message: str | None = None


@attrs.define
class AnalyzeResult(FunctionSummary):
    """``report``: the stability report (``shared/report.schema.json``); null when the
    function has no stored versions yet (``message`` says so). ``evidence``: after a run,
    the input where the recommended version (``report.recommended``) and the others part
    ways, in words (null when they never do)."""

    report: dict[str, Any] | None = None
    evidence: str | None = None


@attrs.define
class CompareResult(FunctionSummary):
    """The versions' code, and a unified diff of the current code (or the consensus)
    against the most different version."""

    codes: list[str] = attrs.Factory(list)
    diff: str | None = None


@attrs.define
class StoreResult:
    """Versions stored: ``added`` new ones, ``total`` stored now (``path``: the file read)."""

    uri: str
    qualified_name: str
    added: int
    total: int
    path: str | None = None


@attrs.define
class ClearResult:
    """How many stored versions were deleted."""

    uri: str
    qualified_name: str | None
    removed: int


@attrs.define
class ShowVersionResult:
    """One version's code (``indented``: indented for the function's place), and the edit
    that puts it in place as the code actions do: ``replacement`` for the text of
    ``range`` (the function's), the version with the user's docstring and the comments
    above its body unless ``own_docstring`` was asked."""

    uri: str
    qualified_name: str
    index: int
    version: int
    label: str
    origin: str
    provider: str | None
    model: str | None
    language: str
    code: str
    indented: str
    range: types.Range
    replacement: str


@attrs.define
class PromptMessage:
    """One chat message of a regeneration prompt."""

    role: Literal["system", "user", "assistant"]
    content: str


@attrs.define
class RegenerateResult:
    """``status`` ``relay`` (``provider.kind`` = client): the client is to send
    ``messages`` to its model ``n`` times; ``started``: an interactive regeneration goes on
    in the background; else what the server did."""

    uri: str
    qualified_name: str
    status: Literal["ok", "failed", "cancelled", "refused", "relay", "started"]
    requested: int = 0
    accepted: int = 0
    stored: int = 0
    rejected: list[str] = attrs.Factory(list)
    errors: list[str] = attrs.Factory(list)
    message: str | None = None
    n: int | None = None
    language: str | None = None
    messages: list[PromptMessage] | None = None


@attrs.define
class RunDynamicResult:
    """``started`` with a progress ``token``; or not, with the reason (``refused``: the
    workspace is not trusted or the store not approved)."""

    uri: str
    qualified_name: str
    started: bool
    refused: bool = False
    message: str | None = None
    token: str | int | None = None


#: Every command: (arguments class, result type). A result type ``X | None`` may be null.
COMMANDS: dict[str, tuple[type[FunctionArgs], Any]] = {
    AnalyzeArgs.COMMAND: (AnalyzeArgs, AnalyzeResult | None),
    RegenerateArgs.COMMAND: (RegenerateArgs, RegenerateResult),
    AddVersionsArgs.COMMAND: (AddVersionsArgs, StoreResult),
    ImportVersionFileArgs.COMMAND: (ImportVersionFileArgs, StoreResult),
    DeleteVersionsArgs.COMMAND: (DeleteVersionsArgs, ClearResult),
    ShowVersionArgs.COMMAND: (ShowVersionArgs, ShowVersionResult),
    CompareArgs.COMMAND: (CompareArgs, CompareResult),
    RunDynamicArgs.COMMAND: (RunDynamicArgs, RunDynamicResult),
}
#: Older names of commands, still registered (an editor's key bindings and scripts name
#: them): old name -> command.
ALIASES: dict[str, str] = {
    "codequorum.addSamples": AddVersionsArgs.COMMAND,
    "codequorum.importSamples": ImportVersionFileArgs.COMMAND,
    "codequorum.clearSamples": DeleteVersionsArgs.COMMAND,
    "codequorum.showSample": ShowVersionArgs.COMMAND,
}


def command_named(name: str) -> str | None:
    """The command ``name`` stands for (itself, or the command an older name became);
    None when it is none of ours."""
    name = ALIASES.get(name, name)
    return name if name in COMMANDS else None

_OURS = {
    cls
    for pair in COMMANDS.values()
    for t in pair
    for cls in (t, *get_args(t))
    if isinstance(cls, type) and attrs.has(cls)
} | {VersionInput, VersionInfo, PromptMessage}
for _cls in _OURS | {FunctionArgs, InteractiveArgs, FunctionSummary}:
    attrs.resolve_types(_cls)


def register_hooks(converter: cattrs.Converter) -> cattrs.Converter:
    """Teach ``converter`` the contract's classes: camelCase keys, every result field
    written (null included), a code string read as a :class:`VersionInput`."""

    def unstructure(cls: type) -> Any:
        fields = {a.name: override(rename=_camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_unstructure_fn(cls, converter, **fields)  # type: ignore[arg-type]

    def structure(cls: type) -> Any:
        fields = {a.name: override(rename=_camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, converter, **fields)  # type: ignore[arg-type]

    converter.register_unstructure_hook_factory(lambda t: t in _OURS, unstructure)
    converter.register_structure_hook_factory(lambda t: t in _OURS, structure)
    version_fn = structure(VersionInput)
    converter.register_structure_hook(
        VersionInput,
        lambda v, t: VersionInput(code=v) if isinstance(v, str) else version_fn(v, t),
    )
    converter.register_structure_hook(int | str | None, _int_or_str)
    converter.register_structure_hook(str | int | None, _int_or_str)
    return converter


def _int_or_str(value: Any, _: Any) -> int | str | None:
    if value is None or (isinstance(value, int | str) and not isinstance(value, bool)):
        return value  # type: ignore[no-any-return]
    raise TypeError(f"expected a number or a name, not {value!r}")


def _new_keys(cls: type[FunctionArgs], obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with each older key the command still reads under its new name (a key given
    under both names keeps the new one; more keys than an object may have are refused
    before it is copied)."""
    if len(obj) > MAX_ARGUMENT_KEYS:
        raise ArgumentError(f"the argument object has {len(obj):,} keys, at most "
                            f"{MAX_ARGUMENT_KEYS}")
    out = dict(obj)
    for old, new in cls.OLD_KEYS.items():
        if old in out:
            value = out.pop(old)
            out.setdefault(new, value)
    return out


def normalize(command: str, arguments: Sequence[Any] | None) -> list[Any]:
    """One argument object from either form a command takes: the object (``{"uri", ...}``)
    or positional ``uri, qualifiedName | position, ...`` (the command's own arguments
    after). Raises :class:`ArgumentError` with the reason."""
    cls = COMMANDS[command][0]
    if arguments is not None and len(arguments) > 2 + len(cls.POSITIONAL):
        raise ArgumentError(f"{command}: at most {2 + len(cls.POSITIONAL)} arguments, got "
                            f"{len(arguments):,}")
    args = list(arguments or [])
    if not args:
        raise ArgumentError(f"{command} needs a document URI and a function")
    first = args[0]
    if isinstance(first, dict):
        if len(args) > 1:
            raise ArgumentError(f"{command}: one argument object, or positional arguments")
        if not isinstance(first.get("uri"), str):
            raise ArgumentError(f"{command}: the argument object has no 'uri'")
        return [_new_keys(cls, first)]
    if not isinstance(first, str):
        raise ArgumentError(f"{command}: the first argument must be a document URI")
    obj: dict[str, Any] = {"uri": first}
    if len(args) > 1:
        second = args[1]
        if isinstance(second, str):
            obj["qualifiedName"] = second
        elif isinstance(second, dict) and "line" in second:
            obj["position"] = second
        elif isinstance(second, dict):
            obj.update(_new_keys(cls, second))
        elif second is not None:
            raise ArgumentError(f"{command}: expected a qualified name or a position")
    rest = args[2:]
    if len(rest) > len(cls.POSITIONAL):
        raise ArgumentError(f"{command}: at most {2 + len(cls.POSITIONAL)} arguments")
    for name, value in zip(cls.POSITIONAL, rest, strict=False):
        if value is not None:
            obj[name] = value
    return [obj]


def check(converter: cattrs.Converter, command: str, arguments: Sequence[Any]) -> None:
    """Structure the argument object as the command's class, or raise
    :class:`ArgumentError` naming what is wrong; its shape and sizes are checked first, as
    it arrived (:mod:`codequorum.lsp.shapes`), so nothing walks or copies a value that
    does not fit."""
    cls = COMMANDS[command][0]
    problem = shape_problem(cls, arguments[0])
    if problem is not None:
        raise ArgumentError(f"{command}: bad arguments: {problem}")
    try:
        converter.structure(arguments[0], cls)
    except Exception as exc:
        reasons = (
            "; ".join(cattrs.transform_error(exc))
            if isinstance(exc, cattrs.BaseValidationError)
            else str(exc)
        )
        raise ArgumentError(f"{command}: bad arguments: {reasons}") from exc


# --------------------------------------------------------------------------- schema

_RANGE_DEFS: dict[str, Any] = {
    "Position": {
        "type": "object",
        "description": "An LSP position (0-based line, character in the position encoding).",
        "properties": {
            "line": {"type": "integer", "minimum": 0},
            "character": {"type": "integer", "minimum": 0},
        },
        "required": ["line", "character"],
        "additionalProperties": False,
    },
    "Range": {
        "type": "object",
        "description": "An LSP range.",
        "properties": {
            "start": {"$ref": "#/$defs/Position"},
            "end": {"$ref": "#/$defs/Position"},
        },
        "required": ["start", "end"],
        "additionalProperties": False,
    },
}


def _type_schema(t: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = get_origin(t)
    if t is Any:
        return {}
    if t is type(None):
        return {"type": "null"}
    if t is str:
        return {"type": "string"}
    if t is bool:
        return {"type": "boolean"}
    if t is int:
        return {"type": "integer"}
    if t is float:
        return {"type": "number"}
    if origin is Literal:
        return {"enum": list(get_args(t))}
    if origin is list:
        return {"type": "array", "items": _type_schema(get_args(t)[0], defs)}
    if origin is dict:
        return {"type": "object"}
    if origin in (Union, pytypes.UnionType):
        return {"anyOf": [_type_schema(a, defs) for a in get_args(t)]}
    if t in (types.Position, types.Range):
        return {"$ref": f"#/$defs/{t.__name__}"}
    if isinstance(t, type) and attrs.has(t):
        if t.__name__ not in defs:
            defs[t.__name__] = {}
            defs[t.__name__] = _class_schema(t, defs, result=t not in _ARGUMENT_CLASSES)
        return {"$ref": f"#/$defs/{t.__name__}"}
    raise TypeError(f"no schema for {t!r}")


def _class_schema(cls: type, defs: dict[str, Any], result: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for a in attrs.fields(cls):
        prop = _type_schema(a.type, defs)
        properties[_camel(a.name)] = prop
        if result or a.default is attrs.NOTHING:
            required.append(_camel(a.name))
    schema: dict[str, Any] = {
        "type": "object",
        "description": " ".join((cls.__doc__ or "").split()).replace("``", "`"),
        "properties": properties,
        "required": required,
    }
    if cls is VersionInput:
        return {"anyOf": [{"type": "string"}, schema], "description": schema["description"]}
    return schema


_ARGUMENT_CLASSES = {pair[0] for pair in COMMANDS.values()} | {
    FunctionArgs,
    InteractiveArgs,
    VersionInput,
}


def json_schema() -> dict[str, Any]:
    """The contract as JSON Schema: ``commands`` maps each command to its ``arguments``
    (one object) and ``result`` schemas; the classes are in ``$defs``."""
    defs: dict[str, Any] = dict(_RANGE_DEFS)
    commands: dict[str, Any] = {}
    for name, (args_cls, result) in COMMANDS.items():
        commands[name] = {
            "arguments": _type_schema(args_cls, defs),
            "result": _type_schema(result, defs),
        }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://codequorum.dev/schemas/commands.schema.json",
        "title": "codequorum language server commands",
        "description": (
            "The workspace/executeCommand commands of the codequorum language server: each "
            "takes one argument object and answers one result object. Generated from "
            "server/codequorum/lsp/contract.py (scripts/generate); the "
            "editor extension's TypeScript types are generated from this file."
        ),
        "commands": commands,
        "aliases": dict(ALIASES),
        "$defs": dict(sorted(defs.items())),
    }


def schema_text() -> str:
    """:func:`json_schema` as the text of ``shared/commands.schema.json``."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
