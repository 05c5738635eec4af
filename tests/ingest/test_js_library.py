"""The functions of its package a JavaScript module's examples call through a namespace,
and the re-exports of the package's entry that say which file gives each."""

from __future__ import annotations

from codequorum.ingest.js_library import MAX_MEMBERS, members_called, reexported


def test_a_function_called_on_a_namespace_no_global_or_top_level_name_holds() -> None:
    text = ("import { x } from './x';\nconst Local = {};\n"
            "/**\n * R.find(R.propEq(2, 'a'))(xs); //=> {a: 2}\n * _.chunk([1, 2], 1)\n"
            " * Math.max(1, 2); JSON.parse('1'); this.go(); Local.f(1); x.y(2)\n */\n"
            "// remeda: R.pipe([1], R.map((n) => n))\n"
            "export function find(fn) { return fn; }\n")
    assert members_called(text, "javascript") == {"find", "propEq", "chunk", "pipe", "map"}
    assert members_called("const s = 'R.find(1)';\n", "javascript") == frozenset()
    many = "/** " + " ".join(f"R.f{i}(1)" for i in range(40)) + " */\n"
    assert len(members_called(many, "javascript")) == MAX_MEMBERS


def test_an_entry_re_exports_by_name_and_a_star_by_its_files_name() -> None:
    entry = ("export { a, default as b } from './x';\nexport * from './map';\n"
             "export { c as d } from './y.js';\nexport const z = 1;\n"
             "export { a } from './later';\n")
    assert reexported(entry, "javascript") == {
        "a": "./x", "b": "./x", "map": "./map", "d": "./y.js"}
