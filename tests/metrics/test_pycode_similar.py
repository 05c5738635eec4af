"""UnifiedDiff and TreeDiff (pycode_similar 1.4 as the non-determinism study ran it)."""

from __future__ import annotations

import importlib.util
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codequorum.metrics.pycode_similar import (
    normalized_functions,
    pycode_similar_matrices,
    tree_diff,
    unified_diff,
)

LOOP = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
BUILTIN = "def total(xs):\n    return sum(xs)\n"
RENAMED = (
    "def add_up(items):\n    '''Sum.'''\n    import math\n    acc = 0\n"
    "    for it in items:\n        acc += it\n    return acc\n"
)


def test_names_docstrings_and_imports_do_not_count() -> None:
    assert unified_diff(LOOP, RENAMED) == 1.0
    assert tree_diff(LOOP, RENAMED) == 1.0


def test_values_by_hand() -> None:
    # LOOP dumps to 14 lines, 11 of them found in BUILTIN's 12; 15 normalised nodes
    # against 7, tree distance LOOP -> BUILTIN 9 (deletions), BUILTIN -> LOOP 2 (renames).
    loop, builtin = normalized_functions(LOOP), normalized_functions(BUILTIN)
    assert loop is not None and builtin is not None
    assert (len(loop[0].lines), loop[0].nodes) == (14, 15)
    assert (len(builtin[0].lines), builtin[0].nodes) == (12, 7)
    assert unified_diff(LOOP, BUILTIN) == pytest.approx(11 / 14, abs=1e-15)
    assert unified_diff(BUILTIN, LOOP) == pytest.approx(11 / 12, abs=1e-15)
    assert tree_diff(LOOP, BUILTIN) == pytest.approx(6 / 15, abs=1e-15)
    assert tree_diff(BUILTIN, LOOP) == pytest.approx(5 / 7, abs=1e-15)


def test_empty_broken_and_functionless_texts() -> None:
    assert math.isnan(unified_diff("", LOOP)) and math.isnan(tree_diff("", LOOP))
    assert unified_diff(LOOP, "") == 0.0 and tree_diff(LOOP, "") == 0.0
    assert math.isnan(unified_diff("def f(:\n", LOOP))
    assert math.isnan(tree_diff(LOOP, "def f(:\n"))
    # no function: both texts become the body of ``def main()``
    assert unified_diff("x = 1\nprint(x)\n", "y = 2\nprint(y)\n") == 1.0
    assert 0.0 < unified_diff("x = 1\nprint(x)\n", LOOP) < 1.0


def test_matrix_rows_are_references() -> None:
    unified, tree = pycode_similar_matrices([LOOP, BUILTIN, ""])
    assert unified[0, 1] == unified_diff(LOOP, BUILTIN)
    assert tree[1, 0] == tree_diff(BUILTIN, LOOP)
    assert np.isnan(unified[2]).all() and np.isnan(tree[2]).all()
    assert unified[0, 2] == 0.0 and unified[0, 0] == 1.0


# --------------------------------------------------------------------- cross-check


def _reference_pair(pcs: Any, a: str, b: str) -> tuple[float | None, float | None]:
    """The study's ``structural_similarity_in_pairs``: percent of a -> b, None for its
    negative codes."""
    codes = [a, b]
    if codes[0] == "":
        return None, None

    def run(method: Any) -> Any:
        return pcs.detect(codes, diff_method=method, keep_prints=True, module_level=False)

    try:
        u = run(pcs.UnifiedDiff)
    except pcs.NoFuncException:
        for i, code in enumerate(codes):
            if "__main__" not in code:
                lines = "\n".join("    " + line for line in code.split("\n"))
                codes[i] = f'def main():\n{lines}\n\nif __name__ == "__main__":\n    main()'
        try:
            u = run(pcs.UnifiedDiff)
        except Exception:
            return None, None
    except Exception:
        return None, None
    try:
        t = run(pcs.TreeDiff)
    except Exception:
        return None, None
    return pcs.summarize(u[0][1])[0], pcs.summarize(t[0][1])[0]


def _needs_reference() -> Any:
    for name in ("pycode_similar", "zss"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} not installed (bench/requirements.txt, installed --no-deps)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pycode_similar

    return pycode_similar


def test_matches_pycode_similar_on_real_samples(shared_dir: Path) -> None:
    pcs = _needs_reference()
    path = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    worst = [0.0, 0.0]
    pairs = 0
    with path.open() as fh, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for line in list(fh)[:3]:
            rec = json.loads(line)
            codes = [rec["prompt"] + s for s in rec["samples"][:4]] + ["", "def f(:\n"]
            matrices = pycode_similar_matrices(codes)
            for i in range(len(codes)):
                for j in range(len(codes)):
                    if i == j:
                        continue
                    for k, ref in enumerate(_reference_pair(pcs, codes[i], codes[j])):
                        ours = float(matrices[k][i, j])
                        if ref is None:
                            assert math.isnan(ours)
                        else:
                            worst[k] = max(worst[k], abs(ref - ours))
                    pairs += 1
    assert pairs == 3 * 30
    assert worst[0] <= 1e-9 and worst[1] <= 1e-9


EDGE_CASES = [
    "def f(x):\n    '''doc'''\n    import os\n    print(x)\n    return x + 1\n",
    "x = 1\nprint(x)\n",
    "class A:\n    def m(self, y: int) -> int:\n        if 1 < y:\n            return y.real\n"
    "        return [a for a in range(y) if a >= 2]\n    async def n(self):\n"
    "        def inner(): return 3\n        return 1\n",
    "def g(a, b=2, *c, **d):\n    'doc'\n    for i in a:\n        '''x'''\n        pass\n"
    "    else:\n        'y'\n    while a == None:\n        a = f'{b!r:>3}'\n"
    "    return lambda q: q[1:2]\n",
    "if __name__ == '__main__':\n    print(1)\n",
    "   \n",
    "def h(x):\n    return " + " + ".join(f"x[{i}]" for i in range(12)) + "\n",
]


def test_matches_pycode_similar_on_edge_cases() -> None:
    pcs = _needs_reference()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a in EDGE_CASES:
            for b in EDGE_CASES:
                ref_u, ref_t = _reference_pair(pcs, a, b)
                for ref, ours in ((ref_u, unified_diff(a, b)), (ref_t, tree_diff(a, b))):
                    if ref is None:
                        assert math.isnan(ours)
                    else:
                        assert ours == pytest.approx(ref, abs=1e-9, rel=0)
