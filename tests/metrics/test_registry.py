"""The pair-metric registry: one entry per metric drives the analysis, the renderers, the
report schema and the docs table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from codequorum.core.model import VersionSet
from codequorum.lsp.hover import DYNAMIC_FIGURES, PAIR_FIGURES
from codequorum.metrics import registry
from codequorum.metrics.registry import BY_KEY, FIGURES, PAIR_METRICS, Prepared, shown
from codequorum.metrics.structural import DEFAULT_MAX_DEPTH, structural_matrices
from codequorum.metrics.tree_edit import tsed_matrix
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from codequorum.render import csv_out, html_report, table

CODES = ["def f(x):\n    return x + 1\n", "def f(x):\n    y = x\n    return y + 1\n",
         "def f(x):\n    return 1 + x\n"]


REPO = Path(__file__).resolve().parents[2]
METRICS_DOC = REPO / "docs" / "metrics.md"


def test_generated_docs_table_and_schema_keys_are_current() -> None:
    # scripts/generate writes them
    doc = METRICS_DOC.read_text(encoding="utf-8")
    assert registry.with_docs_table(doc) == doc
    schema = (REPO / "shared" / "report.schema.json").read_text(encoding="utf-8")
    assert registry.with_schema_keys(schema) == schema
    required = [m.key for m in PAIR_METRICS if not m.optional and m.languages is None]
    assert f'"required": [{", ".join(json.dumps(k) for k in required)}]' in schema


def test_keys_and_labels_are_unique() -> None:
    keys = [f.key for f in FIGURES]
    assert len(keys) == len(set(keys))
    assert len({f.label for f in FIGURES}) == len(FIGURES)


def test_computed_through_the_registry_as_by_the_metric_functions() -> None:
    p = Prepared(CODES, "python", max_depth=DEFAULT_MAX_DEPTH)
    sm = structural_matrices(CODES, "python")
    for key in ("sce_struct", "sce_value", "jsd_struct", "jsd_value"):
        np.testing.assert_allclose(BY_KEY[key].compute(p), getattr(sm, key), rtol=0, atol=1e-12)
    np.testing.assert_allclose(BY_KEY["tsed"].compute(p), tsed_matrix(CODES, "python"),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(BY_KEY["tsed_08"].compute(p),
                               tsed_matrix(CODES, "python", costs=(1.0, 0.8, 1.0)),
                               rtol=0, atol=1e-12)


def test_switches_and_defaults() -> None:
    always = [m.key for m in PAIR_METRICS if not m.optional]
    assert always[:4] == ["sce_struct", "sce_value", "jsd_struct", "jsd_value"]
    on = [m.key for m in PAIR_METRICS if m.wanted(AnalysisConfig().metrics)]
    assert on == [*always, *(k for k in registry.DEFAULT_METRICS)]
    assert "tsed" in registry.DEFAULT_METRICS and "tsed_08" not in registry.DEFAULT_METRICS
    off = AnalysisConfig(metrics=("tsed_08", "textual"))
    wanted = [m.key for m in PAIR_METRICS if m.wanted(off.metrics)]
    assert wanted == [*always, "tsed_08"]
    report = analyze(VersionSet.from_codes("t", CODES), off)
    assert list(report.matrices)[:len(wanted)] == wanted


def test_renderers_read_the_registry() -> None:
    assert tuple((m.label, m.key) for m in shown(PAIR_METRICS, "table")) == table.COLUMNS
    # every figure the table shows is left out at its rank, the table's own columns around
    ranked = sorted((f.show.drop, f.label) for f in FIGURES if f.show.drop is not None)
    figures = [title for title in table.DROP_ORDER if title in {t for _, t in ranked}]
    assert figures == [title for _, title in ranked]
    assert (table.DROP_ORDER[0], table.DROP_ORDER[-1]) == ("Why", "Verdict")
    assert len(set(table.DROP_ORDER)) == len(table.DROP_ORDER)
    assert csv_out.PAIR_COLUMNS[:2] == ("sce_struct_ordered", "sce_struct_unordered")
    assert len(csv_out.PAIR_COLUMNS) == 2 * len(PAIR_METRICS)
    assert html_report.METRICS[:2] == ("jsd_struct", "jsd_value")
    assert PAIR_FIGURES == (("jsd_struct", "JSD"), ("sce_struct", "SCE"), ("tsed", "TSED"))
    assert DYNAMIC_FIGURES[0] == ("sctd_jsd", "SCTD")


@pytest.mark.parametrize("where", ["table", "drop", "html", "hover"])
def test_ranks_are_unique_per_renderer(where: str) -> None:
    for group in (PAIR_METRICS, registry.SCALAR_FIGURES):
        ranks = [getattr(f.show, where) for f in group if getattr(f.show, where) is not None]
        assert len(ranks) == len(set(ranks))


def test_the_docs_table_needs_its_markers() -> None:
    doc = METRICS_DOC.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="no generated pair-metric table"):
        registry.with_docs_table(doc.replace(registry.BEGIN, ""))


def test_the_editors_file_is_current() -> None:
    # scripts/generate writes it; the VS Code extension generates
    # src/generated/metrics.ts from it (npm run gen-metrics, checked by its tests)
    shared = REPO / "shared" / "metrics.json"
    assert shared.read_text(encoding="utf-8") == registry.shared_text()
    keys = [m["key"] for m in json.loads(registry.shared_text())["matrices"]]
    assert keys[:len(PAIR_METRICS)] == [m.key for m in PAIR_METRICS] and "led" in keys
