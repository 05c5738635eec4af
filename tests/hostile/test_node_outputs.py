"""JavaScript versions whose values are built to break the Node harness's canonical form:
outputs far past what a message carries (a string repeated a hundred times, escapes that
grow a string sixfold in JSON, typed arrays and buffers of millions of items, a Map of
millions of entries, a huge key, symbol, log line or error message), a version that
swaps the intrinsics the encoder uses after it loaded, objects whose ``Symbol.toStringTag``
forges a Map or a Date, or hides one. Judged from outside: the real
``codequorum score --dynamic`` over a sample set, whose JSON report runs every version
(``ok``, never a protocol violation that loses the run), shows each huge value cut short
(``truncated``), and keeps the honest version's values and pass rate."""

from __future__ import annotations

import json

import pytest

from codequorum.behaviour.runtimes import node_sandbox

from .conftest import Hostile

PROMPT = "/**\n * @example f(2) // => 3\n * @example f(5) // => 6\n */\nfunction f() {}\n"
HONEST = "function f(n) { return n + 1; }"
HUGE = {
    "a string a hundred times": "function f(n) { const s = 'x'.repeat((1 << 20) - 1);"
                                " return Array(100).fill(s); }",
    "escapes": "function f(n) { return '\\u0001'.repeat(400000 + n); }",
    "a typed array": "function f(n) { return new Uint8Array(n * 10000000); }",
    "a buffer": "function f(n) { return new ArrayBuffer(n * 10000000); }",
    "a map": "function f(n) { const m = new Map(); for (let i = 0; i < 2e5; i++) m.set(i, n);"
             " return m; }",
    "a key": "function f(n) { return { ['k'.repeat(5e6)]: n }; }",
    "a symbol": "function f(n) { return Symbol('s'.repeat(5e7)); }",
    "a log line": "function f(n) { console.log('y'.repeat(1e8)); return 'z'.repeat(6e5); }",
    "forged and hidden tags": "function f(n) { const m = new Map([[n, n]]);"
                              " m[Symbol.toStringTag] = 'Object';"
                              " return [{ [Symbol.toStringTag]: 'Map' }, m,"
                              " { [Symbol.toStringTag]: 'Date' }]; }",
    "swapped intrinsics": "function f(n) { Object.getOwnPropertyDescriptor = () => ({});"
                          " ArrayBuffer.isView = () => { throw new Error('x'); };"
                          " String.prototype.slice = () => '';"
                          " return { n, a: new Int8Array(2) }; }",
}


@pytest.fixture(scope="module")
def node_here() -> None:
    found = node_sandbox.find_node()
    if found is None:
        pytest.skip("no supported Node here")
    held, why, _layers = node_sandbox.probe()
    if not held:
        pytest.skip(why)


def test_huge_and_forged_values_are_cut_short_and_lose_no_run(hostile: Hostile,
                                                              node_here: None) -> None:
    versions = [HONEST, *HUGE.values()]
    hostile.write("sets.jsonl", json.dumps({
        "task_id": "js/huge", "language": "javascript", "entry_point": "f", "prompt": PROMPT,
        "versions": versions}) + "\n")
    done = hostile.run("score", "sets.jsonl", "--dynamic", "--sandbox", "strict",
                       "--format", "json", "--isolated", timeout=600)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    report = json.loads(done.stdout)
    dynamic = report["sets"][0]["dynamic"] if "sets" in report else report[0]["dynamic"]
    statuses = [c["status"] for c in dynamic["candidates"]]
    assert statuses == ["ok"] * len(versions), list(zip(HUGE, statuses[1:], strict=True))
    assert dynamic["candidates"][0]["pass_rate"] == 1.0
    assert [o[0] for o in dynamic["outcomes"][0][:2]] == ["3", "6"]  # the examples
    for name, row in zip(HUGE, dynamic["outcomes"][1:], strict=True):
        texts = [o[0] for o in row[:2]]
        assert all(t is not None and len(t) < 1 << 20 for t in texts), name
        if name in ("a key", "a symbol"):  # a name keeps its start (the report shows less)
            head = '{"$":"object","v":[["kkk' if name == "a key" else '{"$":"symbol","v":"sss'
            assert all(t.startswith(head) for t in texts), name
        elif name not in ("swapped intrinsics", "forged and hidden tags"):
            assert all("truncated" in t for t in texts), (name, [t[:80] for t in texts])
    tagged = [json.loads(o[0]) for o in dynamic["outcomes"][-2][:2]]
    assert tagged == [[{"$": "object", "v": []}, {"$": "map", "v": [[n, n]]},
                       {"$": "object", "v": []}] for n in (2, 5)]
    swapped = [json.loads(o[0]) for o in dynamic["outcomes"][-1][:2]]
    assert swapped == [{"$": "object", "v": [["a", {"$": "Int8Array", "v": [0, 0]}], ["n", n]]}
                       for n in (2, 5)]
