"""TypeScript's utility types read as the plain types they make, and values drawn of them."""

from __future__ import annotations

from codequorum.behaviour.runtimes.ts_draws import type_values
from codequorum.behaviour.runtimes.ts_utility import plain

ALIASES = {"User": "{ name: string; age: number; email?: string }", "Unit": "'ms' | 's'"}


def test_utility_types_are_the_plain_types_they_make() -> None:
    assert plain("Partial<User>", ALIASES) == (
        "{ 'name'?: string; 'age'?: number; 'email'?: string }")
    assert plain("Required<User>", ALIASES) == (
        "{ 'name': string; 'age': number; 'email': string }")
    assert plain("Pick<User, 'name' | 'age'>", ALIASES) == "{ 'name': string; 'age': number }"
    assert plain("Omit<User, 'name'>", ALIASES) == "{ 'age': number; 'email'?: string }"
    assert plain("keyof User", ALIASES) == "'name' | 'age' | 'email'"
    assert plain("Record<Unit, number>", ALIASES) == "{ 'ms': number; 's': number }"
    assert plain("Record<string, number>", ALIASES) == "Record<string, number>"
    assert plain("NonNullable<string | null | undefined>", ALIASES) == "string"
    assert plain("Exclude<Unit, 's'>", ALIASES) == "'ms'"
    assert plain("Extract<Unit, 's' | 'h'>", ALIASES) == "'s'"
    assert plain("ReadonlyMap<string, User>", ALIASES) == "Map<string, User>"
    assert plain("Iterable<number>", ALIASES) == "Array<number>"
    # what is none, or whose parts are not read
    assert plain("Pick<User, keyof Other>", ALIASES) is None
    assert plain("Partial<Unknown>", ALIASES) is None
    assert plain("Promise<number>", ALIASES) is None and plain("number", ALIASES) is None
    assert plain("NonNullable<null>", ALIASES) is None


def test_values_are_drawn_of_utility_types_and_maps_by_other_keys() -> None:
    assert type_values("Partial<User>", 0, ALIASES) == {"$": "object", "v": []}
    assert type_values("Pick<User, 'name'>", 1, ALIASES) == {"$": "object", "v": [["name", "a"]]}
    assert [type_values("keyof User", i, ALIASES) for i in range(3)] == ["name", "age", "email"]
    assert type_values("Partial<Record<Unit, boolean>>", 1, ALIASES) == {
        "$": "object", "v": [["ms", False], ["s", True]]}
    assert type_values("Map<number, string>", 2, ALIASES) == {
        "$": "map", "v": [[-3, "hello"], [7, "Hello World"], [42, "abcba"]]}
    assert type_values("Map<Unit, number>", 3, ALIASES) == {  # keys drawn once each
        "$": "map", "v": [["s", 7], ["ms", 42]]}
