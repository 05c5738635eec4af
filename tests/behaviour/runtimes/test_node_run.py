"""A JavaScript set through the dynamic pipeline: pass rates, OER, divergent outputs."""

from __future__ import annotations

from codequorum.behaviour.run import DynamicOptions, run_dynamic
from codequorum.core.model import SampleSet

PROMPT = "/**\n * @example addAll([1, 2, 3]) // => 6\n * @example addAll([]) // => 0\n */"
VERSIONS = [
    "function addAll(xs) { let s = 0; for (const x of xs) s += x; return s; }",
    "const addAll = (xs) => xs.reduce((a, b) => a + b, 0);",
    "function addAll(xs) { return xs.join('+'); }",
]


def test_a_javascript_set_runs_and_its_versions_part(node_sandboxed: object) -> None:
    ss = SampleSet.from_codes("js", VERSIONS, language="javascript", entry_point="addAll",
                              prompt=PROMPT)
    report = run_dynamic(ss, DynamicOptions())
    assert report.python.startswith("node ")
    assert [c.pass_rate for c in report.candidates] == [1.0, 1.0, 0.0]
    assert report.output_clusters == [[0, 1], [2]]
    assert report.summary["sctd_jsd"] is not None and report.summary["sctd_jsd"] > 0
    assert report.rules.divergence is not None
