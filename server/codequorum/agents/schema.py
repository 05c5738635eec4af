"""What each agent tool takes and gives, as typed models: their JSON schemas are the tools'
``inputSchema`` and ``outputSchema``, and every argument is checked against them (types,
sizes, counts, no unknown keys) before a tool runs.

Indices of versions are 0-based positions in the compared set, as in ``codequorum score``'s
JSON; messages count versions from 1, as the editor labels them.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from codequorum.agents.paths import MAX_PATH_CHARS
from codequorum.core.safe_text import agent_block, agent_text

#: Most versions ``compare_versions`` takes at once (every matrix is n×n).
MAX_COMPARE_VERSIONS = 50
#: Longest version ``compare_versions`` takes, in characters.
MAX_VERSION_CHARS = 100_000
#: Most characters of all versions of one ``compare_versions`` call together.
MAX_COMPARE_CHARS = 1_000_000
#: Most versions one ``sample_versions`` call asks the endpoint for.
MAX_SAMPLE_COUNT = 10
#: Longest qualified function name accepted.
MAX_NAME_CHARS = 512

PathText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_PATH_CHARS)]
FunctionName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_CHARS)]
LanguageName = Annotated[str, StringConstraints(min_length=1, max_length=32)]
VersionText = Annotated[str, StringConstraints(max_length=MAX_VERSION_CHARS)]


class _Arguments(BaseModel):
    """Arguments: unknown keys are refused, values are not coerced from other types."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CheckArgs(_Arguments):
    """``check_function``: one function of a file against its stored versions."""

    path: PathText = Field(description="The source file, relative to the workspace root "
                           "(or absolute, inside it).")
    function: FunctionName = Field(description="The function's qualified name, e.g. "
                                   "parse_row or Stack.push.")
    dynamic: bool = Field(default=False, description="Also run the versions in the sandbox "
                          "(their outputs, the input where they part ways): the strict one "
                          "where the machine gives it, else the portable one.")
    language: LanguageName | None = Field(default=None, description="The file's language "
                                          "when its extension does not tell.")


class CompareArgs(_Arguments):
    """``compare_versions``: versions the agent holds, scored as one sample set."""

    versions: list[VersionText] = Field(
        min_length=2, max_length=MAX_COMPARE_VERSIONS,
        description=f"Two to {MAX_COMPARE_VERSIONS} versions of one function, as source "
        f"text (at most {MAX_VERSION_CHARS:,} characters each, {MAX_COMPARE_CHARS:,} in all).")
    language: LanguageName = Field(default="python", description="The versions' language "
                                   "(python, javascript, typescript, java, go, rust, c, "
                                   "cpp, sql).")

    @model_validator(mode="after")
    def _bounded(self) -> CompareArgs:
        """All versions together stay within :data:`MAX_COMPARE_CHARS`."""
        total = sum(len(v) for v in self.versions)
        if total > MAX_COMPARE_CHARS:
            raise ValueError(f"the versions hold {total:,} characters in all, over "
                             f"{MAX_COMPARE_CHARS:,}")
        return self


class SampleArgs(_Arguments):
    """``sample_versions``: more versions of one function from the user's endpoint."""

    path: PathText = Field(description="The source file, relative to the workspace root "
                           "(or absolute, inside it).")
    function: FunctionName = Field(description="The function's qualified name.")
    count: int | None = Field(default=None, ge=1, le=MAX_SAMPLE_COUNT,
                              description="How many versions to ask for (default: the "
                              "user's configured number).")
    language: LanguageName | None = Field(default=None, description="The file's language "
                                          "when its extension does not tell.")


# ----------------------------------------------------------------------------- results


def _inert(value: Any, block: bool) -> Any:
    """Every string in ``value`` as agent text (code as a block of lines)."""
    if isinstance(value, str):
        return agent_block(value) if block else agent_text(value)
    if isinstance(value, list):
        return [_inert(v, block) for v in value]
    if isinstance(value, dict):
        return {k: _inert(v, block) for k, v in value.items()}
    return value


class _Answer(BaseModel):
    """A result: every string it holds (a path, a function's name, a message quoting a
    version's output, a model's name) is agent text where the model is made, so neither the
    readable text built from it nor the structured content carries a raw escape, a line
    break or a live link of a repository's or a model's choosing."""

    #: Fields that hold code: their lines are kept.
    BLOCKS: ClassVar[frozenset[str]] = frozenset({"code"})

    @field_validator("*", mode="after")
    @classmethod
    def _inert_text(cls, value: Any, info: ValidationInfo) -> Any:
        return _inert(value, info.field_name in cls.BLOCKS)


