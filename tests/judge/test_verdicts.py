"""The verdict registry: every verdict made from a spec, every spec documented where the
diagnostics link, the one severity ranking and the one headline rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from lsprotocol import types

from codequorum.core.report import SEVERITIES, Verdict, headline, severity_rank, warns
from codequorum.judge import verdicts
from codequorum.judge.verdicts import BY_CODE, QUIET_CODES, VERDICTS, figure_text, style_of
from codequorum.lsp.diagnostics import SEVERITY

PACKAGE = Path(verdicts.__file__).resolve().parents[1]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def _verdict_calls(path: Path) -> list[int]:
    """Lines of ``path`` that build a :class:`Verdict` by hand."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "Verdict"]


def test_every_verdict_is_made_from_a_spec() -> None:
    # a rule can emit only a code that has a spec: no module builds a Verdict by hand
    made_by_hand = {str(p.relative_to(PACKAGE)): _verdict_calls(p)
                    for p in PACKAGE.rglob("*.py")
                    if p.name != "verdicts.py" or p.parent.name != "judge"}
    assert {k: v for k, v in made_by_hand.items() if v} == {}
    assert _verdict_calls(Path(verdicts.__file__)) != []  # the check sees the one maker


def test_codes_are_unique_and_named_like_anchors() -> None:
    codes = [spec.code for spec in VERDICTS]
    assert len(codes) == len(set(codes)) == len(BY_CODE)
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", code) for code in codes)
    assert all(spec.severity in SEVERITIES for spec in VERDICTS)


def test_every_spec_has_its_anchor_in_the_docs() -> None:
    text = DOCS.read_text(encoding="utf-8")
    headings = re.findall(r"^### (\S+)$", text, flags=re.M)
    assert [code for code in headings if code in BY_CODE] == [s.code for s in VERDICTS]
    for spec in VERDICTS:
        assert f"### {spec.code}\n\n{spec.severity.capitalize()}" in text


def test_the_docs_section_is_current() -> None:
    # scripts/generate writes it
    text = DOCS.read_text(encoding="utf-8")
    assert verdicts.with_docs_section(text) == text
    assert verdicts.BEGIN in text and verdicts.END in text


def test_the_docs_section_follows_a_spec() -> None:
    text = DOCS.read_text(encoding="utf-8")
    spec = verdicts.VerdictSpec(code="toy-verdict", severity="hint", title="A toy",
                                doc="Said of nothing.", source="behaviour")
    section = spec.section()
    assert section == "### toy-verdict\n\nHint (`--dynamic`). Said of nothing.\n"
    with pytest.raises(ValueError, match="no generated verdicts section"):
        verdicts.with_docs_section(text.replace(verdicts.BEGIN, ""))


def test_a_spec_makes_its_verdict() -> None:
    v = BY_CODE["divergent-outputs"].verdict("they differ", versions=(1, 2), figure=0.5)
    assert v == Verdict("divergent-outputs", "warning", "they differ", (1, 2), 0.5, {})


def test_quiet_codes_and_styles() -> None:
    assert {"stable"} == QUIET_CODES
    assert style_of("stable").table == "green" and style_of("stable").good
    assert style_of("unstable-structure").table == "yellow"
    assert style_of("insufficient").table == "dim"
    assert style_of("no-such-code").table == ""
    assert verdicts.html_colours() == {"stable": "#2e7d32", "insufficient": "#9e9e9e",
                                       "unstable-structure": "#c62828"}


def test_one_ranking_read_by_every_front_end() -> None:
    assert [severity_rank(s) for s in SEVERITIES] == [0, 1, 2, 3]
    assert severity_rank("fatal") == 4
    assert [warns(s) for s in SEVERITIES] == [True, True, False, False]
    assert {"error": types.DiagnosticSeverity.Error,
                        "warning": types.DiagnosticSeverity.Warning,
                        "information": types.DiagnosticSeverity.Information,
                        "hint": types.DiagnosticSeverity.Hint} == SEVERITY


def test_the_headline_is_the_first_that_warns_else_the_first() -> None:
    quiet = Verdict("stable", "information", "fine")
    loud = Verdict("divergent-outputs", "warning", "differ")
    assert headline([quiet, loud], lambda v: v.severity) is loud
    assert headline([quiet], lambda v: v.severity) is quiet
    assert headline([], lambda v: v.severity) is None
    dicts = [{"severity": "hint"}, {"severity": "error"}]
    assert headline(dicts, lambda v: v.get("severity")) is dicts[1]


@pytest.mark.parametrize(("codes", "shown"), [
    (["divergent-outputs", "stable"], ["divergent-outputs"]),
    (["not-run", "stable"], ["not-run"]),
    (["no-version-passes", "stable"], ["no-version-passes"]),
    (["divergent-outputs", "complexity-outlier", "stable"],
     ["divergent-outputs", "complexity-outlier"]),
    (["stable"], ["stable"]),
    (["complexity-outlier", "stable"], ["complexity-outlier", "stable"]),
    (["divergent-outputs", "unstable-structure"], ["divergent-outputs", "unstable-structure"]),
    ([], []),
])
def test_a_verdict_column_says_stable_only_where_no_run_contradicts_it(
        codes: list[str], shown: list[str]) -> None:
    assert verdicts.column_codes(codes) == shown


def test_a_findings_figure_is_said_in_its_verdicts_words() -> None:
    """A figure a message does not hold is named, not left a bare number; a message that
    names its figure in its own precision (BEF, growth) gets nothing added."""
    assert figure_text("divergent-outputs", 0.94) == "all versions agree on 94 % of the inputs"
    assert figure_text("divergent-outputs", 0.0) == "all versions agree on 0 % of the inputs"
    assert figure_text("runtime-instability", 0.00872) == ""
    assert figure_text("complexity-outlier", 2.1) == ""
    assert figure_text("some-new-code", 0.5) == "0.50"
    assert figure_text("divergent-outputs", None) == ""
