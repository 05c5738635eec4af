"""A package's ``#imports`` read as Node reads them: exact keys, ``*`` patterns (longest
prefix first), conditions in their written order, arrays, nesting; targets that lead out
of the package refused."""

from __future__ import annotations

import pytest

from codequorum.ingest.js_imports import NoMapping, imports_target

IMPORTS = {
    "#config": "./src/config.js",
    "#internal/*": "./src/internal/*",
    "#internal/deep/*.js": {"types": "./types/*.d.ts", "node": {"require": "./cjs/*.cjs",
                                                                "import": "./esm/*.mjs"}},
    "#dep": "left-pad",
    "#dep/*": "left-pad/lib/*.js",
    "#fallback": [{"browser": "./browser.js"}, "./node.js"],
    "#browser-only": {"browser": "./browser.js"},
    "#up": "../other/x.js",
    "#into/*": "./src/*/index.js",
    "#abs": "/etc/passwd",
    "#url": "file:///etc/passwd",
    "#nm": "./node_modules/other/index.js",
}


def test_exact_keys_patterns_and_conditions_give_their_target() -> None:
    assert imports_target(IMPORTS, "#config") == "./src/config.js"
    assert imports_target(IMPORTS, "#internal/x.js") == "./src/internal/x.js"
    assert imports_target(IMPORTS, "#internal/a/b.js") == "./src/internal/a/b.js"
    # the longer prefix wins, and conditions are read in their written order, nested
    assert imports_target(IMPORTS, "#internal/deep/y.js") == "./cjs/y.cjs"
    assert imports_target(IMPORTS, "#dep") == "left-pad"
    assert imports_target(IMPORTS, "#dep/pad") == "left-pad/lib/pad.js"
    assert imports_target(IMPORTS, "#fallback") == "./node.js"
    assert imports_target({"#x": {"default": "./d.js", "node": "./n.js"}}, "#x") == "./d.js"


@pytest.mark.parametrize(("spec", "why"), [
    ("#missing", "no `imports` mapping of its package.json matches it"),
    ("#", "not a valid `#` specifier"),
    ("#browser-only", "its `imports` mapping gives no target under the conditions default, "
                      "import, node, require"),
    ("#up", "its `imports` mapping `../other/x.js` leads out of its package"),
    ("#abs", "its `imports` mapping `/etc/passwd` leads out of its package"),
    ("#url", "its `imports` mapping `file:///etc/passwd` leads out of its package"),
    ("#nm", "its `imports` mapping `./node_modules/other/index.js` leads out of its package"),
    ("#internal/../../secret.js", "what `*` matched leads out of its package"),
    ("#into/%2e%2e/x", "what `*` matched leads out of its package"),
    ("#into/node_modules/x", "what `*` matched leads out of its package"),
])
def test_what_maps_nowhere_or_out_of_the_package_says_why(spec: str, why: str) -> None:
    with pytest.raises(NoMapping) as caught:
        imports_target(IMPORTS, spec)
    assert str(caught.value) == why


def test_a_package_json_without_imports_or_a_deep_mapping_maps_nothing() -> None:
    with pytest.raises(NoMapping, match="has no `imports`"):
        imports_target(["#x"], "#x")
    deep: object = "./x.js"
    for _ in range(12):
        deep = {"default": deep}
    with pytest.raises(NoMapping, match="nests too deeply"):
        imports_target({"#x": deep}, "#x")
