"""``shared/settings.schema.json``, written from the editor settings declared in
:data:`codequorum.options.declarations.SETTINGS`.

The editor extension's ``package.json`` settings are generated from that file
(``client-vscode/scripts/gen-settings.js``); after changing a setting run
``scripts/generate``, which writes it first.
"""

from __future__ import annotations

import json
from typing import Any

from codequorum.options.declarations import SETTINGS, Setting

PREFIX = "codequorum."

_DESCRIPTION = (
    "Settings of the codequorum language server and its editor clients. Property names are "
    "the dotted names VS Code uses; the language server reads the same keys from "
    "initializationOptions, workspace/didChangeConfiguration and workspace/configuration "
    "(section \"codequorum\"), either flat (\"codequorum.provider.model\") or nested "
    "({\"provider\": {\"model\": ...}}). Properties marked x-codequorum-scope \"client\" are "
    "read by the editor client only. Every property says what it can do in "
    "x-codequorum-reach (the names of codequorum.options.policy.Reach): only \"analysis\" "
    "settings may come from a workspace's settings; the others (a program, an interpreter, "
    "the store, the endpoint, the key variable, running versions, the sandbox) are yours "
    "alone, have \"scope\": \"machine\" (VS Code ignores a workspace's value of them) and the "
    "language server ignores a workspace folder's own value of them. Properties marked "
    "x-codequorum-restricted choose what runs, which versions run or where an API key goes: "
    "VS Code ignores their workspace values in an untrusted workspace too."
)

_TYPES: dict[str, Any] = {"integer?": ["integer", "null"], "boolean?": ["boolean", "null"],
                          "strings": "array"}


def _number(value: float) -> float:
    """A whole number is written without a fraction (60, not 60.0)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def property_of(setting: Setting) -> dict[str, Any]:
    """The schema property of one setting."""
    prop: dict[str, Any] = {"x-codequorum-reach": setting.reach.name.lower().replace("_", "-")}
    if not setting.reach.project_may_set:
        prop["scope"] = "machine"
    if setting.restricted:
        prop["x-codequorum-restricted"] = True
    prop["type"] = _TYPES.get(setting.type, setting.type)
    if setting.type == "strings":
        prop["items"] = {"type": "string", **({"enum": list(setting.enum)} if setting.enum
                                              else {})}
        if setting.enum:
            prop["uniqueItems"] = True
    elif setting.enum:
        prop["enum"] = list(setting.enum)
    if setting.enum_descriptions:
        prop["enumDescriptions"] = list(setting.enum_descriptions)
    if setting.minimum is not None:
        bound = "exclusiveMinimum" if setting.exclusive_minimum else "minimum"
        prop[bound] = _number(setting.minimum)
    if setting.maximum is not None:
        prop["maximum"] = _number(setting.maximum)
    default = setting.default
    prop["default"] = _number(default) if setting.type == "number" else default
    if setting.client:
        prop["x-codequorum-scope"] = "client"
    prop["description"] = setting.description
    if setting.deprecated:
        prop["deprecationMessage"] = f"Deprecated: use {setting.deprecated}."
    return prop


def json_schema() -> dict[str, Any]:
    """The settings schema: one property per declared setting."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://codequorum.dev/schemas/settings.schema.json",
        "title": "codequorum settings",
        "description": _DESCRIPTION,
        "type": "object",
        "additionalProperties": False,
        "properties": {PREFIX + s.name: property_of(s) for s in SETTINGS},
    }


def _inline(value: Any) -> str:
    """A value on one line (``{ "type": "string" }``, ``["a", "b"]``)."""
    if isinstance(value, dict):
        inner = ", ".join(f"{_dumps(k)}: {_inline(v)}" for k, v in value.items())
        return f"{{ {inner} }}" if inner else "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _dumps(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _property_text(prop: dict[str, Any], indent: str) -> str:
    lines = []
    for key, value in prop.items():
        if key == "enumDescriptions":
            items = ",\n".join(f"{indent}  {_dumps(v)}" for v in value)
            lines.append(f"{indent}{_dumps(key)}: [\n{items}\n{indent}]")
        else:
            lines.append(f"{indent}{_dumps(key)}: {_inline(value)}")
    return ",\n".join(lines)


def schema_text() -> str:
    """:func:`json_schema` as the text of ``shared/settings.schema.json``: two-space
    indents, one line per key of a property, short lists on their line."""
    schema = json_schema()
    properties = schema.pop("properties")
    head = [f"  {_dumps(k)}: {_inline(v)}" for k, v in schema.items()]
    body = ",\n".join(
        f"    {_dumps(name)}: {{\n{_property_text(prop, '      ')}\n    }}"
        for name, prop in properties.items())
    return "{\n" + ",\n".join(head) + f',\n  "properties": {{\n{body}\n  }}\n}}\n'
