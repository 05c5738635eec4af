"""What Compare and Show Report show to a person: a function's versions compared with its
current code, and its whole report, composed as :data:`~codequorum.lsp.rendering.Doc` (a
document where the client opens one, else a message; see :mod:`views`)."""

from __future__ import annotations

from codequorum.lsp.documents import FunctionEntry
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.hover import diff_pair, hover_doc, hover_title, short_diff
from codequorum.lsp.rendering import Block, Doc, Line, Paragraph, Text
from codequorum.render.findings import compared_text

#: Most lines of each diff in a document (a message keeps to ``hover.diffLines``).
DOCUMENT_DIFF_LINES = 400


def _title(entry: FunctionEntry, analysis: FunctionAnalysis) -> Line:
    report = analysis.report
    clusters = len(report.clusters) if report.status == "ok" else None
    return hover_title(entry.qualified_name, compared_text(analysis), clusters)


def compared_order(anchor: int, most_different: int | None, count: int) -> list[int]:
    """The versions compared with ``anchor``: the most different first, then the others in
    their order (``anchor`` itself left out)."""
    rest = [i for i in range(count) if i not in (anchor, most_different)]
    return ([most_different] if most_different not in (None, anchor) else []) + rest


def _against(analysis: FunctionAnalysis, anchor: int, other: int, max_lines: int) -> Paragraph:
    """One version against the anchor: a line naming both, then the diff."""
    label: Line = (Text(analysis.label(other)),)
    if other == analysis.most_different:
        label = ("Most different: ", *label)
    diff = short_diff(analysis.code(anchor), analysis.code(other), analysis.label(anchor),
                      analysis.label(other), max_lines)
    if not diff:
        return ((*label, " is the same as ", Text(analysis.label(anchor))),)
    return ((*label, " against ", Text(analysis.label(anchor))), Block(diff, "diff"))


def comparison_doc(
    entry: FunctionEntry, analysis: FunctionAnalysis, max_lines: int, every: bool = True
) -> Doc:
    """The versions against the current code (the most typical version without one), the
    most different first; only that one unless ``every``; each diff at most ``max_lines``
    long."""
    pair = diff_pair(analysis.current_index, analysis.report.medoid, analysis.most_different)
    title = _title(entry, analysis)
    anchor = pair[0] if pair is not None else None
    if anchor is None:
        return ((title,), (("no two versions to compare yet",),))
    count = len(analysis.version_set.versions)
    order = compared_order(anchor, analysis.most_different, count)
    shown = order if every else order[:1]
    return ((title,), *(_against(analysis, anchor, i, max_lines) for i in shown))


def _version(analysis: FunctionAnalysis, index: int) -> Paragraph:
    """One version: its label, where it came from, its code."""
    version = analysis.version_set.versions[index]
    source = ", ".join(x for x in (version.origin, version.provider, version.model) if x)
    head: Line = (Text(analysis.label(index)), " · ", Text(source, 200))
    return (head, Block(version.code, analysis.language))


def report_doc(entry: FunctionEntry, analysis: FunctionAnalysis) -> Doc:
    """The whole report: the hover (with a long diff), then every version's code."""
    versions = tuple(_version(analysis, i) for i in range(len(analysis.version_set.versions)))
    return (
        *hover_doc(entry, analysis, DOCUMENT_DIFF_LINES),
        (("The versions",),),
        *versions,
    )
