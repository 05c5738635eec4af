"""One rendering model, two renderers: the same structure as markdown and as plain text."""

from __future__ import annotations

import pytest
from lsprotocol import types

from codequorum.lsp.rendering import (
    Block,
    Bullet,
    Code,
    Doc,
    Strong,
    Text,
    client_format,
    markup_content,
    to_markdown,
    to_plain,
)

DOC: Doc = (
    ((Strong("codequorum"), " · ", Code("Shape.area"), " · 3 versions"),),
    ((Text("keep v2: 2 of 3 *agree*"),),),
    (Bullet(("consensus: ", Strong(Text("v1")))), Bullet(("fastest: ", Text("v3")))),
    (),
    (
        ("Most different: ", Text("v3")),
        Block("--- v1\n+++ v3\n-    return w * h\n+    x = 1", "diff"),
    ),
)


def test_markdown_marks_up_and_escapes_what_is_not_ours() -> None:
    assert to_markdown(DOC) == (
        "**codequorum** · `Shape.area` · 3 versions\n\n"
        "keep v2: 2 of 3 \\*agree\\*\n\n"
        "- consensus: **v1**\n- fastest: v3\n\n"
        "Most different: v3\n```diff\n--- v1\n+++ v3\n-    return w * h\n+    x = 1\n```"
    )


def test_plain_text_has_no_markup_and_indents_blocks() -> None:
    assert to_plain(DOC) == (
        "codequorum · Shape.area · 3 versions\n\n"
        "keep v2: 2 of 3 *agree*\n\n"
        "- consensus: v1\n- fastest: v3\n\n"
        "Most different: v3\n"
        "    --- v1\n    +++ v3\n    -    return w * h\n    +    x = 1"
    )


def test_plain_text_escapes_control_characters_and_bounds_length() -> None:
    text = to_plain((((Text("a\x1b[31mb\u202ec", limit=20), " ", Code("x" * 300)),),))
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b" in text and "\\u202e" in text
    assert len(text) < 250
    block = to_plain(((Block("ok\n\x1b[2Jgone"),),))
    assert block == "    ok\n    \\x1b[2Jgone"


@pytest.mark.parametrize(
    ("formats", "expected"),
    [
        (["plaintext"], "plaintext"),
        (["plaintext", "markdown"], "plaintext"),
        (["markdown", "plaintext"], "markdown"),
        (["html", "plaintext"], "plaintext"),  # a kind the server does not know is skipped
        ([], "markdown"),
        (None, "markdown"),
    ],
)
def test_the_client_s_first_known_format_wins(formats: object, expected: str) -> None:
    assert client_format(formats) == expected


def test_markup_content_says_its_kind() -> None:
    plain = markup_content(DOC, "plaintext")
    assert plain.kind == types.MarkupKind.PlainText and plain.value == to_plain(DOC)
    md = markup_content(DOC, "markdown")
    assert md.kind == types.MarkupKind.Markdown and md.value == to_markdown(DOC)


def test_tabs_of_code_show_as_indentation_not_escapes() -> None:
    """Code indented with tabs (decamelize's, Go's): the diff block shows the indentation,
    every other control character still escaped."""
    diff = ("--- v1\n+++ v3\n-\tif (text.length < 2) {\n-\t\treturn text.toLowerCase();\n"
            "+\tconst split = text;\x1b[2J\n")
    for render in (to_markdown, to_plain):
        out = render(((Block(diff, "diff"),),))
        assert "\\t" not in out and "\t" not in out
        assert "-   if (text.length < 2) {" in out and "-       return text" in out
        assert "\\x1b[2J" in out
