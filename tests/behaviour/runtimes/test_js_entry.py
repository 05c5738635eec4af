"""The function a JavaScript or TypeScript set calls when it does not say."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_entry import defined_names, guess_entry, same_function


def test_the_name_most_versions_define_is_called() -> None:
    codes = ["function helper(x) { return x; }\nfunction answer(x) { return helper(x); }",
             "const answer = (x) => x;", "export default function answer(x) { return x; }"]
    assert guess_entry(codes, "javascript") == "answer"


def test_a_tie_goes_to_the_name_the_prompt_mentions_then_the_last_defined() -> None:
    codes = ["function a() {}\nfunction b() {}"]
    assert guess_entry(codes, "javascript") == "b"
    assert guess_entry(codes, "javascript", "// >>> a()\n") == "a"


def test_methods_are_named_with_their_owner_and_constructors_never() -> None:
    code = "class MathUtils {\n  constructor() {}\n  static gcd(a, b) { return a; }\n}"
    assert defined_names(code, "typescript") == ["MathUtils.gcd"]
    assert guess_entry([code], "typescript") == "MathUtils.gcd"
    assert guess_entry(["const x = 1;", ""], "javascript") is None


def test_a_benchmark_name_and_a_models_name_for_it_are_one_function() -> None:
    assert same_function("has_close_elements", "hasCloseElements")
    assert not same_function("has_close_elements", "hasClose")
