"""Values drawn of TypeScript types: unions with null, equal items, repeats."""

from __future__ import annotations

from codequorum.behaviour.runtimes.ts_draws import draw_count, repeated, repeats, type_values


def test_a_nullable_type_draws_null_and_undefined_once_each_after_its_first_value() -> None:
    undefined = {"$": "undefined"}
    assert [type_values("string | null | undefined", i) for i in range(5)] == [
        "", None, undefined, "a", "hello"]
    assert [type_values("(number | null)[]", i) for i in range(3)] == [
        [], [None, 1], [1, -3, 7]]
    assert type_values("null | undefined", 1) == undefined
    assert type_values("readonly (string | void)[]", 1) == [undefined, "a"]


def test_a_draw_of_step_zero_gives_the_items_of_one_type_one_value() -> None:
    assert type_values("{ lo: number; hi: number }", 3, step=0) == {
        "$": "object", "v": [["hi", 7], ["lo", 7]]}
    assert type_values("[number, number]", 3, step=0) == [7, 7]
    assert type_values("number[]", 3, step=0) == [7, 7, 7, 7]
    assert type_values("number[]", 3) == [7, 42, 2.5, 0]


def test_maps_and_records_by_string_keys_repeat_their_values_under_new_keys() -> None:
    assert repeats("Map<string, number>") and repeats("Record<string, string[]>")
    assert repeats("{ [k: string]: number }") and not repeats("{ a: number }")
    assert not repeats("Map<number, string>")
    assert repeated({"$": "map", "v": [["a", 1], ["b", -3]]}) == {
        "$": "map", "v": [["a", 1], ["a2", 1], ["b", -3]]}
    assert repeated({"$": "object", "v": []}) == {"$": "object", "v": []}


def test_every_sample_of_a_parameters_type_is_drawn() -> None:
    assert draw_count(["number"], 6) == 6 and draw_count(["string", "number"], 6) == 9
    assert draw_count(["S"], 6, {"S": "string"}) == 9 and draw_count(["string"], 0) == 0
    assert draw_count(["any"], 6) == 9