class FindingOut(_Answer):
    """One finding, worded as the editor's diagnostics and ``codequorum check`` word it."""

    severity: str
    code: str
    message: str
    figure: float | None
    versions: list[int] = Field(description="0-based positions of the versions concerned.")


class OtherOutcome(_Answer):
    """What some versions give on the parting input."""

    gives: str
    versions: list[int]


class PartingInput(_Answer):
    """The input where the recommended version and the others part ways."""

    input: str
    source: str
    recommended_gives: str
    others: list[OtherOutcome]
    sentence: str


class RecommendationOut(_Answer):
    """The version to keep, why, and how likely it is to be wrong."""

    version: int = Field(description="0-based position of the version to keep.")
    is_current: bool = Field(description="True when it is the code in the file now.")
    by: str | None = Field(description="behaviour or structure: what decided.")
    sentence: str
    risk: float | None = Field(description="Probability that the kept version is wrong "
                               "(after a run only; null from shape alone).")
    risk_level: str | None = Field(description="likely right, uncertain or likely wrong.")
    risk_range: list[float] | None = Field(
        description="The risk's 90 % range (low, high): on model families left out of the "
        "fit, the share of kept versions wrong among sets given such risks fell inside such "
        "ranges nine times in ten.")
    trust: str | None = Field(description="How far to trust the kept version, in words; "
                              "without a run, what is missing.")
    code: str = Field(description="The kept version's code (control characters escaped).")


class DynamicOut(_Answer):
    """Whether the versions ran in the sandbox, and the behaviour figures when they did."""

    requested: bool
    ran: bool = Field(description="Whether any version ran on any input.")
    not_run: str | None = Field(default=None, description="Why no version ran on any input "
                                "(no inputs, not run in its module, sandbox unavailable...), "
                                "when a run was asked for or remembered.")
    note: str | None = None
    interpreter: str | None = Field(default=None, description="What ran the versions: "
                                    "``node 20.20.2`` or the Python version (``3.12.3``).")
    summary: dict[str, Any] = Field(default_factory=dict)


class CheckResult(_Answer):
    """``check_function``'s answer."""

    path: str
    function: str
    language: str
    status: Literal["ok", "insufficient", "no-versions"]
    message: str | None = None
    versions: int = Field(description="Stored versions.")
    compared: int = Field(description="Versions compared (the current code included).")
    current_index: int | None = None
    current: str | None = Field(default=None, description="Where the current code stands.")
    stability: float | None = Field(default=None, description="Mean structural JSD "
                                    "similarity over ordered pairs (1: identical shapes).")
    stability_percentile: float | None = None
    stable: bool | None = Field(default=None, description="Whether no finding is a warning "
                                "or an error; where `verdict` is `not-run` that is of the "
                                "shape alone: how the versions behave is not known.")
    verdict: str | None = None
    findings: list[FindingOut] = Field(default_factory=list)
    clusters: list[list[int]] = Field(default_factory=list)
    recommendation: RecommendationOut | None = None
    parting_input: PartingInput | None = None
    dynamic: DynamicOut
    notes: list[str] = Field(default_factory=list)


class VerdictOut(_Answer):
    """One verdict of a sample set, as ``codequorum score`` reports it."""

    code: str
    severity: str
    message: str
    versions: list[int]
    figure: float | None


class CompareResult(_Answer):
    """``compare_versions``'s answer: the figures ``codequorum score`` gives one set."""

    status: str
    message: str | None
    n: int
    n_total: int
    empty: list[int]
    syntax_errors: list[int]
    summary: dict[str, Any] = Field(description="Pair means per metric ({ordered, "
                                    "unordered}) and scalar figures.")
    typicality: list[float | None]
    medoid: int | None
    clusters: list[list[int]]
    verdicts: list[VerdictOut]
    recommended: int | None
    recommended_by: str | None
    recommendation: str | None
    risk: float | None
    risk_level: str | None
    risk_range: list[float] | None
    trust: str | None
    stability_percentile: float | None
    notes: list[str]


class VersionOutcome(_Answer):
    """What became of one requested version."""

    index: int
    outcome: Literal["accepted", "rejected", "failed"]
    detail: str


class SampleResult(_Answer):
    """``sample_versions``'s answer."""

    path: str
    function: str
    endpoint: str
    model: str
    requested: int
    accepted: int
    rejected: int
    failed: int
    cancelled: bool
    summary: str
    outcomes: list[VersionOutcome]
    stored: int = Field(description="Versions of the function in the store now.")
    store: str | None = Field(description="The store file, when one was written.")
