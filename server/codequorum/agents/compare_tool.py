"""``compare_versions``: versions an agent holds, scored as ``codequorum score`` scores one
sample set (the same analysis and options, so the figures are the same bits). The versions
are only parsed and compiled, never run.
"""

from __future__ import annotations

from codequorum.agents.agent_workspace import AgentWorkspace, from_tool_args
from codequorum.agents.schema import CompareArgs, CompareResult, VerdictOut
from codequorum.core import parsing
from codequorum.core.model import Version, VersionSet
from codequorum.ingest.extract import unfenced
from codequorum.pipeline.analyze import analyze
from codequorum.render.json_out import safe_values

#: The task id the compared set carries (it names no file).
TASK_ID = "compare_versions"


def compare_versions(ws: AgentWorkspace, args: CompareArgs) -> CompareResult:
    """The set's report: agreement, groups, verdicts, the version to keep and its risk.
    Raises :class:`~codequorum.core.errors.UnknownLanguageError` for an unknown language."""
    language = parsing.normalize_language(args.language)
    # an agent may pass a version as a chat answer holds it: its fenced block is the code
    version_set = VersionSet(task_id=TASK_ID, language=language,
                             versions=[Version(code=unfenced(code, language) or code)
                                       for code in args.versions])
    report = analyze(version_set, from_tool_args(ws.options, args))
    data = safe_values(report.to_dict())
    return CompareResult(
        status=data["status"], message=data["message"], n=data["n"], n_total=data["n_total"],
        empty=data["empty"], syntax_errors=data["syntax_errors"], summary=data["summary"],
        typicality=data["typicality"], medoid=data["medoid"], clusters=data["clusters"],
        verdicts=[VerdictOut(code=v["code"], severity=v["severity"], message=v["message"],
                             versions=v["versions"], figure=v["figure"])
                  for v in data["verdicts"]],
        recommended=data["recommended"], recommended_by=data["recommended_by"],
        recommendation=data["recommendation"], risk=data["risk"],
        risk_level=data["risk_level"], risk_range=data["risk_range"], trust=data["trust"],
        stability_percentile=data["stability_percentile"], notes=data["notes"],
    )
