"""The hover: a compact summary of one function's versions.

Reads the report (summary, clusters, medoid, typicality, verdicts) and the versions'
text; the only thing it makes is a short unified diff for display. The hover is composed
once as a :data:`~codequorum.lsp.rendering.Doc` and rendered as markdown, or as plain text
for a client that asks for it. Every piece of text that is not our own wording (names,
messages, labels, code) is marked as such (:class:`~codequorum.lsp.rendering.Text`,
:class:`~codequorum.lsp.rendering.Code`, :class:`~codequorum.lsp.rendering.Block`), so in
markdown it shows as written and cannot add links, images, HTML or close a code fence.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from codequorum.core.limits import MAX_DIFF_LINES
from codequorum.core.report import Verdict, warns
from codequorum.judge.verdicts import style_of
from codequorum.lsp.documents import FunctionEntry
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.rendering import (
    Block,
    Bullet,
    Code,
    Doc,
    Format,
    Line,
    Paragraph,
    Strong,
    Text,
    render,
)
from codequorum.lsp.settings import Settings
from codequorum.metrics.registry import PAIR_METRICS, SCALAR_FIGURES, shown
from codequorum.render.findings import (
    compared_text,
    consensus,
    current_standing,
    inputs_text,
    recommendation_lines,
)

#: (summary key, label) of the pairwise figures shown, in order (the registry's ``hover``).
PAIR_FIGURES: tuple[tuple[str, str], ...] = tuple(
    (m.key, m.show.hover_label or m.label) for m in shown(PAIR_METRICS, "hover"))
#: (summary key, label) of the dynamic figures shown when a sandboxed run exists.
DYNAMIC_FIGURES: tuple[tuple[str, str], ...] = tuple(
    (f.key, f.show.hover_label or f.label) for f in shown(SCALAR_FIGURES, "hover"))


#: What a hover says while the versions are still being compared.
COMPUTING = "comparing the versions…"


def computing_doc(entry: FunctionEntry, n_stored: int) -> Doc:
    """The hover of a function whose analysis is under way."""
    count = f"{n_stored} version{'s' if n_stored != 1 else ''}"
    return (((Strong("codequorum"), " · ", Code(entry.name), f" · {count} · {COMPUTING}"),),)



def _fmt(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("ordered")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value:  # NaN
        return None
    return f"{value:.2f}" if abs(value) < 1000 else f"{value:.3g}"


def short_diff(a: str, b: str, a_name: str, b_name: str, max_lines: int) -> str:
    """At most ``max_lines`` lines of a unified diff of ``a`` against ``b``; none when
    either is longer than :data:`~codequorum.core.limits.MAX_DIFF_LINES` (the hover is
    rendered on the event loop, and difflib grows much faster than the versions)."""
    a_lines, b_lines = a.splitlines(), b.splitlines()
    if max_lines <= 0 or max(len(a_lines), len(b_lines)) > MAX_DIFF_LINES:
        return ""
    lines = list(
        difflib.unified_diff(a_lines, b_lines, fromfile=a_name, tofile=b_name, lineterm="", n=1)
    )
    if not lines:
        return ""
    head, body = lines[:2], lines[2:]
    if len(body) > max_lines:
        body = [*body[:max_lines], f"... {len(body) - max_lines} more lines"]
    return "\n".join(head + body)


def hover_title(qualified_name: str, compared: str, n_clusters: int | None) -> Line:
    """The hover's first line: the function, what was compared (``4 versions + your
    code``, :func:`~codequorum.render.findings.compared_text`) and, once they were compared, how
    many clusters they form."""
    title: Line = (Strong("codequorum"), " · ", Code(qualified_name), f" · {compared}")
    if n_clusters is not None:
        title += (f" · {n_clusters} cluster{'s' if n_clusters != 1 else ''}",)
    return title


def verdict_lines(headline: Verdict | None, verdicts: Sequence[Verdict]) -> list[Line]:
    """The headline verdict (marked ⚠️ when it warns, ✓ when not), then every other
    verdict that warns: the hover leaves out the quiet ones the headline already sums up."""
    lines: list[Line] = []
    if headline is not None:
        mark = "⚠️" if warns(headline.severity) else "✓" if style_of(headline.code).good else "·"
        lines.append((f"{mark} ", Code(headline.code), " — ", Text(headline.message)))
    for verdict in verdicts:
        if verdict is not headline and warns(verdict.severity):
            lines.append(("⚠️ ", Code(verdict.code), " — ", Text(verdict.message)))
    return lines


def figures_text(summary: Mapping[str, object]) -> str:
    """``JSD 0.62 · SCE 0.71 · TSED 0.55`` and the dynamic figures, in the order of
    :data:`PAIR_FIGURES` and :data:`DYNAMIC_FIGURES`; figures without a number are left
    out (empty when none has one)."""
    figures = []
    for key, label in PAIR_FIGURES + DYNAMIC_FIGURES:
        text = _fmt(summary.get(key))
        if text is not None:
            figures.append(f"{label} {text}")
    return " · ".join(figures)


def diff_pair(current: int | None, medoid: int | None, other: int | None
              ) -> tuple[int, int] | None:
    """The two versions a diff shows: the current code (the most typical version without
    one) against the most different version; None when either is missing."""
    anchor = current if current is not None else medoid
    if anchor is None or other is None:
        return None
    return anchor, other


def sandbox_note(dynamic: object) -> str | None:
    """Which sandbox the versions ran in and why, when it was not the strict one (the
    report's own note; None for a strict run or no run): never a silent downgrade."""
    from codequorum.behaviour.sandbox.isolation import sandbox_note as named

    return named(getattr(dynamic, "notes", None) or [])


def _recommendation_paragraph(analysis: FunctionAnalysis, not_run: str | None) -> Paragraph:
    """Which version to keep and how likely it is wrong, as a list (empty when nothing is
    recommended); ``not_run``: what to say in place of "not run yet"."""
    return tuple(Bullet((Text(line),)) for line in recommendation_lines(analysis, not_run))


def _consensus_line(analysis: FunctionAnalysis) -> Bullet | None:
    """The consensus and how many versions its cluster holds (the group the structure
    verdict counts), or, when no two of those compared share a shape, the most typical."""
    report = analysis.report
    agreed = consensus(analysis)
    if agreed is not None:
        group = next(g for g in report.clusters if agreed in g)
        return Bullet((
            "consensus: ", Strong(Text(analysis.label(agreed))), " (its cluster holds "
            f"{len(group)} of the {compared_text(analysis)})",
        ))
    if report.medoid is not None:
        typical = Strong(Text(analysis.label(report.medoid)))
        return Bullet((
            f"no consensus: no two of the {compared_text(analysis)} share a shape; the "
            "most typical is ", typical,
        ))
    return None


def _current_line(analysis: FunctionAnalysis) -> Bullet | None:
    """Where the current code stands, with its typicality when there is one."""
    report = analysis.report
    current = analysis.current_index
    where = current_standing(analysis)
    if current is None or where is None:
        return None
    pos = report.indices.index(current)
    typ = report.typicality[pos] if pos < len(report.typicality) else None
    typ_text = f", typicality {_fmt(typ)}" if _fmt(typ) is not None else ""
    return Bullet((f"current code: {where}{typ_text}",))


def _standing_paragraph(analysis: FunctionAnalysis) -> Paragraph:
    """The consensus, the current code, the fastest version and what the run ran on (with
    where its inputs came from), one line each (empty when none applies)."""
    fastest = analysis.fastest
    ran = inputs_text(analysis)
    lines = [
        _consensus_line(analysis),
        _current_line(analysis),
        Bullet(("fastest: ", Text(analysis.label(fastest)))) if fastest is not None else None,
        Bullet((Text(ran),)) if ran else None,
    ]
    return tuple(line for line in lines if line is not None)


def _diff_paragraph(analysis: FunctionAnalysis, max_lines: int) -> Paragraph:
    """The most different version as a short diff against the current code (or the most
    typical version); empty when there is nothing to show."""
    pair = diff_pair(analysis.current_index, analysis.report.medoid, analysis.most_different)
    if pair is None:
        return ()
    anchor, other = pair
    diff = short_diff(
        analysis.code(anchor),
        analysis.code(other),
        analysis.label(anchor),
        analysis.label(other),
        max_lines,
    )
    if not diff:
        return ()
    return (("Most different: ", Text(analysis.label(other))), Block(diff, "diff"))


def hover_doc(entry: FunctionEntry, analysis: FunctionAnalysis, diff_lines: int,
              not_run: str | None = None) -> Doc:
    """The hover over ``entry``: one paragraph per piece (empty ones are left out when
    rendered), the diff at most ``diff_lines`` long; ``not_run``: why the versions have not
    run, or that they are running (:func:`~codequorum.lsp.autorun.not_run_note`)."""
    report = analysis.report
    if report.status != "ok":
        title = hover_title(entry.qualified_name, compared_text(analysis), None)
        return ((title,), ((Text(report.message or "not enough versions to compare"),),))
    figures = figures_text(report.summary)
    return (
        (hover_title(entry.qualified_name, compared_text(analysis), len(report.clusters)),),
        *((line,) for line in verdict_lines(report.verdict, report.verdicts)),
        ((figures,),) if figures else (),
        ((Text(note),),) if (note := sandbox_note(analysis.dynamic)) else (),
        _recommendation_paragraph(analysis, not_run),
        _standing_paragraph(analysis),
        _diff_paragraph(analysis, diff_lines),
    )


def render_hover(
    entry: FunctionEntry, analysis: FunctionAnalysis, settings: Settings,
    fmt: Format = "markdown",
) -> str:
    """The hover over ``entry`` in ``fmt`` (markdown, or plain text)."""
    return render(hover_doc(entry, analysis, settings.hover.diff_lines), fmt)
