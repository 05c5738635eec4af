"""A run's report as a record the version store keeps, and read back as untrusted input.

A run is remembered under one key (:func:`run_key`): a hash of the versions' texts, the
module they ran in (the module view's content: its files, roots, dotted name and the
function's place) and the options that change a run, so a remembered run counts only
while none of them changed. The store can come with a repository, so a record read back
is bounded (its size and nesting before it is parsed), validated against the report's
types, and checked against what it claims: the key it was written under, one row per
version asked about, outcomes and passes for every input it names, groups and indices
within those. A record that fails any check is ignored, never repaired.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
from collections.abc import Sequence

from pydantic import TypeAdapter, ValidationError

from codequorum import __version__
from codequorum.behaviour.dynamic_analysis import SUMMARY_KEYS, DynamicReport
from codequorum.core import run_seal
from codequorum.core.limits import json_nests_deeper
from codequorum.core.model import ModuleContext

log = logging.getLogger(__name__)

#: The layout of a record; a record of another layout is not read.
RECORD_FORMAT = 1
#: Longest record kept or read, in characters.
MAX_RECORD_CHARS = 2_000_000
#: Deepest nesting of a record's JSON.
MAX_RECORD_DEPTH = 12
#: Most inputs a record may name.
MAX_RECORD_INPUTS = 2_000
#: Longest string anywhere in a record.
MAX_RECORD_STRING = 20_000

_REPORT = TypeAdapter(DynamicReport)


def run_key(codes: Sequence[str], module: ModuleContext | None, options: str) -> str:
    """The key of a run of the versions ``codes`` in ``module`` under ``options`` (the
    text of the options that change a run), for this codequorum's layout."""
    h = hashlib.sha256()

    def part(text: str) -> None:
        data = text.encode("utf-8", errors="surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)

    part(f"codequorum {__version__} run record {RECORD_FORMAT}")
    part(options)
    part(str(len(codes)))
    for code in codes:
        part(code)
    if module is None:
        part("no module")
    else:
        for text in (module.name, module.path, module.qualified_name, module.kind,
                     *module.roots, *(piece for alias in module.aliases for piece in alias),
                     *(piece for member in module.library for piece in member)):
            part(text)
        part(str(len(module.files)))
        for files in (module.files, module.callers):  # the callers give inputs
            part(str(len(files)))
            for path, text in sorted(files):
                part(path)
                part(text)
    return h.hexdigest()


def versions_key(codes: Sequence[str]) -> str:
    """A hash of the versions' texts alone: what a remembered run is looked for by before
    the module (the rest of its key) is read."""
    h = hashlib.sha256()
    for code in codes:
        data = code.encode("utf-8", errors="surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def encode(report: DynamicReport, key: str, seal_key: bytes) -> str | None:
    """The record of ``report`` under ``key``, sealed with the user's ``seal_key``
    (:mod:`codequorum.core.run_seal`); None when it is too large to keep or holds a value
    JSON cannot carry."""
    try:
        text = json.dumps({"format": RECORD_FORMAT, "key": key,
                           "report": dataclasses.asdict(report)},
                          allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        log.info("run of %s not remembered: %s", report.task_id, exc)
        return None
    return run_seal.seal(seal_key, text) if len(text) <= MAX_RECORD_CHARS else None


def decode(sealed: object, key: str, versions: int, seal_key: bytes) -> DynamicReport | None:
    """The report a record holds, when it bears the user's seal (``seal_key``: no run a
    repository wrote is read), is a record of this layout written under ``key`` about
    ``versions`` versions, and everything in it adds up; else None."""
    if not isinstance(sealed, str) or len(sealed) > MAX_RECORD_CHARS + 65:
        return None
    text = run_seal.unseal(seal_key, sealed)
    if text is None:
        log.info("a remembered run was ignored: it does not bear this user's seal")
        return None
    if json_nests_deeper(text, MAX_RECORD_DEPTH):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT \
            or data.get("key") != key or not isinstance(data.get("report"), dict):
        return None
    try:
        report = _REPORT.validate_json(json.dumps(data["report"]), strict=True)
    except (ValidationError, ValueError) as exc:
        log.info("a remembered run was ignored: %s", str(exc).splitlines()[0])
        return None
    problem = inconsistency(report, versions)
    if problem is not None:
        log.info("a remembered run was ignored: %s", problem)
        return None
    return report


def inconsistency(report: DynamicReport, versions: int) -> str | None:
    """What in ``report`` does not add up for a run of ``versions`` versions (None when
    everything does): the shapes of its tables, the indices it names, its strings' length
    and its figures."""
    n_inputs = len(report.inputs)
    if n_inputs > MAX_RECORD_INPUTS:
        return "too many inputs"
    if len(report.candidates) != versions or len(report.outcomes) != versions \
            or len(report.passes) != versions:
        return "not one row per version"
    if any(c.index != i for i, c in enumerate(report.candidates)):
        return "versions out of order"
    if any(len(row) != n_inputs for row in report.outcomes) \
            or any(len(row) != n_inputs for row in report.passes):
        return "not one outcome per input"
    members = sorted(i for group in report.output_clusters for i in group)
    if members and members != list(range(versions)):
        return "groups that are not the versions"
    if report.fastest is not None and not 0 <= report.fastest < versions:
        return "a fastest version that is not one"
    div = report.rules.divergence
    if div is not None and not (0 <= div.input_index < n_inputs and 0 <= div.a < versions
                                and 0 <= div.b < versions):
        return "a parting input that is not one"
    if set(report.summary) - set(SUMMARY_KEYS) - _EXTRA_SUMMARY:
        return "unknown figures"
    if any(v is not None and not math.isfinite(v) for v in report.summary.values()):
        return "figures that are not finite"
    if _longest_string(dataclasses.asdict(report)) > MAX_RECORD_STRING:
        return "a string too long"
    return None


#: Summary figures a run adds beside :data:`SUMMARY_KEYS`.
_EXTRA_SUMMARY = frozenset({"oer_pair_mean", "oer_graded", "dctd_inputs", "inputs",
                            "graded_inputs"})


def _longest_string(value: object) -> int:
    """The longest string anywhere in ``value`` (plain data)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((_longest_string(v) for v in (*value.keys(), *value.values())), default=0)
    if isinstance(value, list | tuple):
        return max((_longest_string(v) for v in value), default=0)
    return 0


__all__ = ["MAX_RECORD_CHARS", "RECORD_FORMAT", "decode", "encode", "inconsistency", "run_key",
           "versions_key"]
