"""Renderers (diagnostics, hover, lenses, code actions) on a fixed report."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest
from lsprotocol import types

from codequorum.core.model import Version, VersionSet
from codequorum.core.report import StabilityReport, Verdict
from codequorum.ingest.store import StoredVersion, content_hash
from codequorum.judge.risk import RiskEstimate, trust_words
from codequorum.lsp.actions import function_actions
from codequorum.lsp.diagnostics import document_diagnostics
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.hover import render_hover
from codequorum.lsp.lenses import document_lenses
from codequorum.lsp.settings import parse_settings

from .helpers import apply_edits

V1 = "def area(w, h):\n    return w * h\n"
V2 = "def area(w, h):\n    result = w * h\n    return result\n"
V3 = (
    "def area(w, h):\n    total = 0\n    for _ in range(h):\n        total += w\n    return total\n"
)
CURRENT = "def area(w, h):\n    return h * w\n"

Fixed = tuple[Snapshot, FunctionEntry, FunctionAnalysis]

DOC = "class Shape:\n    def area(w, h):\n        return h * w\n"


def _stored(i: int, code: str) -> StoredVersion:
    return StoredVersion(
        id=i + 1,
        file="shape.py",
        language="python",
        qualified_name="Shape.area",
        code=code,
        content_hash=content_hash(code),
        origin="relayed",
        label="",
        provider=None,
        model=None,
        temperature=None,
        seed=None,
        prompt_hash=None,
        created=0.0,
    )


@pytest.fixture
def fixed() -> Fixed:
    stored = tuple(_stored(i, c) for i, c in enumerate((V1, V2, V3)))
    versions = [s.to_version() for s in stored] + [Version(code=CURRENT, origin="current")]
    version_set = VersionSet(task_id="shape.py::Shape.area", versions=versions)
    verdict = Verdict(
        code="unstable-structure",
        severity="warning",
        message="Versions disagree in shape: mean JSD 0.62 < 0.80; version 3 is an outlier: "
        "JSD 0.30 vs 0.79 mean",
        versions=(2,),
        figure=0.62,
    )
    report = StabilityReport(
        task_id=version_set.task_id,
        language="python",
        status="ok",
        n=4,
        n_total=4,
        indices=[0, 1, 2, 3],
        summary={
            "jsd_struct": {"ordered": 0.62, "unordered": 0.63},
            "sce_struct": {"ordered": 0.71, "unordered": 0.7},
            "tsed": {"ordered": 0.55, "unordered": 0.55},
        },
        typicality=[0.8, 0.78, 0.3, 0.75],
        medoid=0,
        clusters=[[0, 1, 3], [2]],
        verdicts=[verdict],
        current_index=3,
    )
    analysis = FunctionAnalysis(
        file_key="shape.py",
        qualified_name="Shape.area",
        language="python",
        stored=stored,
        version_set=version_set,
        current_index=3,
        report=report,
        dynamic=None,
        key="k1",
        dyn_key="d1",
        most_different=2,
        fastest=None,
    )
    snap = Snapshot(uri="file:///w/shape.py", text=DOC, language="python", encoding="utf-16")
    rng = types.Range(
        start=types.Position(line=1, character=4), end=types.Position(line=2, character=20)
    )
    name_rng = types.Range(
        start=types.Position(line=1, character=8), end=types.Position(line=1, character=12)
    )
    entry = FunctionEntry(
        info=SimpleNamespace(text="def area(w, h):\n        return h * w"),
        qualified_name="Shape.area",
        name="area",
        range=rng,
        name_range=name_rng,
        indent="    ",
    )
    return snap, entry, analysis


def test_diagnostic_per_verdict_on_the_name(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    settings, _ = parse_settings(None)
    [diag] = document_diagnostics(snap, [(entry, analysis)], settings)
    assert diag.code == "unstable-structure"
    assert diag.source == "codequorum"
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.range == entry.name_range
    assert "mean JSD 0.62 < 0.80" in diag.message
    assert diag.message.endswith("[`area`: 3 versions + your code]")
    assert diag.related_information is not None
    assert diag.related_information[0].location.range == entry.range
    assert diag.related_information[0].message == (
        "`Shape.area`: 3 versions + your code compared in 2 groups; consensus is v1")
    assert diag.related_information[1].message == "unstable-structure concerns v3"
    assert diag.data == {
        "qualifiedName": "Shape.area",
        "code": "unstable-structure",
        "figure": 0.62,
        "versions": [2],
    }


def test_min_severity_and_disable_filter_diagnostics(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    errors_only, _ = parse_settings({"diagnostics": {"minSeverity": "error"}})
    assert document_diagnostics(snap, [(entry, analysis)], errors_only) == []
    off, _ = parse_settings({"diagnostics": {"enable": False}})
    assert document_diagnostics(snap, [(entry, analysis)], off) == []


def test_hover_reads_the_report(fixed: Fixed) -> None:
    _snap, entry, analysis = fixed
    settings, _ = parse_settings(None)
    text = render_hover(entry, analysis, settings)
    lines = text.split("\n")
    assert lines[0] == "**codequorum** · `Shape.area` · 3 versions + your code · 2 clusters"
    assert "⚠️ `unstable-structure` — Versions disagree in shape" in text
    assert "JSD 0.62 · SCE 0.71 · TSED 0.55" in text
    assert "- consensus: **v1** (its cluster holds 3 of the 3 versions + your code)" in text
    assert "- current code: in the consensus cluster, typicality 0.75" in text
    assert "Most different: v3" in text
    diff = text.split("```diff\n", 1)[1].split("\n```", 1)[0].split("\n")
    assert diff[:2] == ["--- current", "+++ v3"]
    assert "-    return h * w" in diff
    assert "+    for _ in range(h):" in diff


def test_hover_diff_is_capped(fixed: Fixed) -> None:
    _snap, entry, analysis = fixed
    settings, _ = parse_settings({"hover": {"diffLines": 2}})
    diff = render_hover(entry, analysis, settings).split("```diff\n", 1)[1].split("\n```")[0]
    body = diff.split("\n")[2:]
    assert len(body) == 3
    assert body[-1].endswith("more lines")
    none, _ = parse_settings({"hover": {"diffLines": 0}})
    assert "```diff" not in render_hover(entry, analysis, none)


def test_lenses_titles_and_commands(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    settings, _ = parse_settings(None)
    lenses = document_lenses(snap, [(entry, analysis)], settings)
    assert [lens.command.title for lens in lenses if lens.command] == [
        "3 versions + your code · shape unstable 0.62 · not run yet",
        "Compare",
        "Regenerate",
    ]
    assert [lens.command.command for lens in lenses if lens.command] == [
        "codequorum.analyze",
        "codequorum.compare",
        "codequorum.regenerate",
    ]
    assert all(lens.range.start == entry.range.start for lens in lenses)
    assert lenses[2].command and lenses[2].command.arguments == [
        {"uri": snap.uri, "qualifiedName": "Shape.area", "interactive": True}
    ]


def test_actions_replace_just_the_function_reindented(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    diags = document_diagnostics(snap, [(entry, analysis)], parse_settings(None)[0])
    actions = function_actions(snap, entry, analysis, diags)
    assert [a.title for a in actions] == [
        "Replace `area` with the consensus version (v1)",
        "Replace `area` with version 1",
        "Replace `area` with version 2",
        "Replace `area` with version 3",
    ]
    assert actions[0].kind == types.CodeActionKind.QuickFix
    assert actions[0].is_preferred is True
    assert actions[1].kind == types.CodeActionKind.RefactorRewrite
    edit = actions[3].edit
    assert edit is not None and edit.changes is not None
    [text_edit] = edit.changes[snap.uri]
    assert text_edit.range == entry.range
    assert apply_edits(DOC, [text_edit]) == (
        "class Shape:\n    def area(w, h):\n        total = 0\n        for _ in range(h):\n"
        "            total += w\n        return total\n"
    )


def test_a_consensus_of_one_is_no_fix(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    analysis.report.clusters = [[0], [1], [2], [3]]  # no two versions share a shape
    diags = document_diagnostics(snap, [(entry, analysis)], parse_settings(None)[0])
    assert "no consensus" in diags[0].related_information[0].message  # type: ignore[index]
    titles = [a.title for a in function_actions(snap, entry, analysis, diags)]
    assert titles == [f"Replace `area` with version {k}" for k in (1, 2, 3)]
    text = render_hover(entry, analysis, parse_settings(None)[0])
    assert ("- no consensus: no two of the 3 versions + your code share a shape; the most "
            "typical is **v1**") in text
    assert "- current code: no consensus to compare with (cluster 4 of 4)" in text


def test_the_consensus_is_the_group_the_shape_count_counts(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    # one stored version shares its shape with the current code only: "2 of 3 versions +
    # your code share one shape", so v2 is the consensus, not "a shape of its own"
    analysis.report.clusters = [[1, 3], [0], [2]]
    text = render_hover(entry, analysis, parse_settings(None)[0])
    assert "- consensus: **v2** (its cluster holds 2 of the 3 versions + your code)" in text
    assert "- current code: in the consensus cluster" in text
    diags = document_diagnostics(snap, [(entry, analysis)], parse_settings(None)[0])
    assert "; consensus is v2" in diags[0].related_information[0].message  # type: ignore[index]


def test_hover_says_where_the_current_code_stands_as_the_diagnostic_does(fixed: Fixed) -> None:
    _snap, entry, analysis = fixed
    analysis.report.verdicts.append(Verdict("outlier-current", "warning", "far", versions=(3,)))
    text = render_hover(entry, analysis, parse_settings(None)[0])
    assert "- current code: far from the consensus (cluster 1 of 2)" in text
    analysis.report.verdicts.pop()
    analysis.report.clusters = [[0, 1], [2], [3]]
    text = render_hover(entry, analysis, parse_settings(None)[0])
    assert "- current code: not far from the consensus (cluster 3 of 3)" in text


def test_diagnostic_codes_link_to_their_section_of_the_metrics_docs(
    fixed: Fixed, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from codequorum.lsp.diagnostics import metrics_docs_url

    snap, entry, analysis = fixed
    [diag] = document_diagnostics(snap, [(entry, analysis)], parse_settings(None)[0])
    assert diag.code_description is not None
    url, anchor = diag.code_description.href.split("#")
    assert url.endswith("/docs/metrics.md") and anchor == "unstable-structure"
    docs = (Path(__file__).resolve().parents[2] / "docs" / "metrics.md").read_text()
    for code in ("stable", "unstable-structure", "outlier-current", "divergent-outputs",
                 "complexity-outlier", "runtime-instability", "redundant-alternatives"):
        assert f"\n### {code}\n" in docs
    metrics_docs_url.cache_clear()
    monkeypatch.setenv("CODEQUORUM_DOCS_URL", "https://example.org/docs/")
    try:
        assert metrics_docs_url() == "https://example.org/docs/metrics.md"
    finally:
        metrics_docs_url.cache_clear()


def _recommending(
    analysis: FunctionAnalysis, index: int, dynamic: object = None
) -> FunctionAnalysis:
    analysis.report.recommended = index
    analysis.report.recommended_by = "behaviour"
    analysis.report.recommendation = (
        f"keep version {index + 1}: 3 of 4 versions agree with it on 2 inputs"
    )
    analysis.report.risk = 0.34
    analysis.report.trust = trust_words(RiskEstimate(0.34, "uncertain", 0.3, 0.4, "examples"))
    analysis.report.stability_percentile = 8.0
    return dataclasses.replace(analysis, dynamic=dynamic)


DYNAMIC = SimpleNamespace(
    inputs=[
        {"label": "area(0, 0)", "source": "hypothesis", "graded": False},
        {"label": "area(2, 3)", "source": "doctest", "graded": False},
    ],
    outcomes=[
        [("0", None, None), ("6", None, None)],
        [("0", None, None), ("6.0", None, None)],
        [("1", None, None), ("5", None, None)],
        [("0", None, None), ("6", None, None)],
    ],
)


def test_hover_shows_recommendation_risk_percentile_and_parting_input(fixed: Fixed) -> None:
    _snap, entry, analysis = fixed
    analysis = _recommending(analysis, 1, DYNAMIC)
    text = render_hover(entry, analysis, parse_settings(None)[0])
    assert "- keep version 2: 3 of 4 versions agree with it on 2 inputs\n" in text
    assert (
        "- uncertain: about 1 in 3 that it is wrong (30–40 % in held-out tests)\n"
    ) in text
    # 6 and 6.0 are the same value: only version 3 parts ways; the doctest input comes first
    assert "- on area(2, 3) version 2 returns 6.0; version 3 returns 5" in text


def test_hover_names_the_current_code_when_it_is_recommended(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    analysis = _recommending(analysis, 3)
    text = render_hover(entry, analysis, parse_settings(None)[0])
    assert "- keep the current code: 3 of 4 versions agree with it on 2 inputs" in text
    assert not any(a.title.startswith("Keep") for a in function_actions(snap, entry, analysis))


def test_action_keeps_the_recommended_version(fixed: Fixed) -> None:
    snap, entry, analysis = fixed
    analysis = _recommending(analysis, 1)
    diags = document_diagnostics(snap, [(entry, analysis)], parse_settings(None)[0])
    actions = function_actions(snap, entry, analysis, diags)
    assert [a.title for a in actions[:2]] == [
        "Keep the recommended version (version 2)",
        "Replace `area` with the consensus version (v1)",
    ]
    assert actions[0].kind == types.CodeActionKind.QuickFix
    assert actions[0].is_preferred is True
    assert actions[1].is_preferred is None
    edit = actions[0].edit
    assert edit is not None and edit.changes is not None
    [text_edit] = edit.changes[snap.uri]
    assert text_edit.range == entry.range
    assert apply_edits(DOC, [text_edit]) == (
        "class Shape:\n    def area(w, h):\n        result = w * h\n        return result\n"
    )
