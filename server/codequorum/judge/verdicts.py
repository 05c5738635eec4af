"""Every verdict a report can carry, declared once: code, severity, title, docs, style.

One :class:`VerdictSpec` per code. The rules (:mod:`codequorum.judge.structure`,
:mod:`codequorum.judge.dynamic_rules`, the refusal of :mod:`codequorum.pipeline.analyze`) make
their verdicts from it (:meth:`VerdictSpec.verdict`), so a code without a spec cannot be
emitted; findings, the table, the HTML report, the diagnostics and ``check`` read the
severity ranking (:data:`~codequorum.core.report.SEVERITIES`), what is quiet and the
styles from here; the "Verdicts" section of docs/metrics.md is written from the specs
(``scripts/generate``), so the anchor a diagnostic links to exists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from codequorum.core.report import Severity, Verdict

#: What a verdict is about, and so where it can appear.
Source = Literal["structure", "current", "limits", "behaviour", "module"]

#: Where each source's verdicts appear, in the docs' words ("" for every report).
WHERE: dict[Source, str] = {
    "structure": "",
    "current": "editor, `check`",
    "limits": "editor, `check`",
    "behaviour": "`--dynamic`",
    "module": "editor, `check --dynamic`",
}


@dataclass(frozen=True)
class Style:
    """How a verdict is coloured: ``table``, a rich style in the terminal table ("" for
    none); ``colour``, its fixed colour in the HTML report (None: the next colour of the
    report's palette); ``good``, whether it says nothing is wrong."""

    table: str = ""
    colour: str | None = None
    good: bool = False


GOOD = Style(table="green", colour="#2e7d32", good=True)
SHAPE = Style(table="yellow", colour="#c62828")
FAR = Style(table="yellow")
PLAIN = Style()
#: A set too small to score: a status, not a verdict, shown in the verdicts' place.
INSUFFICIENT = "insufficient"
INSUFFICIENT_STYLE = Style(table="dim", colour="#9e9e9e")


@dataclass(frozen=True)
class VerdictSpec:
    """One verdict code: ``severity`` of its findings, ``title`` (one line), ``doc`` (its
    section of docs/metrics.md after the severity), ``source`` (what it is about),
    ``style``; ``quiet``: never a finding (it says nothing is wrong)."""

    code: str
    severity: Severity
    title: str
    doc: str
    source: Source
    style: Style = PLAIN
    quiet: bool = False
    #: How a finding names the verdict's figure when its message does not hold it:
    #: ``{value}`` the figure (two decimals), ``{percent}`` it as a whole percentage; ""
    #: says nothing more (the message already names it, in its own precision).
    figure_words: str = "{value}"

    def figure_text(self, figure: float) -> str:
        """The figure in this verdict's words ("" when the message says it already)."""
        return self.figure_words.format(value=f"{figure:.2f}",
                                        percent=f"{round(100 * figure)} %")

    def verdict(self, message: str, versions: tuple[int, ...] = (),
                figure: float | None = None,
                detail: dict[str, Any] | None = None) -> Verdict:
        """A verdict with this code and severity."""
        return Verdict(code=self.code, severity=self.severity, message=message,
                       versions=versions, figure=figure,
                       detail={} if detail is None else detail)

    def section(self) -> str:
        """Its section of docs/metrics.md (the heading is the anchor a diagnostic links)."""
        where = WHERE[self.source]
        lead = self.severity.capitalize() + (f" ({where})" if where else "")
        return f"### {self.code}\n\n{lead}. {self.doc}\n"


STABLE = VerdictSpec(
    code="stable",
    severity="information",
    title="The versions agree in shape",
    source="structure",
    style=GOOD,
    quiet=True,
    doc="""\
The mean `jsd_struct` is on or above the stability line: by default, the set is
not in the least stable quarter of the HumanEval reference sets (its `stability_percentile` is
at least 25; the line is the 25th of the 101 reference quantiles in
`server/codequorum/data/risk_model.json`, a mean `jsd_struct` of about 0.674).
`--stable-jsd X` replaces the line with the constant X. With other structural options than
the reference's (`--max-depth`, `--jsd-log-base`) the percentile does not apply and the line
is 0.8. No majority shape is required (on the bundled demo a largest group under half the
versions is the rule, not the exception: it flagged 18 of 20 tasks on its own).""",
)

UNSTABLE_STRUCTURE = VerdictSpec(
    code="unstable-structure",
    severity="warning",
    title="The versions disagree in shape",
    source="structure",
    style=SHAPE,
    doc="""\
The versions disagree in shape: the set is less stable than 75 % of the HumanEval
reference sets, and the message says so in those words ("mean JSD 0.62, less stable than
92 % of HumanEval functions (flagged when less stable than 75 % of them)"); with
`--stable-jsd X`, "mean JSD 0.62 < X". Outliers (typicality more than `--outlier-gap` below
the median) are named. On the bundled demo (`codequorum demo`) 6 of the 20 tasks are
flagged (18 with the former constant line 0.8 and majority rule).""",
)

OUTLIER_CURRENT = VerdictSpec(
    code="outlier-current",
    severity="warning",
    title="The code in the editor is far from the consensus",
    source="current",
    style=FAR,
    doc="""\
The current code is far from what the other versions agree on:
its typicality is more than the outlier gap below the mean similarity among the others. The
hover says "far from the consensus" exactly when this finding is there.""",
)

INPUT_LIMIT = VerdictSpec(
    code="input-limit",
    severity="information",
    title="The versions are over a reading limit",
    source="limits",
    style=PLAIN,
    doc="""\
The function's versions could not be compared: one of them
(or all of them together) is over a bound of codequorum's reading limits: larger than
1 MB, nested more than 500 levels deep, unparseable within 10 s, or more versions than
are compared at once (docs/cli.md, "Limits"). The message names the versions and the
bound; nothing else is said about the function. `score` reports such a set as an error
instead.""",
)

DIVERGENT_OUTPUTS = VerdictSpec(
    code="divergent-outputs",
    severity="warning",
    title="The versions return different results",
    source="behaviour",
    style=PLAIN,
    figure_words="all versions agree on {percent} of the inputs",
    doc="""\
Some input on which the versions return different outcomes (`oer`
below 1); the message shows the first such input and two differing outcomes.""",
)

NO_VERSION_PASSES = VerdictSpec(
    code="no-version-passes",
    severity="warning",
    title="No version returns what the graded inputs expect",
    source="behaviour",
    style=PLAIN,
    figure_words="",
    doc="""\
Some inputs say what the function returns (the docstring's examples, the
set's tests), and no version returns it on every one of them: whichever is kept, it is wrong
on an input its own documentation gives, or the documentation is. The message names the
closest version and how many it passes ("none of 3 versions passes all 4 graded inputs;
the closest, version 2, passes 3").""",
)

COMPLEXITY_OUTLIER = VerdictSpec(
    code="complexity-outlier",
    severity="warning",
    title="A version's work grows at a different rate",
    source="behaviour",
    style=PLAIN,
    figure_words="",
    doc="""\
One version's work grows with the input size at a clearly different
rate from the others: the log-log slope of CPU time per call against the scaling sizes,
measured untraced in the sandbox (least of repeated batches), so work done inside
builtins and C extensions counts (`len(set(x))` grows about n).""",
)

RUNTIME_INSTABILITY = VerdictSpec(
    code="runtime-instability",
    severity="warning",
    title="Alike in bytecode, different at run time",
    source="behaviour",
    style=PLAIN,
    figure_words="",
    doc="""\
`bef_jsd` below 0.1: the code is alike but behaves differently.""",
)

REDUNDANT_ALTERNATIVES = VerdictSpec(
    code="redundant-alternatives",
    severity="information",
    title="Different in bytecode, alike at run time",
    source="behaviour",
    style=PLAIN,
    figure_words="",
    doc="""\
`bef_jsd` above 1000: structurally different code doing the same. Never beside
`divergent-outputs`: versions whose outputs part ways do not do the same, however alike
the little of their code the inputs reached runs.""",
)

NOT_RUN_IN_MODULE = VerdictSpec(
    code="not-run-in-module",
    severity="information",
    title="The versions could not run in their module",
    source="module",
    style=PLAIN,
    doc="""\
The versions run in their function's module (see
[sandbox.md](sandbox.md#a-version-in-its-module)), and it could not give them what they
need: the module did not load in the sandbox (its top level raised — a package the
sandbox does not have, `sys.exit` — ran too long, or ended the process), or a function
defined inside another one uses that function's names. The message says which, and
whether the versions' results still stand ("the versions ran without it (none of them
uses a name from it)": each version ran alone, a JavaScript one in a child of its own) or
were left out ("not run: ...; the versions use re, insort from it", "a method needs its
class"): no other behaviour verdict rests on a run that would have judged them wrongly.""",
)

NOT_RUN = VerdictSpec(
    code="not-run",
    severity="information",
    title="No version ran on any input",
    source="behaviour",
    style=PLAIN,
    doc="""\
A run was asked for (`--dynamic`, the editor's Run, an agent's `dynamic`), and no version
ran on any input, so nothing about behaviour was measured: the message says why (`no
inputs`: nothing to call the function with, see [test inputs](sandbox.md); `not run in its
module`; a language that does not run; every version stopped before its first input). The
report's `notes` carry the same words; with it the shape's agreement is shown as "shape
stable", never as a stable behaviour. `check --fail-on not-run` fails on it.""",
)


#: Every verdict, in the order docs/metrics.md lists them.
VERDICTS: tuple[VerdictSpec, ...] = (
    STABLE, UNSTABLE_STRUCTURE, OUTLIER_CURRENT, INPUT_LIMIT, DIVERGENT_OUTPUTS,
    NO_VERSION_PASSES, COMPLEXITY_OUTLIER, RUNTIME_INSTABILITY, REDUNDANT_ALTERNATIVES,
    NOT_RUN_IN_MODULE, NOT_RUN,
)
BY_CODE: dict[str, VerdictSpec] = {spec.code: spec for spec in VERDICTS}
#: Codes that say nothing is wrong: never a finding.
QUIET_CODES = frozenset(spec.code for spec in VERDICTS if spec.quiet)


#: Behaviour verdicts beside which ``stable`` would read as the function's judgement though
#: it is the shape's alone: the versions ran and their outputs diverge, none returns what
#: the graded inputs expect, or nothing ran.
SHAPE_ONLY_BESIDE = frozenset({DIVERGENT_OUTPUTS.code, NO_VERSION_PASSES.code, NOT_RUN.code})


def column_codes(codes: Sequence[str]) -> list[str]:
    """The verdict codes a one-word verdict column shows: ``codes`` without ``stable``
    where one of :data:`SHAPE_ONLY_BESIDE` is among them, as ``check``'s headline never
    says "stable" when nothing ran (the report keeps both; the shape's agreement shows in
    its own column)."""
    if SHAPE_ONLY_BESIDE.isdisjoint(codes):
        return list(codes)
    return [code for code in codes if code != STABLE.code]


def figure_text(code: str, figure: float | None) -> str:
    """A verdict's figure in its spec's words (:attr:`VerdictSpec.figure_words`; the
    figure alone for an unknown code; "" without a figure)."""
    if figure is None:
        return ""
    spec = BY_CODE.get(code)
    return spec.figure_text(figure) if spec is not None else f"{figure:.2f}"


def style_of(code: str) -> Style:
    """The style of a verdict code (or of :data:`INSUFFICIENT`); plain for an unknown one."""
    if code == INSUFFICIENT:
        return INSUFFICIENT_STYLE
    spec = BY_CODE.get(code)
    return spec.style if spec is not None else PLAIN


def html_colours() -> dict[str, str]:
    """The fixed colours of the HTML report: the good verdicts, a set too small to score,
    then the others with a colour of their own."""
    good = {s.code: s.style.colour for s in VERDICTS if s.style.good and s.style.colour}
    rest = {s.code: s.style.colour for s in VERDICTS if not s.style.good and s.style.colour}
    assert INSUFFICIENT_STYLE.colour is not None
    return {**good, INSUFFICIENT: INSUFFICIENT_STYLE.colour, **rest}


#: The markers of the generated section in docs/metrics.md.
BEGIN = ("<!-- verdicts: written by `scripts/generate` from judge/verdicts.py; edit the specs "
         "there -->")
END = "<!-- end of verdicts -->"


def docs_section() -> str:
    """Every verdict's section of docs/metrics.md, between the markers."""
    return "\n".join([BEGIN, "", *(spec.section() for spec in VERDICTS), END]) + "\n"


def with_docs_section(text: str) -> str:
    """``text`` (docs/metrics.md) with the generated section replaced."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n", re.S)
    if not pattern.search(text):
        raise ValueError("docs/metrics.md has no generated verdicts section")
    return pattern.sub(lambda _m: docs_section(), text, count=1)
