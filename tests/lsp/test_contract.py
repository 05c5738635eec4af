"""The commands' contract: the shared schema is the Python classes', and the classes
read and write the JSON the schema describes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import attrs
import pytest
from lsprotocol import types
from pygls.protocol import default_converter

import codequorum.lsp.commands  # noqa: F401 - fills HANDLERS
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import HANDLERS, command

SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "commands.schema.json"


def test_shared_schema_matches_the_classes() -> None:
    # after changing lsp/contract.py:
    #   scripts/generate
    assert SCHEMA.read_text(encoding="utf-8") == c.schema_text()


def test_every_command_has_a_handler_and_a_schema() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert set(schema["commands"]) == set(c.COMMANDS) == set(HANDLERS)
    for name, (args_cls, _) in c.COMMANDS.items():
        assert name == args_cls.COMMAND
        ref = schema["commands"][name]["arguments"]["$ref"]
        assert ref == f"#/$defs/{args_cls.__name__}"
        assert schema["$defs"][args_cls.__name__]["required"] == ["uri"]


def test_a_handler_is_registered_only_for_a_command_of_the_contract_and_only_once() -> None:
    @attrs.define
    class NotACommand(c.FunctionArgs):
        COMMAND: ClassVar[str] = "codequorum.notACommand"

    with pytest.raises(ValueError, match="NotACommand is not a command of the contract"):
        command(NotACommand)
    with pytest.raises(ValueError, match=r"two handlers for codequorum\.analyze"):
        command(c.AnalyzeArgs)(HANDLERS[c.AnalyzeArgs.COMMAND])
    assert HANDLERS[c.AnalyzeArgs.COMMAND].__name__ == "analyze_command"


def test_schema_fields_are_the_class_fields_in_camel_case() -> None:
    defs = json.loads(SCHEMA.read_text(encoding="utf-8"))["$defs"]
    assert list(defs["RegenerateResult"]["properties"]) == [
        "uri",
        "qualifiedName",
        "status",
        "requested",
        "accepted",
        "stored",
        "rejected",
        "errors",
        "message",
        "n",
        "language",
        "messages",
    ]
    assert defs["RegenerateResult"]["properties"]["status"] == {
        "enum": ["ok", "failed", "cancelled", "refused", "relay", "started"]
    }
    assert "added" not in defs["RegenerateResult"]["properties"]
    assert defs["StoreResult"]["required"] == ["uri", "qualifiedName", "added", "total", "path"]


@pytest.fixture
def converter() -> object:
    return c.register_hooks(default_converter())  # type: ignore[no-untyped-call]


def test_arguments_are_read_from_camel_case(converter: object) -> None:
    args = converter.structure(  # type: ignore[attr-defined]
        {
            "uri": "file:///a.py",
            "position": {"line": 3, "character": 4},
            "n": 2,
            "endpointConfirmed": True,
            "unknown": 1,
        },
        c.RegenerateArgs,
    )
    assert args == c.RegenerateArgs(
        uri="file:///a.py",
        position=types.Position(line=3, character=4),
        n=2,
        endpoint_confirmed=True,
    )
    versions = converter.structure(  # type: ignore[attr-defined]
        {"uri": "u", "versions": ["def f(): pass", {"code": "x", "model": "m"}]},
        c.AddVersionsArgs,
    ).versions
    assert versions == [c.VersionInput(code="def f(): pass"), c.VersionInput(code="x", model="m")]


def test_the_older_names_still_work() -> None:
    """A key binding or a script that names a command, or an argument, by its older name."""
    assert c.command_named("codequorum.addSamples") == "codequorum.addVersions"
    assert c.command_named("codequorum.showSample") == "codequorum.showVersion"
    assert c.command_named("codequorum.addVersions") == "codequorum.addVersions"
    assert c.command_named("codequorum.nothing") is None
    assert set(c.ALIASES.values()) <= set(c.COMMANDS)
    old = c.normalize("codequorum.addVersions", [{"uri": "u", "samples": ["x"]}])
    assert old == [{"uri": "u", "versions": ["x"]}]
    both = c.normalize("codequorum.addVersions", [{"uri": "u", "samples": ["x"],
                                                   "versions": ["y"]}])
    assert both == [{"uri": "u", "versions": ["y"]}]
    assert c.normalize("codequorum.addVersions", ["u", {"qualifiedName": "f",
                                                        "samples": ["x"]}]) == [
        {"uri": "u", "qualifiedName": "f", "versions": ["x"]}]
    assert c.json_schema()["aliases"] == c.ALIASES


def test_results_are_written_whole_in_camel_case(converter: object) -> None:
    result = c.RunDynamicResult(uri="u", qualified_name="f", started=False)
    assert converter.unstructure(result) == {  # type: ignore[attr-defined]
        "uri": "u",
        "qualifiedName": "f",
        "started": False,
        "refused": False,
        "message": None,
        "token": None,
    }


def test_positional_arguments_become_one_object() -> None:
    pos = {"line": 1, "character": 0}
    assert c.normalize("codequorum.showVersion", ["u", "f", 3]) == [
        {"uri": "u", "qualifiedName": "f", "version": 3}
    ]
    assert c.normalize("codequorum.analyze", ["u", pos]) == [{"uri": "u", "position": pos}]
    assert c.normalize("codequorum.deleteVersions", ["u"]) == [{"uri": "u"}]
    with pytest.raises(c.ArgumentError, match="needs a document URI"):
        c.normalize("codequorum.analyze", [])
    with pytest.raises(c.ArgumentError, match="at most 2 arguments"):
        c.normalize("codequorum.analyze", ["u", "f", 1])


def test_bad_arguments_name_the_field(converter: object) -> None:
    with pytest.raises(c.ArgumentError, match=r"bad arguments: .*\$\.versions\[0\]"):
        c.check(converter, "codequorum.addVersions", [{"uri": "u", "versions": [42]}])  # type: ignore[arg-type]
    with pytest.raises(c.ArgumentError, match=r"\$\.n"):
        c.check(converter, "codequorum.regenerate", [{"uri": "u", "n": "many"}])  # type: ignore[arg-type]
