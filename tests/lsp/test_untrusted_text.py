"""Text a version produced never reaches the editor raw: hovers, diagnostics, lenses and
code actions escape control, bidi and zero-width characters, bound lengths, and keep
markdown from a version's text out of the hover's markup."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, given, settings

from codequorum.core.model import Version
from codequorum.core.report import Verdict
from codequorum.lsp.actions import CommandOffer, command_actions, function_actions
from codequorum.lsp.diagnostics import document_diagnostics
from codequorum.lsp.hover import render_hover
from codequorum.lsp.lenses import document_lenses
from codequorum.lsp.markdown import md_block, md_code, md_text
from codequorum.lsp.rendering import Text, to_plain
from codequorum.lsp.settings import parse_settings
from codequorum.render.findings import function_findings

from ..support.hostile_names import (
    HOSTILE_NAMES,
    live_icons,
    live_links,
    markdown_links,
    raw_characters,
    readable,
)
from .test_renderers import Fixed, _stored, fixed  # noqa: F401  (the fixture)

ESC = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"
BIDI = "\u202eevil\u202c\u2066x\u2069\u200b"
FENCE = "```\n[click](https://evil.example) <img src=x onerror=alert(1)>\n```"
HOSTILE = f"ValueError: {ESC}{BIDI} {FENCE}"
#: Nothing of this may appear raw in what the editor shows.
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")

HOSTILE_CODE = (
    "def area(w, h):\n"
    f"    '''{ESC}\n````\n```\n'''\n"
    f"    raise ValueError('{BIDI}')\n"
)


@pytest.fixture
def hostile(fixed: Fixed) -> Fixed:  # noqa: F811
    """The fixed report with a verdict that quotes a version's exception message, a
    version whose code holds escapes and fences, and a hostile function name."""
    snap, entry, analysis = fixed
    verdict = Verdict(
        code="divergent-outputs",
        severity="warning",
        message=f"version 3 raised {HOSTILE}" + "x" * 5000,
        versions=(2,),
        figure=0.5,
    )
    stored = (*analysis.stored[:2], _stored(2, HOSTILE_CODE))
    versions = [s.to_version() for s in stored] + [analysis.version_set.versions[3]]
    report = dataclasses.replace(analysis.report, verdicts=[verdict])
    analysis = dataclasses.replace(
        analysis,
        stored=stored,
        version_set=dataclasses.replace(analysis.version_set, versions=versions),
        report=report,
    )
    entry = dataclasses.replace(entry, name=f"area{ESC}", qualified_name=f"Shape.area{BIDI}")
    return snap, entry, analysis


def _fences(markdown: str) -> list[str]:
    return re.findall(r"^`{3,}[^\n`]*$", markdown, flags=re.MULTILINE)


def test_hover_escapes_and_fences_hostile_text(hostile: Fixed) -> None:
    _snap, entry, analysis = hostile
    settings, _ = parse_settings({"hover": {"diffLines": 50}})
    text = render_hover(entry, analysis, settings)
    assert RAW.search(text) is None
    assert "\\x1b]0;pwned\\x07" in text
    assert "\\u202eevil" in text
    # the verdict is bounded and its markup is escaped: no link, no HTML, no fence
    verdict_line = next(line for line in text.split("\n") if "divergent" in line)
    assert len(verdict_line) < 900
    assert "\\[click\\](https://\\evil.example)" in verdict_line
    assert "\\<img src=x onerror=alert(1)\\>" in verdict_line
    assert "```" not in verdict_line.replace("\\`", "")
    assert "<img" not in text.replace("\\<img", "")
    # the diff's fence is longer than any backtick run in the code, and it is the only one
    opening, closing = _fences(text)
    assert opening == "`````diff" and closing == "`````"
    body = text.split("`````diff\n", 1)[1].split("\n`````", 1)[0]
    assert "+````" in body and "+```" in body


def test_diagnostics_and_findings_escape_hostile_text(hostile: Fixed) -> None:
    snap, entry, analysis = hostile
    settings, _ = parse_settings(None)
    [diag] = document_diagnostics(snap, [(entry, analysis)], settings)
    shown = [diag.message] + [r.message for r in diag.related_information or []]
    for message in shown:
        assert RAW.search(message) is None
        assert "\n" not in message
    assert "version 3 raised ValueError: \\x1b]0;pwned\\x07\\x1b[2J" in diag.message
    assert "\\u202eevil\\u202c" in diag.message
    assert len(diag.message) < 700
    assert diag.message.endswith(
        "[`area\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m`: 3 versions + your code]")
    [finding] = function_findings(analysis, entry.name)
    assert finding.message == diag.message


def test_lens_and_action_titles_escape_names(hostile: Fixed) -> None:
    snap, entry, analysis = hostile
    settings, _ = parse_settings(None)
    titles = [
        lens.command.title
        for lens in document_lenses(snap, [(entry, analysis)], settings)
        if lens.command
    ]
    titles += [a.title for a in function_actions(snap, entry, analysis)]
    assert titles and all(RAW.search(t) is None for t in titles)
    assert "Replace `area\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m` with version 1" in titles


def test_markdown_helpers() -> None:
    assert md_text("1. *a* [b](c) <i>&amp; | ~~d~~ # e") == (
        "1\\. \\*a\\* \\[b\\](c) \\<i\\>\\&amp; \\| \\~\\~d\\~\\~ \\# e"
    )
    assert md_text("- item") == "\\- item"
    assert md_text("see www.example.com") == "see www\\.example.com"
    assert md_text("line\nbreak\x1b") == "line\\\\nbreak\\\\x1b"
    assert md_code("a`b") == "``a`b``"
    assert md_code("`") == "`` ` ``"
    assert md_block("x\n```\ny", "diff") == "````diff\nx\n```\ny\n````"
    assert md_block("x", "py`thon") == "```python\nx\n```"
    assert len(md_block("x" * 50_000)) < 6100


def test_sample_text_is_unchanged_where_it_is_code(hostile: Fixed) -> None:
    """Escaping is for display: the code a replacement inserts is the version as stored."""
    snap, entry, analysis = hostile
    actions = function_actions(snap, entry, analysis)
    edit = actions[-1].edit
    assert edit is not None and edit.changes is not None
    assert "\x1b]0;pwned" in edit.changes[snap.uri][0].new_text
    assert isinstance(analysis.version_set.versions[0], Version)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE_NAMES)
def test_the_markdown_sink_leaves_a_hostile_name_inert_and_readable(name: str) -> None:
    for out in (md_text(name, None), md_code(name, None)):
        assert raw_characters(out) == [], out
        assert markdown_links(out) == [], out
        assert readable(name, out), out
    block = md_block(name, "python", None)
    assert raw_characters(block, newlines=True) == []
    assert markdown_links(block) == []
    plain = to_plain(((("name: ", Text(name, None)),),))
    assert raw_characters(plain) == [] and readable(name, plain)


def test_titles_the_editor_draws_make_no_icon_and_no_link(hostile: Fixed) -> None:
    snap, entry, analysis = hostile
    entry = dataclasses.replace(entry, name="area$(terminal)[x](command:y)")
    settings, _ = parse_settings(None)
    titles = [lens.command.title for lens in document_lenses(snap, [(entry, analysis)], settings)
              if lens.command]
    titles += [a.title for a in function_actions(snap, entry, analysis)]
    titles += [a.title for a in command_actions(snap.uri, entry, CommandOffer(stored=3))]
    named = [t for t in titles if "area" in t]
    assert named and all(live_icons(t) == [] and live_links(t) == [] for t in titles), titles
    assert "Compare the versions of `area$ (terminal)[x] (command:y)`" in titles
