"""Capabilities, typing-time diagnostics, and regeneration relayed through the client."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .conftest import lsp_session
from .helpers import NO_AUTORUN, command, hover_text, open_document, published, wait_for

DOC = "def area(w, h):\n    return w * h\n"
VERSIONS = [
    "def area(w, h):\n    return w * h\n",
    "def area(w, h):\n    return h * w\n",
    "def area(w, h):\n    product = w * h\n    return product\n",
]
# far from the versions above: a loop with branches instead of one expression
ODD = (
    "def area(w, h):\n    total = 0\n    for _ in range(abs(h)):\n        if w > 0:\n"
    "            total += w\n        else:\n            total -= abs(w)\n"
    "    return total if h >= 0 else -total\n"
)


async def test_capabilities_advertise_features_and_commands(workspace: Path) -> None:
    async with lsp_session(workspace) as client:
        result = client.initialize_result  # type: ignore[attr-defined]
        caps = result.capabilities
        assert result.server_info.name == "codequorum"
        assert caps.hover_provider
        assert caps.code_lens_provider is not None
        assert list(caps.code_action_provider.code_action_kinds) == [
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.RefactorRewrite,
            "source.codequorum",
        ]
        assert caps.diagnostic_provider.identifier == "codequorum"
        assert caps.position_encoding == types.PositionEncodingKind.Utf16
        from codequorum.lsp.contract import ALIASES, COMMANDS

        # every command, and each older name still registered for key bindings
        assert sorted(caps.execute_command_provider.commands) == sorted([*COMMANDS, *ALIASES])
        assert "codequorum.addSamples" in caps.execute_command_provider.commands
        assert "codequorum.deleteVersions" in caps.execute_command_provider.commands


async def test_diagnostics_while_typing_are_debounced(workspace: Path) -> None:
    options = {"diagnostics": {"onType": True, "debounceMs": 50}}
    async with lsp_session(workspace, init_options=options) as client:
        uri = open_document(client, workspace / "area.py", DOC)
        await command(client, "codequorum.addVersions", uri, "area", VERSIONS)
        await wait_for(lambda: published(client, uri) == [])
        for version, text in enumerate((DOC + "\n", ODD), start=2):  # no save
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        diags = await wait_for(lambda: published(client, uri))
        assert "outlier-current" in [d.code for d in diags]
        assert diags[0].range == types.Range(
            start=types.Position(line=0, character=4), end=types.Position(line=0, character=8)
        )


async def test_regenerate_relayed_through_the_client(workspace: Path) -> None:
    options = {"provider": {"kind": "client", "versions": 4}}
    async with lsp_session(workspace, init_options=options) as client:
        uri = open_document(client, workspace / "area.py", DOC)
        answer = await command(client, "codequorum.regenerate", uri, "area")
        assert answer["status"] == "relay"
        assert answer["n"] == 4 and answer["language"] == "python"
        roles = [m["role"] for m in answer["messages"]]
        assert roles[0] == "system" and roles[-1] == "user"
        assert "area" in answer["messages"][-1]["content"]
        # the client sends the prompt to its own model and relays the answers back
        relayed = [
            {"code": f"```python\n{code}```", "provider": "vscode-lm", "model": "m"}
            for code in VERSIONS
        ]
        added = await command(client, "codequorum.addVersions", uri, "area", relayed)
        assert added["total"] == 3
        shown = await command(client, "codequorum.showVersion", uri, "area", 3)
        assert shown["code"] == VERSIONS[2]
        assert (shown["origin"], shown["provider"], shown["model"]) == ("relayed", "vscode-lm", "m")


async def test_ranges_are_in_utf16_units_for_non_ascii_names(workspace: Path) -> None:
    doc = "# 😀 é\nclass Größe:\n    def área(self, w, h):  # ∑\n        return w * h\n"
    versions = [
        "def área(self, w, h):\n    return h * w\n",
        "def área(self, a, b):\n    return a * b\n",
    ]
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "u.py", doc)
        added = await command(client, "codequorum.addVersions", uri, "Größe.área", versions)
        assert added["total"] == 2
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=2, character=10),  # on "área"
            )
        )
        assert hover is not None
        # "área" starts after 8 UTF-16 units ("    def ") and is 4 units long (5 bytes)
        assert hover.range == types.Range(
            start=types.Position(line=2, character=8), end=types.Position(line=2, character=12)
        )
        report = await command(client, "codequorum.analyze", uri, types_position(2, 9))
        assert report["qualifiedName"] == "Größe.área"
        assert report["range"]["end"] == {"line": 3, "character": 20}


def types_position(line: int, character: int) -> dict[str, int]:
    """A position as plain JSON (how clients pass it to commands)."""
    return {"line": line, "character": character}


async def test_settings_pushed_by_a_client_without_configuration_requests(
    workspace: Path,
) -> None:
    async with lsp_session(workspace, pull_configuration=False, progress=False,
                           init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "area.py", DOC)
        await command(client, "codequorum.addVersions", uri, "area", VERSIONS[1:])
        pos = types.Position(line=0, character=5)
        text = await hover_text(client, uri, pos)
        assert text is not None and "```diff" in text
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"codequorum": {"hover": {"diffLines": 0}, "provider": {"seed": "x"}}}
            )
        )
        await wait_for(lambda: client.messages)
        [warning] = client.messages
        assert warning.type == types.MessageType.Warning
        assert warning.message == (
            'codequorum: invalid setting codequorum.provider.seed = "x": expected a whole '
            "number; using the default null"
        )
        text = await hover_text(client, uri, pos)
        assert text is not None and "```diff" not in text
